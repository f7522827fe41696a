/**
 * Reset (S17): `POST /admin/reset` and `admin.reset()` empty users, keys, assets, tasks, jobs,
 * idempotency claims and the ledger, load the start-up fixtures again and put the test clock back on
 * real time, on either store (this file runs on memory and on PostgreSQL); and a reset is one step
 * for the requests in flight, each of which runs, is charged and is journaled in the state before
 * it or in the state after it.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FAULT_LIMITS } from "../../src/server/controls.js";
import {
  createReferenceServer,
  type Fixtures,
  type ReferenceServer,
  StoreUnavailableError,
} from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { ledgerBalance } from "../support/ledger.js";
import { adminCodeOf, BASE, errorOf, makeStore, wrapStore } from "./helpers.js";

/** A store whose reset fails as an unreachable store's does while `down()` says so. */
const resetDownWhile = (base: Store, down: () => boolean): Store =>
  wrapStore(base, {
    reset: async (fixtures) => {
      if (down()) {
        throw new StoreUnavailableError("the database is down (a test)");
      }
      return base.reset(fixtures);
    },
  });

const TOKEN = "reset-admin-token-for-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };
/** Real time in these tests, moved only by the test. */
const REAL_START = Date.UTC(2026, 11, 1);
const iso = (ms: number) => new Date(ms).toISOString();

/** Fixtures of their own per test: a key is one user's in the whole (shared) store. */
function fixtures(credits = 500): {
  fixtures: Fixtures;
  key: string;
  otherKey: string;
  userId: string;
  asset: string;
} {
  const tag = randomBytes(6).toString("hex");
  const key = `ck_test_reset_${tag}_aaaaaaaaaaaa`;
  const otherKey = `ck_test_reset_${tag}_bbbbbbbbbbbb`;
  const userId = `usr_reset_${tag}`;
  const asset = `ast_reset_${tag}`;
  return {
    fixtures: {
      users: [
        { id: userId, credits, multiplier: "1.15", apiKeys: [key], assets: [asset] },
        { id: `${userId}_2`, credits: 0, apiKeys: [otherKey] },
      ],
    },
    key,
    otherKey,
    userId,
    asset,
  };
}

