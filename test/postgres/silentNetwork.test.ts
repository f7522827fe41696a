/**
 * A network that goes silent between the server and its database (no FIN, no RST: a partition, a
 * firewall that dropped its state), through a TCP forwarder that can black-hole traffic
 * (test/support/silentProxy.ts): requests in flight and new ones answer 503 with `Retry-After`
 * within a bound, and once new connections pass again the same server serves, charging every
 * idempotency key at most once (S14).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serve, sha256Hex } from "../../src/node/index.js";
import { createPostgresStore, type PostgresStore, StoreUnavailableError } from "../../src/postgres/index.js";
import { createReferenceServer, type LogEntry, type ReferenceServer } from "../../src/server/index.js";
import { type HttpAnswer, postJson } from "../support/instances.js";
import { type PostgresTestDatabase, reconcileQuery, withPostgres } from "../support/postgres.js";
import { type SilentProxy, startSilentProxy, throughProxy } from "../support/silentProxy.js";
import { sampleDraft, T0 } from "../support/storeContract.js";

/**
 * Small bounds, so the test is quick; every wait below is allowed 30 s, ten times and more.
 * The statement timeout is long on purpose: a commit released during the silence then commits for
 * sure, so its lost answer is the case the test shows (a statement timeout is shown on its own below).
 */
const BOUNDS = { connectionTimeoutMillis: 2000, queryTimeoutMillis: 2000, statementTimeoutMillis: 60_000 } as const;
const GENEROUS_MS = 30_000;

let db: PostgresTestDatabase;
let proxy: SilentProxy;
let store: PostgresStore;
let server: ReferenceServer;
let running: RunningServer;
const logs: LogEntry[] = [];

beforeAll(async () => {
  db = await withPostgres();
  const target = new URL(db.connectionString);
  proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) });
  store = await createPostgresStore({ connectionString: throughProxy(db.connectionString, proxy), schema: db.schema, ...BOUNDS });
  server = createReferenceServer({ store, hashApiKey: sha256Hex, log: (entry) => logs.push(entry) });
  running = await serve({ port: 0, host: "127.0.0.1", server, handleSignals: false });
}, 180_000);

afterAll(async () => {
  await running?.close();
  // The proxy first: its close ends the connections still waiting on the silence.
  await proxy?.close();
  await store?.close().catch(() => {});
  await db?.drop();
}, 60_000);

/** Rejects when `promise` has not settled within the generous bound: a hang fails the test, it does not stall it. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${GENEROUS_MS} ms`)), GENEROUS_MS);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const generate = (key: string, body: unknown) =>
  within(postJson(`${running.url}/api/generations`, { authorization: `Bearer ${key}` }, body), "a generation");

function expectUnavailable(res: HttpAnswer) {
  expect(res.status, res.text).toBe(503);
  expect(res.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
  expect(JSON.parse(res.text)).toMatchObject({ error: { code: "service_unavailable" } });
}

/** A direct connection to the database (not through the proxy), for holding a row and watching. */
async function direct(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: db.connectionString });
  client.on("error", () => {});
  await client.connect();
  return client;
}

