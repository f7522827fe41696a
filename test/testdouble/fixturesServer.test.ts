/**
 * Fixtures through `createReferenceServer({ fixtures })`: checked whole when the server is made,
 * loaded before the first answer, and loaded again into a durable store without giving twice.
 */
import { describe, expect, it } from "vitest";
import {
  createReferenceServer,
  type Fixtures,
  FixturesError,
  StoreUnavailableError,
} from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { BASE, errorOf, makeStore, wrapStore } from "../server/helpers.js";

const ALICE_KEY = "ck_test_alice_0000000000000001";
const ALICE_LIVE = "ck_live_alice_0000000000000002";
const BOB_KEY = "ck_test_bob_00000000000000001";

const FIXTURES: Fixtures = {
  users: [
    {
      id: "usr_alice",
      credits: 1000,
      multiplier: "1.15",
      apiKeys: [ALICE_KEY, { key: ALICE_LIVE }],
      assets: ["ast_alice_1"],
    },
    { id: "usr_bob", credits: 50, apiKeys: [BOB_KEY] },
  ],
};

const sha256 = async (text: string) =>
  Buffer.from(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))).toString(
    "hex",
  );

const get = (server: { fetch: (r: Request) => Promise<Response> }, path: string, key: string) =>
  server.fetch(new Request(BASE + path, { headers: { authorization: `Bearer ${key}` } }));