async function onFixtures() {
  const f = fixtures();
  const real = { now: REAL_START };
  const server = createReferenceServer({
    store: await makeStore(),
    fixtures: f.fixtures,
    adminToken: TOKEN,
    now: () => real.now,
  });
  const call = (
    path: string,
    key: string | undefined,
    init: { method?: string; body?: unknown } = {},
  ) =>
    server.fetch(
      new Request(BASE + path, {
        method: init.method ?? "GET",
        headers: {
          ...(key === undefined ? ADMIN : { authorization: `Bearer ${key}` }),
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
      }),
    );
  const generate = (key: string, body: Record<string, unknown> = {}) =>
    call("/api/generations", key, {
      method: "POST",
      body: { prompt: "a fox", modelId: "beta2", resolution: "4K", ...body },
    });
  const resetOverHttp = async () => {
    const res = await call("/admin/reset", undefined, { method: "POST" });
    expect(res.status).toBe(200);
    return res.json();
  };
  return { ...f, server, real, call, generate, resetOverHttp };
}

/** The fixture user's state as the admin API shows it. */
async function stateOf(server: ReferenceServer, userId: string) {
  return { user: await server.admin.user(userId), ledger: await server.admin.ledger(userId) };
}

describe("reset to the start-up fixtures (S17)", () => {
  it("S17: reset restores fixture balances, multipliers, keys and assets, and the ledger holds only the opening grants", async () => {
    const s = await onFixtures();
    const start = await stateOf(s.server, s.userId);
    expect(start).toEqual({
      user: { userId: s.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: iso(REAL_START) }],
    });

    // Spend, grant, change the multiplier, revoke the fixture key.
    expect(
      (await s.generate(s.key, { generationType: "image-to-image", inputAssetIds: [s.asset] }))
        .status,
    ).toBe(202);
    await s.server.admin.grantCredits(s.userId, 1000);
    await s.server.admin.setPriceMultiplier(s.userId, "2");
    const { apiKeyId } = (await (await s.call("/api/ping", s.key)).json()) as { apiKeyId: string };
    await s.server.admin.revokeApiKey(apiKeyId);
    expect((await s.call("/api/ping", s.key)).status).toBe(401);
    s.real.now += 60_000;

    expect(await s.resetOverHttp()).toEqual({
      reset: true,
      clock: { now: iso(REAL_START + 60_000), frozen: false },
    });
    expect(await stateOf(s.server, s.userId)).toEqual({
      user: { userId: s.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: iso(REAL_START + 60_000) }],
    });
    expect((await s.call("/api/ping", s.key)).status).toBe(200);
    expect((await s.call("/api/ping", s.otherKey)).status).toBe(200);
    const again = await s.generate(s.key, {
      generationType: "image-to-image",
      inputAssetIds: [s.asset],
    });
    expect(again.status).toBe(202);
    expect(
      ((await again.json()) as { billing: { balanceAfterCredits: number } }).billing
        .balanceAfterCredits,
    ).toBe(500 - 138);
  });

  it("S17: reset also removes the waiting faults and empties the request journal", async () => {
    const s = await onFixtures();
    expect((await s.call("/api/ping", s.key)).status).toBe(200);
    await s.server.admin.addFault({ kind: "unavailable", path: "/api/ping", times: 3 });
    expect((await s.server.admin.faults()).length).toBe(1);
    expect((await s.server.admin.requests()).length).toBe(1);

    await s.resetOverHttp();
    expect(await s.server.admin.faults()).toEqual([]);
    expect(await s.server.admin.requests()).toEqual([]);
    // The fault is gone: the next ping is answered normally, and it is the journal's only entry.
    expect((await s.call("/api/ping", s.key)).status).toBe(200);
    expect((await s.server.admin.requests()).map((r) => [r.path, r.status])).toEqual([
      ["/api/ping", 200],
    ]);
  });

  it("S17: reset twice in a row gives the start-up fixtures each time, with one opening grant", async () => {
    const s = await onFixtures();
    expect((await s.generate(s.key)).status).toBe(202);
    await s.server.admin.reset();
    await s.server.admin.reset();
    expect(await stateOf(s.server, s.userId)).toEqual({
      user: { userId: s.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: iso(REAL_START) }],
    });
    await s.resetOverHttp();
    await s.resetOverHttp();
    // Two at once are run one after the other.
    await Promise.all([s.server.admin.reset(), s.resetOverHttp()]);
    expect(await stateOf(s.server, s.userId)).toEqual({
      user: { userId: s.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: iso(REAL_START) }],
    });
    expect((await s.call("/api/ping", s.key)).status).toBe(200);
  });

  it("S17: a key, a user and an asset made after start-up are gone after reset: the key is 401, the user and asset unknown", async () => {
    const s = await onFixtures();
    const { userId } = await s.server.admin.createUser({ credits: 100 });
    const { key } = await s.server.admin.createApiKey(userId);
    const { key: lateFixtureUserKey } = await s.server.admin.createApiKey(s.userId);
    const { assetId } = await s.server.admin.createAsset(s.userId);
    expect((await s.call("/api/ping", key)).status).toBe(200);
    expect((await s.call("/api/ping", lateFixtureUserKey)).status).toBe(200);

    await s.server.admin.reset();
    for (const gone of [key, lateFixtureUserKey]) {
      const res = await s.call("/api/ping", gone);
      expect(res.status).toBe(401);
      expect((await errorOf(res)).code).toBe("invalid_api_key");
    }
    expect(await adminCodeOf(s.server.admin.user(userId))).toBe("unknown_user");
    const foreign = await s.generate(s.key, {
      generationType: "image-to-image",
      inputAssetIds: [assetId],
    });
    expect(foreign.status).toBe(400);
    expect((await errorOf(foreign)).code).toBe("asset_not_found");
  });

  it("S17: reset empties tasks, jobs and idempotency claims: the task is unknown and its key makes a new task", async () => {
    const s = await onFixtures();
    const first = await s.generate(s.key, { idempotencyKey: "after-reset" });
    const { batch } = (await first.json()) as { batch: { taskId: string } };
    const task = await s.server.admin.task(batch.taskId);
    await s.server.admin.reset();
    expect(await adminCodeOf(s.server.admin.task(batch.taskId))).toBe("unknown_task");
    expect(await adminCodeOf(s.server.admin.job(task.jobs[0]?.jobId ?? ""))).toBe("unknown_job");
    const second = await s.generate(s.key, { idempotencyKey: "after-reset" });
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBeNull();
    expect(((await second.json()) as { batch: { taskId: string } }).batch.taskId).not.toBe(
      batch.taskId,
    );
    expect(await s.server.admin.balance(s.userId)).toBe(500 - 138);
  });

  it("S17: reset puts the test clock back on real time, and the opening grants are written at real time", async () => {
    const s = await onFixtures();
    await s.server.admin.setClock({ now: "2027-06-01T00:00:00Z" });
    s.real.now += 5;
    await s.server.admin.reset();
    expect(await s.server.admin.clock()).toEqual({ now: iso(REAL_START + 5), frozen: false });
    expect(await s.server.admin.ledger(s.userId)).toEqual([
      { kind: "grant", credits: 500, at: iso(REAL_START + 5) },
    ]);
    // Running on real time again: it follows real time.
    s.real.now += 10;
    expect(await s.server.admin.clock()).toEqual({ now: iso(REAL_START + 15), frozen: false });
  });

  it("S17: requests that arrive while a reset runs wait for the fixtures: none finds the store empty", async () => {
    const f = fixtures();
    let started: () => void = () => {};
    const hasStarted = new Promise<void>((resolve) => {
      started = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const base = await makeStore();
    // The reset is under way, and not done, until the test releases the gate.
    const store = wrapStore(base, {
      reset: async (fixtures) => {
        started();
        await gate;
        return base.reset(fixtures);
      },
    });
    const server = createReferenceServer({ store, fixtures: f.fixtures, adminToken: TOKEN });
    await server.ready();
    const reset = server.admin.reset();
    await hasStarted;
    const ping = () =>
      server.fetch(
        new Request(`${BASE}/api/ping`, { headers: { authorization: `Bearer ${f.key}` } }),
      );
    const pings = Array.from({ length: 5 }, ping);
    const balance = server.admin.balance(f.userId);
    release();
    await reset;
    expect((await Promise.all(pings)).map((r) => r.status)).toEqual(Array(5).fill(200));
    expect(await balance).toBe(500);
  });

  it("S17: a reset that fails changes nothing: the requests that waited for it are answered in the state before it", async () => {
    const f = fixtures();
    const started = latch();
    const gate = latch();
    const base = await makeStore();
    const store = wrapStore(base, {
      reset: async () => {
        started.open();
        await gate.promise;
        throw new Error("this role may not reset (a test)");
      },
    });
    const server = createReferenceServer({
      store,
      fixtures: f.fixtures,
      adminToken: TOKEN,
      log: () => {},
    });
    await server.ready();
    await server.admin.grantCredits(f.userId, 7);
    const reset = server.fetch(
      new Request(`${BASE}/admin/reset`, { method: "POST", headers: ADMIN }),
    );
    await started.promise;
    const credits = server.fetch(
      new Request(`${BASE}/api/query/credits`, { headers: { authorization: `Bearer ${f.key}` } }),
    );
    const balance = server.admin.balance(f.userId);
    gate.open();
    expect((await reset).status).toBe(500);
    const answer = await credits;
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { creditBalance: number }).creditBalance).toBe(507);
    expect(await balance).toBe(507);
    await expectBalanceIsLedger(server, f.userId);
  });

  it("S17: POST /admin/reset takes no fields: a body with one is 400 naming it, and nothing is reset", async () => {
    const s = await onFixtures();
    expect((await s.generate(s.key)).status).toBe(202);
    for (const body of [{ keepUsers: true }, [], "{x"]) {
      const res = await s.call("/admin/reset", undefined, { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = await errorOf(res);
      if (typeof body === "string") {
        expect(error.code).toBe("invalid_json");
      } else {
        expect(error).toMatchObject({
          code: "invalid_request",
          param: Array.isArray(body) ? "" : "keepUsers",
        });
      }
    }
    expect(await s.server.admin.balance(s.userId)).toBe(500 - 138);
    // `{}` is the same as no body.
    expect((await s.call("/admin/reset", undefined, { method: "POST", body: {} })).status).toBe(
      200,
    );
    expect(await s.server.admin.balance(s.userId)).toBe(500);
  });

  it("S17: a server started without fixtures resets to an empty store", async () => {
    const server = createReferenceServer({ store: await makeStore(), adminToken: TOKEN });
    const { userId } = await server.admin.createUser({ credits: 10 });
    const { key } = await server.admin.createApiKey(userId);
    await server.admin.reset();
    expect(await adminCodeOf(server.admin.user(userId))).toBe("unknown_user");
    const res = await server.fetch(
      new Request(`${BASE}/api/ping`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(res.status).toBe(401);
  });

  it("S17: a store that cannot be reached makes reset fail with 503, and the next reset completes it", async () => {
    const f = fixtures();
    let down = true;
    const store = resetDownWhile(await makeStore(), () => down);
    const server = createReferenceServer({
      store,
      fixtures: f.fixtures,
      adminToken: TOKEN,
      log: () => {},
    });
    await server.ready();
    await server.admin.grantCredits(f.userId, 7);
    const res = await server.fetch(
      new Request(`${BASE}/admin/reset`, { method: "POST", headers: ADMIN }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await server.admin.balance(f.userId)).toBe(507);
    down = false;
    await server.admin.reset();
    expect(await server.admin.balance(f.userId)).toBe(500);
  });
});

/** A promise the test settles: what holds a request open at a chosen point, without a timer. */
function latch() {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A generation of beta2 4K with a fixture key, straight to a server. */
const generateOn = (server: ReferenceServer, key: string) =>
  server.fetch(
    new Request(`${BASE}/api/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "a fox", modelId: "beta2", resolution: "4K" }),
    }),
  );

/** A store whose first `commitTask` waits for the test: the request has its key checked and is held before its commit. */
function holdFirstCommit(base: Store) {
  const reached = latch();
  const release = latch();
  let first = true;
  const store = wrapStore(base, {
    commitTask: async (input, now) => {
      if (first) {
        first = false;
        reached.open();
        await release.promise;
      }
      return base.commitTask(input, now);
    },
  });
  return { store, reached: reached.promise, release: release.open };
}

/** The balance equals the sum of the ledger (S13). */
async function expectBalanceIsLedger(server: ReferenceServer, userId: string) {
  expect(await server.admin.balance(userId)).toBe(ledgerBalance(await server.admin.ledger(userId)));
}

describe("a reset is one step for a request in flight (S17)", () => {
  it("S17: a request whose key was checked before a reset is committed before the reset runs: 202, and the reset then gives the fixtures as loaded", async () => {
    const f = fixtures();
    const held = holdFirstCommit(await makeStore());
    const server = createReferenceServer({
      store: held.store,
      fixtures: f.fixtures,
      adminToken: TOKEN,
    });
    const answer = generateOn(server, f.key);
    await held.reached;
    let resetDone = false;
    const reset = server.admin.reset().then(() => {
      resetDone = true;
    });
    // Whatever runs meanwhile, the reset waits for the request it would otherwise cut in two.
    await new Promise((resolve) => setImmediate(resolve));
    expect(resetDone).toBe(false);
    held.release();
    const res = await answer;
    await reset;
    expect(res.status).toBe(202);
    expect(await stateOf(server, f.userId)).toEqual({
      user: { userId: f.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: expect.any(String) }],
    });
    expect(await server.admin.requests()).toEqual([]);
    await expectBalanceIsLedger(server, f.userId);
  });

  it("S17: two servers on one store: a request checked before the other server's reset commits after it with its fixture key, charged once in the state after", async () => {
    const f = fixtures();
    const base = await makeStore();
    const a = createReferenceServer({ store: base, fixtures: f.fixtures, adminToken: TOKEN });
    await a.ready();
    const held = holdFirstCommit(base);
    const b = createReferenceServer({ store: held.store, fixtures: f.fixtures });
    await b.ready();
    const answer = generateOn(b, f.key);
    await held.reached;
    await a.admin.reset();
    held.release();
    const res = await answer;
    // The fixture key keeps its id across the reset, so the commit's re-check of the key passes.
    expect(res.status).toBe(202);
    const { billing } = (await res.json()) as {
      billing: { totalCreditCost: number; balanceAfterCredits: number };
    };
    expect(billing.totalCreditCost).toBe(138);
    expect(billing.balanceAfterCredits).toBe(500 - 138);
    expect((await a.admin.ledger(f.userId)).map((e) => [e.kind, e.credits])).toEqual([
      ["grant", 500],
      ["debit", 138],
    ]);
    await expectBalanceIsLedger(a, f.userId);
  });

  it("S17: a reset waits for the requests in flight and they for it: no store call runs beside it, none of 200 requests is refused, and the debits after it are the journal's", async () => {
    const f = fixtures(1_000_000);
    const base = await makeStore();
    let resetting = false;
    const beside: string[] = [];
    // Every call of the store, watched: one made while the store resets is a request cut in two.
    const store = new Proxy(base, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function") {
          return value;
        }
        const method = value as (...args: unknown[]) => Promise<unknown>;
        if (prop === "reset") {
          return async (...args: unknown[]) => {
            resetting = true;
            try {
              return await method.apply(target, args);
            } finally {
              resetting = false;
            }
          };
        }
        return (...args: unknown[]) => {
          if (resetting) {
            beside.push(String(prop));
          }
          return method.apply(target, args);
        };
      },
    });
    const server = createReferenceServer({ store, fixtures: f.fixtures, adminToken: TOKEN });
    await server.ready();
    const before = Array.from({ length: 100 }, () => generateOn(server, f.key));
    const reset = server.admin.reset();
    const after = Array.from({ length: 100 }, () => generateOn(server, f.key));
    await reset;
    const answers = await Promise.all([...before, ...after]);
    expect(beside).toEqual([]);
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(202));
    // The journal holds the requests of the state after the reset (those sent after it, at least),
    // and the ledger their debits, one each.
    const journal = await server.admin.requests({ limit: 1000 });
    const ids = new Set(journal.map((entry) => entry.requestId));
    for (const res of answers.slice(100)) {
      expect(ids.has(res.headers.get("request-id") ?? "")).toBe(true);
    }
    const debits = (await server.admin.ledger(f.userId)).filter((e) => e.kind === "debit");
    expect(debits).toHaveLength(journal.length);
    expect(journal.every((entry) => entry.status === 202)).toBe(true);
    await expectBalanceIsLedger(server, f.userId);
  });

  it("S17: a request held by a delay fault across a reset: the reset lets its answer go, and it stays out of the journal and the ledger of the state after", async () => {
    const f = fixtures();
    const base = await makeStore();
    const committed = latch();
    const store = wrapStore(base, {
      commitTask: async (input, now) => {
        const result = await base.commitTask(input, now);
        committed.open();
        return result;
      },
    });
    const server = createReferenceServer({ store, fixtures: f.fixtures, adminToken: TOKEN });
    // Held for the longest delay there is: the test would time out if the reset waited for it.
    await server.admin.addFault({
      kind: "delay",
      path: "/api/generations",
      delayMs: FAULT_LIMITS.maxDelayMs,
    });
    const answer = generateOn(server, f.key);
    await committed.promise;
    await server.admin.reset();
    const res = await answer;
    expect(res.status).toBe(202);
    expect(await server.admin.requests()).toEqual([]);
    expect(await server.admin.faults()).toEqual([]);
    expect(await stateOf(server, f.userId)).toEqual({
      user: { userId: f.userId, balance: 500, multiplier: "1.15" },
      ledger: [{ kind: "grant", credits: 500, at: expect.any(String) }],
    });
    // The next test's traffic is all the journal holds.
    const ping = await server.fetch(
      new Request(`${BASE}/api/ping`, { headers: { authorization: `Bearer ${f.key}` } }),
    );
    expect((await server.admin.requests()).map((entry) => entry.requestId)).toEqual([
      ping.headers.get("request-id"),
    ]);
    await expectBalanceIsLedger(server, f.userId);
  });
});
