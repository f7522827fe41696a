/**
 * A network that goes silent between the server and its database (no FIN, no RST: a partition, a
 * firewall that dropped its state), through a TCP forwarder that can black-hole traffic
 * (test/support/silentProxy.ts): requests in flight and new ones answer 503 with `Retry-After`
 * within a bound, and once new connections pass again the same server serves, charging every
 * idempotency key at most once (S16).
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import { StoreUnavailableError } from "../../src/postgres/index.js";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import {
  createReferenceServer,
  type LogEntry,
  type ReferenceServer,
} from "../../src/server/index.js";
import { type HttpAnswer, postJson } from "../support/instances.js";
import { type PostgresTestDatabase, reconcileQuery, withPostgres } from "../support/postgres.js";
import { type SilentProxy, startSilentProxy, throughProxy } from "../support/silentProxy.js";
import { sampleDraft, T0 } from "../support/storeContract.js";

/**
 * Small bounds, so the test is quick. The statement timeout is long on purpose: a commit released
 * during the silence then commits for sure, so its lost answer is the case the test shows (a
 * statement timeout is shown on its own below).
 */
const BOUNDS = {
  connectionTimeoutMs: 2000,
  queryTimeoutMs: 2000,
  statementTimeoutMs: 60_000,
} as const;
/** How long one answer may take: an idle machine needs about one of the 2 s bounds above. */
const GENEROUS_MS = 60_000;
/**
 * How long the steps that need the database may keep answering 503 (the silence healing, a loaded
 * machine stretching a statement past the 2 s bounds) before the test fails: an idle machine needs
 * a few seconds.
 */
const SERVED_WITHIN_MS = 120_000;
/** How many times such a step is sent at most. */
const MAX_TRIES = 100;

let db: PostgresTestDatabase;
let proxy: SilentProxy;
let store: PostgresStore;
let server: ReferenceServer;
let running: RunningServer;
const logs: LogEntry[] = [];
/** The direct connections the tests open: ended before the schema is dropped, even after a failure. */
const directs = new Set<pg.Client>();

beforeAll(async () => {
  db = await withPostgres();
  const target = new URL(db.connectionString);
  proxy = await startSilentProxy({ host: target.hostname, port: Number(target.port || 5432) });
  store = await retrying(() =>
    createPostgresStore({
      connectionString: throughProxy(db.connectionString, proxy),
      schema: db.schema,
      ...BOUNDS,
    }),
  );
  server = createReferenceServer({ store, log: (entry) => logs.push(entry) });
  running = await serve({ port: 0, host: "127.0.0.1", server, handleSignals: false });
}, 180_000);

