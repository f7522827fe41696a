import { describe, expect, it } from "vitest";
import { hashApiKey, webCryptoHash } from "../../src/server/auth.js";
import { makeServer, makeStore } from "./helpers.js";

const ping = (key: string) =>
  new Request("http://local/api/ping", { headers: { authorization: `Bearer ${key}` } });

describe("the API-key hash (docs/decisions.md, S2)", () => {
  it("S2: on Node a key is hashed at once with node:crypto, to the same hex as Web Crypto's digest", async () => {
    for (const key of ["ck_test_abcdefghijklmnopqrstuvwx", "ck_live_ÄÖÜ-é_0123456789abcdef", "x"]) {
      const hash = hashApiKey(key);
      expect(typeof hash).toBe("string"); // no promise: no trip through the event loop per request
      expect(hash).toBe(await webCryptoHash(key));
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("S1, S2: a new key works at once, is stored only as its hash, and revokes", async () => {
    const store = await makeStore();
    const server = await makeServer({ store });
    const { userId } = await server.admin.createUser({ credits: 10 });
    const { key, apiKeyId } = await server.admin.createApiKey(userId);
    const hash = await webCryptoHash(key);
    const record = (await store.findCaller(hash))?.key;
    expect(record).toMatchObject({ id: apiKeyId, userId, hash, revoked: false });
    expect(JSON.stringify(record)).not.toContain(key);
    expect((await server.fetch(ping(key))).status).toBe(200);
    await server.admin.revokeApiKey(apiKeyId);
    expect((await server.fetch(ping(key))).status).toBe(401);
  });

  it("S2, S14: a key made by one server authenticates on another server over the same store", async () => {
    const store = await makeStore();
    const first = await makeServer({ store });
    const { userId } = await first.admin.createUser({ credits: 10 });
    const { key } = await first.admin.createApiKey(userId);
    expect((await first.fetch(ping(key))).status).toBe(200);
    const second = await makeServer({ store });
    expect((await second.fetch(ping(key))).status).toBe(200);
  });
});