describe("createReferenceServer({ fixtures })", () => {
  it("S2: a hard-coded fixture key authenticates as its user, from the very first request", async () => {
    const server = createReferenceServer({ store: await makeStore(), fixtures: FIXTURES });
    // No await between creation and the request: the request waits for the load.
    const ping = await get(server, "/api/ping", ALICE_KEY);
    expect(ping.status).toBe(200);
    expect(await ping.json()).toMatchObject({
      ok: true,
      userId: "usr_alice",
      apiKeyId: expect.stringMatching(/^apk_/),
    });
    const live = await (await get(server, "/api/query/credits", ALICE_LIVE)).json();
    expect(live).toMatchObject({ creditBalance: 1000, userId: "usr_alice" });
    expect((await (await get(server, "/api/query/credits", BOB_KEY)).json()).creditBalance).toBe(
      50,
    );
    expect((await get(server, "/api/ping", "ck_test_not_a_fixture_key_00000")).status).toBe(401);
  });

  it("S2, P4: fixture assets are the user's own and the multiplier prices the charge", async () => {
    const server = createReferenceServer({ store: await makeStore(), fixtures: FIXTURES });
    const generate = (key: string, assetId: string) =>
      server.fetch(
        new Request(`${BASE}/api/generations`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            prompt: "a lighthouse",
            modelId: "beta2",
            resolution: "4K",
            generationType: "image-to-image",
            inputAssetIds: [assetId],
          }),
        }),
      );
    const bobs = await generate(BOB_KEY, "ast_alice_1");
    expect(bobs.status).toBe(400);
    expect((await errorOf(bobs)).code).toBe("asset_not_found");
    const alices = await generate(ALICE_KEY, "ast_alice_1");
    expect(alices.status).toBe(202);
    // beta2 at 4K is 120; with 1.15 it is 138.
    expect(((await alices.json()) as { billing: unknown }).billing).toEqual({
      totalCreditCost: 138,
      balanceAfterCredits: 862,
    });
  });

  it("S13: admin calls wait for the load too, and the opening balance is a grant in the ledger", async () => {
    const server = createReferenceServer({ store: await makeStore(), fixtures: FIXTURES });
    expect(await server.admin.user("usr_alice")).toEqual({
      userId: "usr_alice",
      balance: 1000,
      multiplier: "1.15",
    });
    expect(await server.admin.ledger("usr_bob")).toEqual([
      { kind: "grant", credits: 50, at: expect.any(String) },
    ]);
    await expect(server.ready()).resolves.toBeUndefined();
  });

  it("S1: bad fixtures throw a FixturesError naming every problem, and nothing reaches the store", async () => {
    const store = await makeStore();
    const writes: string[] = [];
    const watched = wrapStore(store, {
      createUser: (...args) => {
        writes.push("createUser");
        return store.createUser(...args);
      },
    });
    let error: unknown;
    try {
      createReferenceServer({
        store: watched,
        fixtures: {
          users: [
            { id: "usr_ok", credits: 5, apiKeys: ["ck_test_fine_00000000000000001"] },
            { id: "usr_ok", credits: -1, apiKeys: ["sk_test_0000000000000000000"] },
          ],
        },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FixturesError);
    const issues = (error as FixturesError).issues.map((i) => `${i.path} ${i.code}`);
    expect(issues).toEqual([
      "users[1].id duplicate",
      "users[1].credits invalid_credits",
      "users[1].apiKeys[0] invalid_api_key",
    ]);
    expect((error as Error).message).toMatch(/^Fixtures refused, nothing loaded: users\[1\]\.id: /);
    expect(writes).toEqual([]);
    expect(await store.getUser("usr_ok")).toBeUndefined();
  });

  it("S14: loading the same fixtures again into a store that has them gives nothing twice and completes what is missing", async () => {
    const store = await makeStore();
    const first = createReferenceServer({ store, fixtures: FIXTURES });
    await first.ready();
    await first.admin.grantCredits("usr_bob", 7);
    await first.admin.setPriceMultiplier("usr_bob", "2");

    // A second instance (or a restart) on the same store, with one more key for bob in the file.
    const more: Fixtures = {
      users: [
        FIXTURES.users[0] as Fixtures["users"][number],
        { id: "usr_bob", credits: 50, apiKeys: [BOB_KEY, `${BOB_KEY}9`] },
      ],
    };
    const second = createReferenceServer({ store, fixtures: more });
    await second.ready();
    expect(await second.admin.user("usr_bob")).toEqual({
      userId: "usr_bob",
      balance: 57,
      multiplier: "2",
    });
    expect((await second.admin.ledger("usr_alice")).map((e) => e.kind)).toEqual(["grant"]);
    expect((await get(second, "/api/ping", `${BOB_KEY}9`)).status).toBe(200);
    expect((await (await get(second, "/api/ping", BOB_KEY)).json()).userId).toBe("usr_bob");
  });

  it("S2: a fixture key that the store holds for another user refuses the load: ready() rejects and requests fail", async () => {
    const store = await makeStore();
    await createReferenceServer({ store, fixtures: FIXTURES }).ready();
    const logs: unknown[] = [];
    const thief = createReferenceServer({
      store,
      fixtures: { users: [{ id: "usr_mallory", credits: 1, apiKeys: [ALICE_KEY] }] },
      log: (e) => logs.push(e),
    });
    const error = await thief.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as FixturesError).issues).toEqual([
      {
        path: "users[0].apiKeys[0]",
        code: "taken",
        message: "This API key already belongs to another user in the store.",
      },
    ]);
    expect(await store.getUser("usr_mallory")).toBeUndefined();
    const res = await get(thief, "/api/ping", ALICE_KEY);
    expect(res.status).toBe(500);
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain(ALICE_KEY);
  });

  it("S14: a load cut short by an unreachable store answers 503, and the next request loads the fixtures", async () => {
    const store = await makeStore();
    let down = true;
    const flaky = wrapStore(store, {
      loadFixtures: async (load, at) => {
        if (down) {
          throw new StoreUnavailableError("down", { retryAfterMs: 1000 });
        }
        return (store.loadFixtures as NonNullable<Store["loadFixtures"]>)(load, at);
      },
    });
    const server = createReferenceServer({ store: flaky, fixtures: FIXTURES, log: () => {} });
    const during = await get(server, "/api/ping", ALICE_KEY);
    expect(during.status).toBe(503);
    expect(during.headers.get("retry-after")).toBe("1");
    down = false;
    expect((await get(server, "/api/ping", ALICE_KEY)).status).toBe(200);
    expect((await get(server, "/api/ping", BOB_KEY)).status).toBe(200);
    // The user made before the outage was not given its opening credits twice.
    expect((await server.admin.ledger("usr_alice")).map((e) => [e.kind, e.credits])).toEqual([
      ["grant", 1000],
    ]);
  });

  it("S14: an asset another user owns refuses the whole load: no user of the file is created, nothing is written", async () => {
    const store = await makeStore();
    await createReferenceServer({ store, fixtures: FIXTURES }).ready();
    const second = createReferenceServer({
      store,
      fixtures: {
        users: [
          {
            id: "usr_first",
            credits: 10,
            apiKeys: ["ck_test_first_00000000000001"],
            assets: ["ast_first"],
          },
          { id: "usr_second", credits: 20, assets: ["ast_second", "ast_alice_1"] },
        ],
      },
      log: () => {},
    });
    const error = await second.ready().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as FixturesError).message).toBe(
      'Fixtures refused, nothing loaded: users[1].assets[1]: Asset id "ast_alice_1" already belongs to another user in the store.',
    );
    expect(await store.getUser("usr_first")).toBeUndefined();
    expect(await store.getUser("usr_second")).toBeUndefined();
    expect(await store.ownedAssets("usr_first", ["ast_first"])).toEqual(new Set());
    expect(await store.findCaller(await sha256("ck_test_first_00000000000001"))).toBeUndefined();
    expect((await store.findCaller(await sha256(ALICE_KEY)))?.key.userId).toBe("usr_alice");
  });
});
