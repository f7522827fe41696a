import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/node/index.js";
import { hashApiKey } from "../../src/server/auth.js";
import { makeServer, makeStore } from "./helpers.js";

const ping = (key: string) => new Request("http://local/api/ping", { headers: { authorization: `Bearer ${key}` } });

describe("the injected API-key hasher (docs/decisions.md, S2)", () => {
  it("S2: sha256Hex gives the same hex as the Web Crypto default", async () => {
    for (const key of ["ck_test_abcdefghijklmnopqrstuvwx", "ck_live_ÄÖÜ-é_0123456789abcdef", "x"]) {
      expect(sha256Hex(key)).toBe(await hashApiKey(key));
    }
  });

  it("S1, S2: with a synchronous hasher a new key works at once, is stored only as its hash, and revokes", async () => {
    const store = await makeStore();
    const server = await makeServer({ store, hashApiKey: sha256Hex });
    const { userId } = await server.admin.createUser({ credits: 10 });
    const { key, apiKeyId } = await server.admin.createApiKey(userId);
    const record = await store.findApiKeyByHash(sha256Hex(key));
    expect(record).toMatchObject({ id: apiKeyId, userId, hash: sha256Hex(key), revoked: false });
    expect(JSON.stringify(record)).not.toContain(key);
    expect((await server.fetch(ping(key))).status).toBe(200);
    await server.admin.revokeApiKey(apiKeyId);
    expect((await server.fetch(ping(key))).status).toBe(401);
  });

  it("S2: a key from a server with the default hasher authenticates on a store shared with a sha256Hex server", async () => {
    const store = await makeStore();
    const web = await makeServer({ store });
    const { userId } = await web.admin.createUser({ credits: 10 });
    const { key } = await web.admin.createApiKey(userId);
    expect((await web.fetch(ping(key))).status).toBe(200);
    const node = await makeServer({ store, hashApiKey: sha256Hex });
    expect((await node.fetch(ping(key))).status).toBe(200);
  });
});
