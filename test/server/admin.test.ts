import { describe, expect, it } from "vitest";
import { AdminError } from "../../src/server/index.js";
import { adminCodeOf, makeServer } from "./helpers.js";

describe("admin", () => {
  it("S13: createUser grants whole, non-negative credits and checks the multiplier with the core's rules (P4)", async () => {
    const { admin } = await makeServer();
    for (const credits of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "10", null]) {
      expect(
        await adminCodeOf(admin.createUser({ credits: credits as number })),
        String(credits),
      ).toBe("invalid_credits");
    }
    for (const multiplier of ["-1", "1e3", ".5", "1.", "", "abc", 1001, -0.5, Number.NaN, "1001"]) {
      expect(
        await adminCodeOf(admin.createUser({ credits: 1, multiplier })),
        String(multiplier),
      ).toBe("invalid_multiplier");
    }
    const { userId } = await admin.createUser({ credits: 0, multiplier: " 1.15 " });
    expect(userId).toMatch(/^usr_[0-9a-f]{16}$/);
    expect(await admin.balance(userId)).toBe(0);
    expect(await admin.ledger(userId)).toEqual([]); // a zero grant is not an entry (entries are positive)
    const rich = (await admin.createUser({ credits: 5, multiplier: 1000 })).userId;
    expect(await admin.ledger(rich)).toEqual([
      { kind: "grant", credits: 5, at: expect.any(String) },
    ]);
  });

  it("admin methods reject with AdminError for unknown users, keys, jobs and tasks, and bad modes", async () => {
    const { admin } = await makeServer();
    const { userId } = await admin.createUser({ credits: 10 });
    expect(await adminCodeOf(admin.createApiKey("usr_nope"))).toBe("unknown_user");
    expect(await adminCodeOf(admin.createApiKey(userId, { mode: "prod" as "live" }))).toBe(
      "invalid_mode",
    );
    expect(await adminCodeOf(admin.revokeApiKey("apk_nope"))).toBe("unknown_api_key");
    expect(await adminCodeOf(admin.createAsset("usr_nope"))).toBe("unknown_user");
    expect(await adminCodeOf(admin.setPriceMultiplier("usr_nope", 1))).toBe("unknown_user");
    expect(await adminCodeOf(admin.setPriceMultiplier(userId, "x"))).toBe("invalid_multiplier");
    expect(await adminCodeOf(admin.grantCredits(userId, -5))).toBe("invalid_credits");
    expect(await adminCodeOf(admin.grantCredits("usr_nope", 5))).toBe("unknown_user");
    expect(await adminCodeOf(admin.failJob("job_0_0"))).toBe("unknown_job");
    expect(await adminCodeOf(admin.job("job_0_0"))).toBe("unknown_job");
    expect(await adminCodeOf(admin.task("task_0"))).toBe("unknown_task");
    expect(await adminCodeOf(admin.balance("usr_nope"))).toBe("unknown_user");
    expect(await adminCodeOf(admin.ledger("usr_nope"))).toBe("unknown_user");
    expect(await admin.balance(userId)).toBe(10); // nothing changed
    await expect(admin.failJob("job_0_0")).rejects.toBeInstanceOf(AdminError);
  });

  it("a bad argument rejects: the admin methods never throw synchronously", async () => {
    const { admin } = await makeServer();
    let pending: Promise<unknown> | undefined;
    expect(() => {
      pending = admin.createUser({ credits: -1 });
    }).not.toThrow();
    await expect(pending).rejects.toMatchObject({ name: "AdminError", code: "invalid_credits" });
  });

  it("an AdminError message never holds a key", async () => {
    const { admin } = await makeServer();
    const { userId } = await admin.createUser({ credits: 1 });
    const { key } = await admin.createApiKey(userId);
    const error = await admin.revokeApiKey(key).catch((e: unknown) => e); // a key is not a key id
    expect((error as AdminError).code).toBe("unknown_api_key");
    expect((error as Error).message).not.toContain(key.slice(8, 30));
  });

  it("server options are checked", async () => {
    await expect(makeServer({ maxBodyBytes: 0 })).rejects.toThrow(RangeError);
    await expect(makeServer({ idempotencyTtlMs: -1 })).rejects.toThrow(RangeError);
    await expect(makeServer({ idempotencyTtlMs: 1.5 })).rejects.toThrow(RangeError);
  });
});