afterAll(async () => {
  // A test that failed while holding a row would leave DROP SCHEMA waiting on it.
  await Promise.all([...directs].map((client) => client.end().catch(() => {})));
  await running?.close();
  // The proxy first: its close ends the connections still waiting on the silence.
  await proxy?.close();
  await store?.close().catch(() => {});
  await db?.drop();
}, 180_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Rejects when `promise` has not settled within the generous bound: a hang fails the test, it does not stall it. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: no answer within ${GENEROUS_MS} ms`)),
      GENEROUS_MS,
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs `attempt` again while its answer says the database could not be reached, at most
 * {@link MAX_TRIES} times and for {@link SERVED_WITHIN_MS}: only for steps that are safe to repeat.
 *
 * @returns The last answer, and whether an earlier attempt was refused.
 */
async function untilServed<T>(
  attempt: () => Promise<T>,
  unavailable: (answer: T) => boolean,
): Promise<{ answer: T; retried: boolean }> {
  const deadline = Date.now() + SERVED_WITHIN_MS;
  let answer = await attempt();
  let retried = false;
  for (let tries = 1; unavailable(answer) && tries < MAX_TRIES && Date.now() < deadline; tries++) {
    await pause(100);
    retried = true;
    answer = await attempt();
  }
  return { answer, retried };
}

/**
 * A store call around the proof (setting up, reading the outcome), run again when it rejects with
 * StoreUnavailableError: a loaded machine can stretch any statement past the 2 s bounds.
 */
async function retrying<T>(call: () => Promise<T>): Promise<T> {
  const { answer } = await untilServed(
    () =>
      within(call(), "a store call").then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    (outcome) => "error" in outcome && outcome.error instanceof StoreUnavailableError,
  );
  if ("error" in answer) {
    throw answer.error;
  }
  return answer.value;
}

const generate = (key: string, body: unknown) =>
  within(
    postJson(`${running.url}/api/generations`, { authorization: `Bearer ${key}` }, body),
    "a generation",
  );

/** A generation while the database is reachable, sent again with the same idempotency key while it answers 503. */
const generateServed = (key: string, body: unknown) =>
  untilServed(
    () => generate(key, body),
    (res) => res.status === 503,
  );

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
  directs.add(client);
  return client;
}

async function release(client: pg.Client): Promise<void> {
  directs.delete(client);
  await client.end();
}

/** Opens a transaction on a direct connection that holds the user's row. */
async function holdUser(userId: string): Promise<{ holder: pg.Client; pid: number }> {
  const holder = await direct();
  const { rows } = await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
  await holder.query("BEGIN");
  await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [userId]);
  return { holder, pid: rows[0]?.pid ?? 0 };
}

/**
 * Sends `send` until one statement of this schema starting with `statement` waits on the lock of
 * the backend `holderPid`, and returns the last attempt's answer and whether it is still awaited.
 *
 * An attempt that answers unavailable before it gets there (a loaded machine ran a bound out on an
 * earlier statement) has written nothing, and is sent again, at most 10 times. `watcher` must be
 * outside a transaction: PostgreSQL shows a transaction the `pg_stat_activity` of its first read.
 */
async function untilWaiting<T>(
  watcher: pg.Client,
  holderPid: number,
  statement: string,
  send: () => Promise<T>,
  unavailable: (answer: T) => boolean,
): Promise<{ answer: Promise<T>; awaited: () => boolean }> {
  for (let tries = 0; tries < 10; tries++) {
    let awaited = true;
    const answer = send();
    answer.then(
      () => (awaited = false),
      () => (awaited = false),
    );
    const deadline = Date.now() + GENEROUS_MS;
    while (awaited && Date.now() < deadline) {
      const { rows } = await watcher.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND $2::int = ANY (pg_blocking_pids(pid)) AND query LIKE $1`,
        [`%"${db.schema}".${statement}%`, holderPid],
      );
      if ((rows[0]?.n ?? 0) >= 1) {
        return { answer, awaited: () => awaited };
      }
      await pause(20);
    }
    if (awaited) {
      throw new Error(`no ${statement} waited on a lock within ${GENEROUS_MS} ms`);
    }
    const early = await answer;
    if (!unavailable(early)) {
      throw new Error(`answered before waiting on the lock: ${String(early)}`);
    }
  }
  throw new Error(`no ${statement} waited on a lock in 10 attempts`);
}