/** Waits (bounded) until one statement of this schema waits on a lock, as seen from `watcher`. */
async function waitForLockWait(watcher: pg.Client, statement: string): Promise<void> {
  for (let tries = 0; tries < 1500; tries++) {
    const { rows } = await watcher.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1",
      [`%"${db.schema}".${statement}%`],
    );
    if ((rows[0]?.n ?? 0) >= 1) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no ${statement} waited on a lock within 30 s`);
}

describe("the network to the database goes silent, then heals", () => {
  it("S14: requests in flight and new ones answer 503 with Retry-After within a bound; healed, the same server accepts every retry, each key charged once", {
    timeout: 300_000,
  }, async () => {
    const start = 10_000;
    const { userId } = await server.admin.createUser({ credits: start });
    const { key } = await server.admin.createApiKey(userId);
    const body = (idempotencyKey: string) => ({ prompt: "a harbour at night", modelId: "beta", imageCount: 2, idempotencyKey });

    // Served before the silence.
    const accepted = new Map<string, { taskId: string; totalCreditCost: number }>();
    for (const k of ["before-1", "before-2"]) {
      const res = await generate(key, body(k));
      expect(res.status, res.text).toBe(202);
      accepted.set(k, (JSON.parse(res.text) as { batch: { taskId: string; totalCreditCost: number } }).batch);
    }

    // A request in flight: held inside the database on the user's row, the network goes silent,
    // then the row is released. The database commits the task; its answer is lost in the silence.
    const holder = await direct();
    await holder.query("BEGIN");
    await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [userId]);
    const inFlight = generate(key, body("in-flight"));
    await waitForLockWait(holder, "commit_task");
    proxy.blackhole();
    await holder.query("COMMIT");
    expectUnavailable(await inFlight);

    // Still silent: new requests (one after another, and more at once than the pool holds) and a
    // read answer 503 too, each within the bound.
    const during = Array.from({ length: 15 }, (_, i) => `during-${i}`);
    for (const k of during.slice(0, 3)) expectUnavailable(await generate(key, body(k)));
    for (const res of await Promise.all(during.slice(3).map((k) => generate(key, body(k))))) expectUnavailable(res);
    const credits = await within(
      fetch(`${running.url}/api/query/credits`, { headers: { authorization: `Bearer ${key}` } }),
      "a credits query",
    );
    expect(credits.status).toBe(503);
    expect(credits.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(logs.length).toBeGreaterThanOrEqual(1 + during.length + 1);
    expect(new Set(logs.map((e) => e.message))).toEqual(new Set(["the store cannot be reached"]));
    expect(JSON.stringify(logs)).not.toContain(key.slice(8));

    // The network heals: new connections pass, the ones open during the silence stay dead. The
    // same server, no restart: the first retry is served within the bound...
    proxy.heal();
    const deadline = Date.now() + GENEROUS_MS;
    let first = await generate(key, body("in-flight"));
    for (let tries = 1; first.status === 503 && tries < 100 && Date.now() < deadline; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      first = await generate(key, body("in-flight"));
    }
    // ...and it is the task committed during the silence, replayed: charged once.
    expect(first.status, first.text).toBe(202);
    expect(first.headers["idempotent-replayed"]).toBe("true");
    accepted.set("in-flight", (JSON.parse(first.text) as { batch: { taskId: string; totalCreditCost: number } }).batch);
    // None of the requests sent during the silence reached the database: each is accepted now, once.
    for (const k of during) {
      const res = await generate(key, body(k));
      expect(res.status, res.text).toBe(202);
      expect(res.headers["idempotent-replayed"], k).toBeUndefined();
      accepted.set(k, (JSON.parse(res.text) as { batch: { taskId: string; totalCreditCost: number } }).batch);
      const again = await generate(key, body(k));
      expect(again.headers["idempotent-replayed"]).toBe("true");
    }
    await holder.end();

    // The ledger is exactly what the client was told: one debit per key, nothing charged twice.
    const debits = (await server.admin.ledger(userId)).filter((e) => e.kind === "debit");
    expect(debits.map((e) => e.taskId).sort()).toEqual([...accepted.values()].map((b) => b.taskId).sort());
    for (const d of debits) expect(d.credits).toBe([...accepted.values()].find((b) => b.taskId === d.taskId)?.totalCreditCost);
    const charged = [...accepted.values()].reduce((sum, b) => sum + b.totalCreditCost, 0);
    expect(await server.admin.balance(userId)).toBe(start - charged);
    expect((await db.sql(reconcileQuery(db.schema))).rows).toEqual([]);
  });

  it("S14: a transaction whose client gave up in the silence does not hold its locks: once healed, the same user is served again, and the half-done revocation never happened", {
    timeout: 300_000,
  }, async () => {
    const userId = `usr_revoke_${Date.now()}`;
    await store.createUser({ id: userId, credits: 100, multiplier: "1" }, T0);
    const apiKeyId = `apk_revoke_${Date.now()}`;
    await store.putApiKey({ id: apiKeyId, userId, mode: "test", hash: "ab".repeat(32), revoked: false });

    // The revocation locks the key's owner inside its transaction; the silence falls right after.
    const holder = await direct();
    await holder.query("BEGIN");
    await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [userId]);
    const revoking = within(
      store.revokeApiKey(apiKeyId).catch((error: unknown) => error),
      "revokeApiKey",
    );
    await waitForLockWait(holder, "users u WHERE u.id = (SELECT k.user_id");
    proxy.blackhole();
    await holder.query("COMMIT");
    const error = await revoking;
    expect(error).toBeInstanceOf(StoreUnavailableError);

    // Healed: the session left in its transaction is ended by the server, which frees the user's
    // row, so the user's next task is accepted within the bound.
    proxy.heal();
    const deadline = Date.now() + GENEROUS_MS;
    const draft = sampleDraft(userId, [10]);
    const commit = () =>
      within(
        store.commitTask({ task: draft, apiKeyId, claim: { key: draft.request.idempotencyKey ?? "" } }, T0),
        "commitTask",
      ).catch((e: unknown) => e);
    let result = await commit();
    for (let tries = 1; result instanceof StoreUnavailableError && tries < 100 && Date.now() < deadline; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      result = await commit();
    }
    // A try that gave up waiting may have committed after all: its retry then finds the claim.
    expect(result).toMatchObject(
      (result as { ok?: boolean }).ok
        ? { ok: true, task: { id: draft.id, balanceAfter: 90 } }
        : { ok: false, reason: "idempotency_key_taken", task: { id: draft.id, balanceAfter: 90 } },
    );
    expect(await store.getUser(userId)).toMatchObject({ balance: 90 });
    expect(await store.getApiKey(apiKeyId)).toMatchObject({ revoked: false });
    expect(await store.revokeApiKey(apiKeyId)).toBe(true);
    expect((await store.ledger(userId))?.map((e) => e.kind)).toEqual(["grant", "debit"]);
    await holder.end();
  });
});

describe("the database answers, but too slowly", () => {
  it("S14: a statement held past statementTimeoutMillis is cancelled by the server: StoreUnavailableError, nothing charged, served again once the lock is gone", {
    timeout: 120_000,
  }, async () => {
    const slow = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      statementTimeoutMillis: 200,
      queryTimeoutMillis: GENEROUS_MS,
    });
    try {
      const userId = `usr_slow_${Date.now()}`;
      await slow.createUser({ id: userId, credits: 100, multiplier: "1" }, T0);
      const apiKeyId = `apk_slow_${Date.now()}`;
      await slow.putApiKey({ id: apiKeyId, userId, mode: "test", hash: "cd".repeat(32), revoked: false });
      const draft = sampleDraft(userId, [30]);
      const input = { task: draft, apiKeyId, claim: { key: draft.request.idempotencyKey ?? "" } };

      const holder = await direct();
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [userId]);
      const error = await within(
        slow.commitTask(input, T0).catch((e: unknown) => e),
        "commitTask",
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as StoreUnavailableError).cause as { code?: string }).code).toBe("57014");
      await holder.query("COMMIT");
      await holder.end();

      expect(await slow.getUser(userId)).toMatchObject({ balance: 100 });
      expect(await slow.commitTask(input, T0)).toMatchObject({ ok: true, task: { balanceAfter: 70 } });
    } finally {
      await slow.close();
    }
  });
});

describe("the timeout options", () => {
  it("refuses a timeout that is not whole milliseconds, naming the option and the range", async () => {
    for (const name of ["connectionTimeoutMillis", "statementTimeoutMillis", "queryTimeoutMillis"] as const) {
      for (const value of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
        await expect(
          createPostgresStore({ connectionString: db.connectionString, schema: db.schema, [name]: value }),
          `${name}: ${value}`,
        ).rejects.toThrow(new RangeError(`${name} must be whole milliseconds from 1 to 2147483647; got ${value}`));
      }
    }
  });

  it("refuses the pool's own timeouts beside a pool of yours, and bounds a pool of yours by queryTimeoutMillis", async () => {
    const pool = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    try {
      for (const name of ["connectionTimeoutMillis", "statementTimeoutMillis"] as const) {
        await expect(createPostgresStore({ pool, schema: db.schema, [name]: 1000 })).rejects.toThrow(
          `createPostgresStore: ${name} applies to the store's own pool; with \`pool\`, set it on your pool`,
        );
      }
      const mine = await createPostgresStore({ pool, schema: db.schema, queryTimeoutMillis: 300 });
      const userId = `usr_pool_${Date.now()}`;
      await mine.createUser({ id: userId, credits: 5, multiplier: "1" }, T0);
      const holder = await direct();
      await holder.query("BEGIN");
      await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [userId]);
      const error = await within(
        mine.grant(userId, 1, T0).catch((e: unknown) => e),
        "grant",
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      await holder.query("ROLLBACK");
      await holder.end();
      // The connection it gave up is not handed out again: the pool serves the next call.
      expect((await mine.getUser(userId))?.id).toBe(userId);
      await mine.close();
    } finally {
      await pool.end();
    }
  });
});
