import { describe, expect, it } from "vitest";
import { MAX_ERROR_BODY_BYTES, MAX_LISTED_ISSUES } from "../../src/server/errors.js";
import { MAX_CREDITS, type Store } from "../../src/store/store.js";
import { adminCodeOf, BASE, errorOf, makeServer, makeStore, setup, wrapStore } from "./helpers.js";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

describe("balances stay exact (S15)", () => {
  it("S15: a grant past 2^53 - 1 rejects with credits_too_large and changes nothing", async () => {
    const { admin } = await makeServer();
    const { userId } = await admin.createUser({ credits: 10 });
    await admin.grantCredits(userId, MAX_CREDITS - 10); // exactly up to the bound is fine
    expect(await admin.balance(userId)).toBe(MAX_CREDITS);
    const ledger = await admin.ledger(userId);
    for (const credits of [1, MAX_CREDITS, 2 ** 53, 1e300]) {
      expect(await adminCodeOf(admin.grantCredits(userId, credits)), String(credits)).toBe(
        "credits_too_large",
      );
    }
    const error = await admin.grantCredits(userId, 1).catch((e: unknown) => e as Error);
    expect(error?.message).toContain(String(MAX_CREDITS)); // the balance as it is, not rounded
    expect(await admin.balance(userId)).toBe(MAX_CREDITS);
    expect(await admin.ledger(userId)).toEqual(ledger);
  });

  it("S15: createUser with more than 2^53 - 1 credits rejects with credits_too_large; exactly 2^53 - 1 is accepted", async () => {
    const { admin } = await makeServer();
    for (const credits of [2 ** 53, 2 ** 60, 1e300]) {
      expect(await adminCodeOf(admin.createUser({ credits })), String(credits)).toBe(
        "credits_too_large",
      );
    }
    const { userId } = await admin.createUser({ credits: MAX_CREDITS });
    expect(await admin.balance(userId)).toBe(MAX_CREDITS);
    expect(await admin.ledger(userId)).toEqual([
      { kind: "grant", credits: MAX_CREDITS, at: expect.any(String) },
    ]);
  });
});