describe("the network to the database goes silent, then heals", () => {
  it("S16: requests in flight and new ones answer 503 with Retry-After within a bound; healed, the same server accepts every retry, each key charged once", {
    timeout: 600_000,
  }, async () => {
    const start = 10_000;
    const { userId } = await retrying(() => server.admin.createUser({ credits: start }));
    const { key } = await retrying(() => server.admin.createApiKey(userId));
    const body = (idempotencyKey: string) => ({
      prompt: "a harbour at night",
      modelId: "beta",
      imageCount: 2,
      idempotencyKey,
    });
    type Batch = { taskId: string; totalCreditCost: number };
    const batchOf = (res: HttpAnswer) => (JSON.parse(res.text) as { batch: Batch }).batch;

    // Served before the silence.
    const accepted = new Map<string, Batch>();
    for (const k of ["before-1", "before-2"]) {
      const { answer: res } = await generateServed(key, body(k));
      expect(res.status, res.text).toBe(202);
      accepted.set(k, batchOf(res));
    }

    // A request in flight: held inside the database on the user's row, the network goes silent,
    // then the row is released. The database commits the task; its answer is lost in the silence.
    // A round whose request gave up before the silence fell (a loaded machine ran its 2 s bound out
    // while the test was still watching) proves nothing: its task commits once the row is released,
    // and a new round starts with a new key.
    const watcher = await direct();
    const early: string[] = [];
    let inFlight: Promise<HttpAnswer> | undefined;
    let inFlightKey = "";
    for (let round = 1; inFlight === undefined; round++) {
      if (round > 10) {
        throw new Error("in 10 rounds, the request in flight always gave up before the silence");
      }
      inFlightKey = `in-flight-${round}`;
      const k = inFlightKey;
      const { holder, pid } = await holdUser(userId);
      const attempt = await untilWaiting(
        watcher,
        pid,
        "accept_generation",
        () => generate(key, body(k)),
        (res) => res.status === 503,
      );
      if (attempt.awaited()) {
        proxy.blackhole();
        inFlight = attempt.answer;
      }
      await holder.query("COMMIT");
      await release(holder);
      if (inFlight === undefined) {
        expectUnavailable(await attempt.answer);
        early.push(k);
      }
    }
    await release(watcher);
    expectUnavailable(await inFlight);

    // Still silent: new requests (one after another, and more at once than the pool holds) and a
    // read answer 503 too, each within the bound.
    const during = Array.from({ length: 15 }, (_, i) => `during-${i}`);
    for (const k of during.slice(0, 3)) {
      expectUnavailable(await generate(key, body(k)));
    }
    for (const res of await Promise.all(during.slice(3).map((k) => generate(key, body(k))))) {
      expectUnavailable(res);
    }
    const credits = await within(
      fetch(`${running.url}/api/query/credits`, { headers: { authorization: `Bearer ${key}` } }),
      "a credits query",
    );
    expect(credits.status).toBe(503);
    expect(credits.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    expect(logs.length).toBeGreaterThanOrEqual(1 + during.length + 1);
    expect(new Set(logs.map((e) => e.message))).toEqual(new Set(["the store cannot be reached"]));
    expect(JSON.stringify(logs)).not.toContain(key.slice(8));
    // None of the requests sent during the silence reached the database.
    const claimed = await db.sql<{ key: string }>(
      `SELECT key FROM "${db.schema}".idempotency WHERE user_id = $1`,
      [userId],
    );
    expect(claimed.rows.map((row) => row.key).filter((k) => k.startsWith("during-"))).toEqual([]);

    // The network heals: new connections pass, the ones open during the silence stay dead. The
    // same server, no restart: the retry is served within the bound...
    proxy.heal();
    const { answer: first } = await generateServed(key, body(inFlightKey));
    // ...and it is the task committed during the silence, replayed: charged once.
    expect(first.status, first.text).toBe(202);
    expect(first.headers["idempotent-replayed"]).toBe("true");
    accepted.set(inFlightKey, batchOf(first));
    for (const k of early) {
      const { answer: res } = await generateServed(key, body(k));
      expect(res.status, res.text).toBe(202);
      expect(res.headers["idempotent-replayed"], k).toBe("true");
      accepted.set(k, batchOf(res));
    }
    // Each request sent during the silence is accepted now, once. A retry after a 503 here may
    // find its own earlier try committed (its answer was late): then it is a replay.
    for (const k of during) {
      const { answer: res, retried } = await generateServed(key, body(k));
      expect(res.status, res.text).toBe(202);
      if (!retried) {
        expect(res.headers["idempotent-replayed"], k).toBeUndefined();
      }
      accepted.set(k, batchOf(res));
      const { answer: again } = await generateServed(key, body(k));
      expect(again.status, again.text).toBe(202);
      expect(again.headers["idempotent-replayed"]).toBe("true");
      expect(batchOf(again).taskId).toBe(batchOf(res).taskId);
    }

    // The ledger is exactly what the client was told: one debit per key, nothing charged twice.
    const debits = ((await retrying(() => server.admin.ledger(userId))) ?? []).filter(
      (e) => e.kind === "debit",
    );
    expect(debits.map((e) => e.taskId).sort()).toEqual(
      [...accepted.values()].map((b) => b.taskId).sort(),
    );
    for (const d of debits) {
      expect(d.credits).toBe(
        [...accepted.values()].find((b) => b.taskId === d.taskId)?.totalCreditCost,
      );
    }
    const charged = [...accepted.values()].reduce((sum, b) => sum + b.totalCreditCost, 0);
    expect(await retrying(() => server.admin.balance(userId))).toBe(start - charged);
    expect((await db.sql(reconcileQuery(db.schema))).rows).toEqual([]);
  });

  it("S16: a transaction whose client gave up in the silence does not hold its locks: once healed, the same user is served again, and the half-done revocation never happened", {
    timeout: 600_000,
  }, async () => {
    const userId = `usr_revoke_${Date.now()}`;
    await retrying(() => store.createUser({ id: userId, credits: 100, multiplier: "1" }, T0));
    const apiKeyId = `apk_revoke_${Date.now()}`;
    const hash = "ab".repeat(32);
    await retrying(() =>
      store.putApiKey({ id: apiKeyId, userId, mode: "test", hash, revoked: false }),
    );

    // The revocation locks the key's owner inside its transaction; the silence falls right after.
    // A round whose revocation gave up before the silence (a loaded machine) proves nothing: it is
    // rolled back once the row is released, and the next round tries again.
    const watcher = await direct();
    let revoking: Promise<unknown> | undefined;
    for (let round = 1; revoking === undefined; round++) {
      if (round > 10) {
        throw new Error("in 10 rounds, the revocation always gave up before the silence");
      }
      const { holder, pid } = await holdUser(userId);
      const attempt = await untilWaiting(
        watcher,
        pid,
        "users u WHERE u.id = $1 FOR NO KEY UPDATE",
        () =>
          within(
            store.revokeApiKey(apiKeyId).catch((error: unknown) => error),
            "revokeApiKey",
          ),
        (error) => error instanceof StoreUnavailableError,
      );
      if (attempt.awaited()) {
        proxy.blackhole();
        revoking = attempt.answer;
      }
      await holder.query("COMMIT");
      await release(holder);
      if (revoking === undefined) {
        expect(await attempt.answer).toBeInstanceOf(StoreUnavailableError);
      }
    }
    await release(watcher);
    expect(await revoking).toBeInstanceOf(StoreUnavailableError);

    // Healed: the session left in its transaction is ended by the server, which frees the user's
    // row, so the user's next task is accepted within the bound.
    proxy.heal();
    const draft = sampleDraft(userId, [10]);
    const { answer: result } = await untilServed(
      () =>
        within(
          store.commitTask(
            { task: draft, apiKeyId, claim: { key: draft.request.idempotencyKey ?? "" } },
            T0,
          ),
          "commitTask",
        ).catch((e: unknown) => e),
      (answer) => answer instanceof StoreUnavailableError,
    );
    // A try that gave up waiting may have committed after all: its retry then finds the claim.
    expect(result).toMatchObject(
      (result as { ok?: boolean }).ok
        ? { ok: true, task: { id: draft.id, balanceAfter: 90 } }
        : { ok: false, reason: "idempotency_key_taken", task: { id: draft.id, balanceAfter: 90 } },
    );
    expect(await retrying(() => store.getUser(userId))).toMatchObject({ balance: 90 });
    expect((await retrying(async () => store.findCaller(hash)))?.key).toMatchObject({
      id: apiKeyId,
      revoked: false,
    });
    // Setting `revoked` again counts the row too: a retry after a lost answer still says true.
    expect(await retrying(() => store.revokeApiKey(apiKeyId))).toBe(true);
    expect((await retrying(() => store.ledger(userId)))?.map((e) => e.kind)).toEqual([
      "grant",
      "debit",
    ]);
  });
});

describe("the database answers, but too slowly", () => {
  it("S16: a statement held past statementTimeoutMs is cancelled by the server: StoreUnavailableError, nothing charged, served again once the lock is gone", {
    timeout: 120_000,
  }, async () => {
    const slow = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      statementTimeoutMs: 200,
      queryTimeoutMs: GENEROUS_MS,
    });
    try {
      const userId = `usr_slow_${Date.now()}`;
      // Setting up and reading back are retried: a loaded machine can stretch them past 200 ms too.
      await retrying(() => slow.createUser({ id: userId, credits: 100, multiplier: "1" }, T0));
      const apiKeyId = `apk_slow_${Date.now()}`;
      await retrying(() =>
        slow.putApiKey({
          id: apiKeyId,
          userId,
          mode: "test",
          hash: "cd".repeat(32),
          revoked: false,
        }),
      );
      const draft = sampleDraft(userId, [30]);
      const input = { task: draft, apiKeyId, claim: { key: draft.request.idempotencyKey ?? "" } };

      const { holder } = await holdUser(userId);
      const error = await within(
        slow.commitTask(input, T0).catch((e: unknown) => e),
        "commitTask",
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as StoreUnavailableError).cause as { code?: string }).code).toBe("57014");
      await holder.query("COMMIT");
      await release(holder);

      // A statement cancelled by the server rolled back: trying again cannot charge twice.
      expect(await retrying(() => slow.getUser(userId))).toMatchObject({ balance: 100 });
      expect(await retrying(() => slow.commitTask(input, T0))).toMatchObject({
        ok: true,
        task: { balanceAfter: 70 },
      });
    } finally {
      await slow.close();
    }
  });
});

