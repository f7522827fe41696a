import { describe, expect, it } from "vitest";
import { BASE, errorOf, makeServer, makeStore, setup } from "./helpers.js";

const ping = (server: { fetch: (r: Request) => Promise<Response> }, authorization?: string) =>
  server.fetch(
    new Request(`${BASE}/api/ping`, {
      headers: authorization === undefined ? {} : { authorization },
    }),
  );

describe("API keys", () => {
  it("S1: every endpoint answers 401 without a key, and the error body never echoes the key", async () => {
    const s = await setup();
    const paths: [string, string][] = [
      ["POST", "/api/generations"],
      ["POST", "/api/pricing/quote"],
      ["GET", "/api/ping"],
      ["GET", "/api/query/credits"],
    ];
    for (const [method, path] of paths) {
      const init: RequestInit = { method, headers: { "content-type": "application/json" } };
      if (method === "POST") {
        init.body = "{}";
      }
      const res = await s.server.fetch(new Request(BASE + path, init));
      expect(res.status, path).toBe(401);
      expect((await errorOf(res)).code).toBe("missing_api_key");
    }
  });

  it("S1: missing, other-scheme, malformed, unknown and revoked keys are all 401; the key is never echoed", async () => {
    const s = await setup();
    const unknown = `ck_test_${"A".repeat(32)}`;
    const cases: [string | undefined, string][] = [
      [undefined, "missing_api_key"],
      [`Basic ${btoa("user:pass")}`, "missing_api_key"],
      [s.key, "missing_api_key"], // no scheme at all
      ["Bearer", "missing_api_key"],
      ["Bearer not-a-key", "invalid_api_key"],
      [`Bearer ck_prod_${"A".repeat(32)}`, "invalid_api_key"],
      [`Bearer ${unknown}`, "invalid_api_key"],
    ];
    for (const [authorization, code] of cases) {
      const res = await ping(s.server, authorization);
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const text = await res.text();
      expect(JSON.parse(text).error.code, authorization).toBe(code);
      expect(text).not.toContain("ck_test_");
      expect(text).not.toContain(s.key);
    }
    await s.admin.revokeApiKey(s.apiKeyId);
    const res = await ping(s.server, `Bearer ${s.key}`);
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(JSON.parse(text).error.code).toBe("invalid_api_key");
    expect(text).not.toContain(s.key);
  });

  it("S1: the scheme is case-insensitive, the key is not", async () => {
    const s = await setup();
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      expect((await ping(s.server, `${scheme} ${s.key}`)).status, scheme).toBe(200);
    }
    expect((await ping(s.server, `Bearer  ${s.key}`)).status).toBe(200); // extra space before the key
    expect(
      (await ping(s.server, `Bearer ${s.key.toUpperCase().replace("CK_TEST_", "ck_test_")}`))
        .status,
    ).toBe(401);
  });

  it("S1: GET /api/ping accepts only API-key authentication (no other scheme, no cookie)", async () => {
    const s = await setup();
    const res = await s.server.fetch(
      new Request(`${BASE}/api/ping`, { headers: { cookie: `session=${s.key}` } }),
    );
    expect(res.status).toBe(401);
    expect((await ping(s.server, `Basic ${btoa(`${s.key}:`)}`)).status).toBe(401);
    expect((await ping(s.server, `Bearer ${s.key}`)).status).toBe(200);
  });

  it("S1: keys start with ck_test_ by default and ck_live_ when asked, with at least 128 random bits", async () => {
    const s = await setup();
    const test = await s.admin.createApiKey(s.userId);
    const live = await s.admin.createApiKey(s.userId, { mode: "live" });
    expect(test.key).toMatch(/^ck_test_[A-Za-z0-9_-]{32}$/); // 32 base64url characters = 192 bits
    expect(live.key).toMatch(/^ck_live_[A-Za-z0-9_-]{32}$/);
    expect(test.apiKeyId).toMatch(/^apk_/);
    const many = new Set(
      (await Promise.all(Array.from({ length: 200 }, () => s.admin.createApiKey(s.userId)))).map(
        (k) => k.key,
      ),
    );
    expect(many.size).toBe(200);
  });

  it("S2: a key is stored only as its SHA-256 hash; the whole key is returned once", async () => {
    const store = await makeStore();
    const server = await makeServer({ store });
    const { userId } = await server.admin.createUser({ credits: 0 });
    const { key, apiKeyId } = await server.admin.createApiKey(userId, { mode: "live" });
    const expected = [
      ...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(key))),
    ]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const record = (await store.findCaller(expected))?.key;
    expect(record?.id).toBe(apiKeyId);
    expect(record?.hash).toBe(expected);
    expect(JSON.stringify(record)).not.toContain(key.slice(8));
    // Nothing the admin exposes afterwards returns the key again.
    expect(JSON.stringify(await server.admin.ledger(userId))).not.toContain(key);
  });

  it("S2: a key reaches only its own user: another user's asset is exactly an unknown asset", async () => {
    const s = await setup();
    const other = await s.admin.createUser({ credits: 1000 });
    const foreign = (await s.admin.createAsset(other.userId)).assetId;
    const body = (ids: string[]) => ({
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: ids,
    });
    const foreignRes = await s.generate(body([s.assets[0] as string, foreign]));
    const unknownRes = await s.generate(body([s.assets[0] as string, "ast_0000000000000000"]));
    expect(foreignRes.status).toBe(400);
    expect(unknownRes.status).toBe(400);
    const a = await errorOf(foreignRes);
    const b = await errorOf(unknownRes);
    expect(a.code).toBe("asset_not_found");
    expect(a.param).toBe("inputAssetIds[1]");
    expect({ ...a, requestId: "", message: a.message.replace(foreign, "X") }).toEqual({
      ...b,
      requestId: "",
      message: b.message.replace("ast_0000000000000000", "X"),
    });
    expect(await s.admin.balance(s.userId)).toBe(1000);
    expect(await s.admin.balance(other.userId)).toBe(1000);
  });

  it("S2: param points at the reference as the client wrote it, before de-duplication", async () => {
    const s = await setup();
    const a = s.assets[0] as string;
    const res = await s.generate({
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: [a, ` ${a} `, " nope "],
    });
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: "asset_not_found", param: "inputAssetIds[2]" });
  });

  it("S1: a key revoked right after it was made never authenticates", async () => {
    const s = await setup();
    const { key, apiKeyId } = await s.admin.createApiKey(s.userId);
    await s.admin.revokeApiKey(apiKeyId);
    expect((await ping(s.server, `Bearer ${key}`)).status).toBe(401);
    await s.admin.revokeApiKey(apiKeyId); // again: nothing happens
  });
});

describe("keys in the wrong place", () => {
  it("S1: a key pasted as an asset id is not echoed in the 400", async () => {
    const s = await setup();
    const res = await s.generate({
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: [s.key],
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toContain(s.key.slice(8, 20));
    expect(JSON.parse(text).error.code).toBe("asset_not_found");
  });
});
