import { describe, expect, it } from "vitest";
import { AdminError, createReferenceServer } from "../../src/server/index.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AdminError);
    return (error as AdminError).code;
  }
  return undefined;
}

describe("admin", () => {
  it("S13: createUser grants whole, non-negative credits and checks the multiplier with the core's rules (P4)", () => {
    const { admin } = createReferenceServer();
    for (const credits of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10", null, 2 ** 53]) {
      expect(
        codeOf(() => admin.createUser({ credits: credits as number })),
        String(credits),
      ).toBe("invalid_credits");
    }
    for (const multiplier of ["-1", "1e3", ".5", "1.", "", "abc", 1001, -0.5, Number.NaN, "1001"]) {
      expect(
        codeOf(() => admin.createUser({ credits: 1, multiplier })),
        String(multiplier),
      ).toBe("invalid_multiplier");
    }
    const { userId } = admin.createUser({ credits: 0, multiplier: " 1.15 " });
    expect(userId).toMatch(/^usr_[0-9a-f]{16}$/);
    expect(admin.balance(userId)).toBe(0);
    expect(admin.ledger(userId)).toEqual([]); // a zero grant is not an entry (entries are positive)
    const rich = admin.createUser({ credits: 5, multiplier: 1000 }).userId;
    expect(admin.ledger(rich)).toEqual([{ kind: "grant", credits: 5, at: expect.any(String) }]);
  });

  it("admin methods throw AdminError for unknown users, keys, jobs and tasks, and bad modes", () => {
    const { admin } = createReferenceServer();
    const { userId } = admin.createUser({ credits: 10 });
    expect(codeOf(() => admin.createApiKey("usr_nope"))).toBe("unknown_user");
    expect(codeOf(() => admin.createApiKey(userId, { mode: "prod" as "live" }))).toBe("invalid_mode");
    expect(codeOf(() => admin.revokeApiKey("apk_nope"))).toBe("unknown_api_key");
    expect(codeOf(() => admin.createAsset("usr_nope"))).toBe("unknown_user");
    expect(codeOf(() => admin.setPriceMultiplier("usr_nope", 1))).toBe("unknown_user");
    expect(codeOf(() => admin.setPriceMultiplier(userId, "x"))).toBe("invalid_multiplier");
    expect(codeOf(() => admin.grantCredits(userId, -5))).toBe("invalid_credits");
    expect(codeOf(() => admin.failJob("job_0_0"))).toBe("unknown_job");
    expect(codeOf(() => admin.job("job_0_0"))).toBe("unknown_job");
    expect(codeOf(() => admin.task("task_0"))).toBe("unknown_task");
    expect(codeOf(() => admin.balance("usr_nope"))).toBe("unknown_user");
    expect(codeOf(() => admin.ledger("usr_nope"))).toBe("unknown_user");
    expect(admin.balance(userId)).toBe(10); // nothing changed
  });

  it("an AdminError message never holds a key", () => {
    const { admin } = createReferenceServer();
    const { userId } = admin.createUser({ credits: 1 });
    const { key } = admin.createApiKey(userId);
    try {
      admin.revokeApiKey(key); // a key is not a key id
    } catch (error) {
      expect((error as AdminError).code).toBe("unknown_api_key");
      expect((error as Error).message).not.toContain(key.slice(8, 30));
    }
  });

  it("server options are checked", () => {
    expect(() => createReferenceServer({ maxBodyBytes: 0 })).toThrow(RangeError);
    expect(() => createReferenceServer({ idempotencyTtlMs: -1 })).toThrow(RangeError);
  });
});