describe("the timeout options", () => {
  it("refuses a timeout that is not whole milliseconds, naming the option and the range", async () => {
    for (const name of ["connectionTimeoutMs", "statementTimeoutMs", "queryTimeoutMs"] as const) {
      for (const value of [0, -1, 1.5, Number.NaN, 2 ** 31]) {
        await expect(
          createPostgresStore({
            connectionString: db.connectionString,
            schema: db.schema,
            [name]: value,
          }),
          `${name}: ${value}`,
        ).rejects.toThrow(
          new RangeError(`${name} must be whole milliseconds from 1 to 2147483647; got ${value}`),
        );
      }
    }
  });

  it("refuses the pool's own timeouts beside a pool of yours, and bounds a pool of yours by queryTimeoutMs", async () => {
    const pool = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    try {
      for (const name of ["connectionTimeoutMs", "statementTimeoutMs"] as const) {
        await expect(
          createPostgresStore({ pool, schema: db.schema, [name]: 1000 }),
        ).rejects.toThrow(
          `createPostgresStore: ${name} applies to the store's own pool; with \`pool\`, set it on your pool`,
        );
      }
      // Long enough that a loaded machine answers an ordinary statement within it.
      const mine = await createPostgresStore({ pool, schema: db.schema, queryTimeoutMs: 3000 });
      const userId = `usr_pool_${Date.now()}`;
      await retrying(() => mine.createUser({ id: userId, credits: 5, multiplier: "1" }, T0));
      const { holder } = await holdUser(userId);
      const error = await within(
        mine.grant(userId, 1, T0).catch((e: unknown) => e),
        "grant",
      );
      expect(error).toBeInstanceOf(StoreUnavailableError);
      await holder.query("ROLLBACK");
      await release(holder);
      // The connection it gave up is not handed out again: the pool serves the next call.
      expect((await mine.getUser(userId))?.id).toBe(userId);
      await mine.close();
    } finally {
      await pool.end();
    }
  });
});