describe("a key revoked in flight (S15)", () => {
  /**
   * A server whose store revokes the caller's key in the middle of a request: after authentication,
   * just before the one call that claims, checks and debits.
   */
  async function revokingServer() {
    const base = await makeStore();
    const armed: { apiKeyId?: string } = {};
    const overrides: Partial<Store> = {
      commitTask: async (input, now) => {
        if (armed.apiKeyId !== undefined) {
          await base.revokeApiKey(armed.apiKeyId);
        }
        return base.commitTask(input, now);
      },
    };
    const s = await setup({ store: wrapStore(base, overrides) });
    armed.apiKeyId = s.apiKeyId;
    return s;
  }

  it("S15: a key revoked between authentication and commit is 401 and charges nothing", async () => {
    const s = await revokingServer();
    const ledger = await s.admin.ledger(s.userId);
    const body = {
      prompt: "in flight",
      modelId: "beta",
      generationType: "image-to-image",
      inputAssetIds: [s.assets[0]],
      idempotencyKey: "revoked-in-flight",
    };
    const res = await s.generate(body);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await errorOf(res)).code).toBe("invalid_api_key");
    expect(await s.admin.balance(s.userId)).toBe(1000);
    expect(await s.admin.ledger(s.userId)).toEqual(ledger);
    // Nothing was claimed either: with a fresh key the same request is a new task, not a replay.
    const { key } = await s.admin.createApiKey(s.userId);
    const retry = await s.generate(body, { authorization: `Bearer ${key}` });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("bounded answers (S15)", () => {
  it(`S15: a quote spec with thousands of long unknown fields gets a small 400: ${MAX_LISTED_ISSUES} issues, each cut short, and a count of the rest`, async () => {
    const s = await setup();
    const spec: Record<string, unknown> = { kind: "image", modelId: "beta" };
    // 250 fields of 1,000 characters: within the default body limit, five times the issues listed.
    for (let i = 0; i < 250; i++) {
      spec[`${"f".repeat(1000)}${i}`] = i;
    }
    const res = await s.post("/api/pricing/quote", spec);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(bytes(text)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    const error = JSON.parse(text).error as {
      message: string;
      param: string;
      issues: { path: string; code: string; message: string }[];
    };
    // The core lists the first 50 and counts the rest in one more issue, which the answer keeps.
    expect(error.message).toBe(
      `The request has more than ${MAX_LISTED_ISSUES} problems; see issues.`,
    );
    expect(error.issues).toHaveLength(MAX_LISTED_ISSUES + 1);
    expect(error.issues.at(-1)).toMatchObject({ path: "", code: "too_many_issues" });
    expect(error.issues.at(-1)?.message).toContain(`${250 - MAX_LISTED_ISSUES} more issues`);
    for (const issue of error.issues.slice(0, -1)) {
      expect(issue.code).toBe("unknown_field");
      expect(issue.path.length).toBeLessThanOrEqual(103);
      expect(issue.message.length).toBeLessThanOrEqual(303);
    }
    expect(error.param.length).toBeLessThanOrEqual(103);
  });

  it("S15: a generation with long unknown fields and a long path in a 404 get small answers", async () => {
    const s = await setup();
    const body: Record<string, unknown> = { prompt: "p" };
    // 2 bytes a character in UTF-8: 270 KB, within the default body limit.
    for (let i = 0; i < 90; i++) {
      body[`${"\u00e9".repeat(1500)}${i}`] = 1;
    }
    const res = await s.generate(body);
    expect(res.status).toBe(400);
    expect(bytes(await res.text())).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);

    const notFound = await s.get(`/${"x".repeat(100_000)}`);
    expect(notFound.status).toBe(404);
    expect(bytes(await notFound.text())).toBeLessThan(1024);
    const wrongMethod = await s.server.fetch(
      new Request(`${BASE}/api/ping`, { method: "X".repeat(10_000), headers: s.auth }),
    );
    expect(wrongMethod.status).toBe(405);
    expect(bytes(await wrongMethod.text())).toBeLessThan(1024);
  });
});

describe("HEAD (S12)", () => {
  it("S12: HEAD /api/ping answers 200 like GET, with the same headers, the GET's length and no body", async () => {
    const s = await setup();
    const get = await s.server.fetch(new Request(`${BASE}/api/ping`, { headers: s.auth }));
    const head = await s.server.fetch(
      new Request(`${BASE}/api/ping`, { method: "HEAD", headers: s.auth }),
    );
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const body = await get.text();
    expect(body.length).toBeGreaterThan(0);
    // The GET's length is left to the runtime, which counts what it sends; the HEAD carries it.
    expect(head.headers.get("content-length")).toBe(
      String(new TextEncoder().encode(body).byteLength),
    );
    const headersOf = (res: Response) => {
      const all: [string, string][] = [];
      res.headers.forEach(
        (value, name) =>
          void (name !== "request-id" && name !== "content-length" && all.push([name, value])),
      );
      return all;
    };
    expect(headersOf(head)).toEqual(headersOf(get));
    expect(head.headers.get("request-id")).toMatch(/^req_/);
  });

  it("S12: HEAD answers every GET route (the key still checked first) and keeps the failure's status without a body", async () => {
    const s = await setup();
    const head = (path: string, headers: Record<string, string> = s.auth) =>
      s.server.fetch(new Request(BASE + path, { method: "HEAD", headers }));
    expect((await head("/api/query/credits")).status).toBe(200);
    expect((await head("/openapi.json", {})).status).toBe(200);
    const unauthenticated = await head("/api/ping", {});
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await unauthenticated.text()).toBe("");
    const missing = await head("/nope");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe("");
  });
});
