/**
 * A crash under load: two instances (processes running `serve()`) on one schema take a load of
 * keyed requests; one is killed with SIGKILL in the middle of it and started again. Every request
 * whose answer was lost is retried with its key; then every user's ledger is matched entry by
 * entry with what the clients were told, and the books balance in SQL (S5, S13, S14).
 *
 * The kill comes while some of the killed instance's commits are inside the database (held on a
 * user's row lock that the test takes): they commit after the process is gone, so their answers
 * are lost although they were accepted, the one window no store can close. Their retries must be
 * replays.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { createReferenceServer, type ReferenceServer } from "../../src/server/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type Instance, postJson, startInstance } from "../support/instances.js";
import {
  lockWaitersQuery,
  type PostgresTestDatabase,
  reconcileQuery,
  storeLayout,
  withPostgres,
} from "../support/postgres.js";

let db: PostgresTestDatabase;
let store: PostgresStore;
let operator: ReferenceServer;
const running: Instance[] = [];

beforeAllOrFail(async () => {
  db = await withPostgres();
  store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
    ...storeLayout(),
  });
  operator = createReferenceServer({ store });
}, 180_000);

afterAll(async () => {
  await Promise.all(running.map((i) => i.kill()));
  await store?.close();
  await db?.drop();
}, 60_000);

const start = async () => {
  const instance = await startInstance({
    connectionString: db.connectionString,
    schema: db.schema,
    connectTimeoutMs: 60_000,
  });
  running.push(instance);
  return instance;
};

type Told = { taskId: string; totalCreditCost: number; balanceAfterCredits: number };
type Request = {
  user: number;
  body: { prompt: string; modelId: string; imageCount: number; idempotencyKey: string };
};

const USERS = 4;
const REQUESTS = 400;
const CLIENTS = 16;
const GRANT = 1_000_000;
/** The kill comes after this many answers: the load is well under way on both instances. */
const KILL_AFTER = 100;

describe("an instance killed with SIGKILL in the middle of a load", () => {
  it("S5 S13 S14: every lost answer retried with its key is replayed or accepted once; every ledger matches what the clients were told, entry by entry", {
    timeout: 300_000,
  }, async () => {
    const users = await Promise.all(
      Array.from({ length: USERS }, async () => {
        const { userId } = await operator.admin.createUser({ credits: GRANT });
        const { key } = await operator.admin.createApiKey(userId);
        return { userId, key };
      }),
    );
    const requests: Request[] = Array.from({ length: REQUESTS }, (_, i) => ({
      user: i % USERS,
      body: {
        prompt: `crash load ${i}`,
        modelId: i % 3 === 0 ? "beta2" : "beta",
        imageCount: 1 + (i % 3),
        idempotencyKey: `crash-${i}`,
      },
    }));
    /** Requests alternate between the instances in runs of 4, so that every user is served by both. */
    const instanceFor = (i: number) => ((i >> 2) % 2 === 0 ? a : b);
    const send = (instance: Instance, r: Request) =>
      postJson(
        `${instance.url}/api/generations`,
        { authorization: `Bearer ${users[r.user]?.key}` },
        r.body,
      );

    let a = await start();
    const b = await start();

    /**
     * Holds user 0's row, waits until some of A's commits queue on it, kills A with SIGKILL, then
     * lets them through: they commit with nobody to answer.
     *
     * @param onLocked - Called once the row is held: the clients, paused until then, go on.
     * @returns How many of A's commits were inside the database when it died.
     */
    const crashWithCommitsInFlight = async (onLocked: () => void) => {
      const holder = new pg.Client({ connectionString: db.connectionString });
      await holder.connect();
      try {
        await holder.query("BEGIN");
        await holder.query(`SELECT 1 FROM "${db.schema}".users WHERE id = $1 FOR UPDATE`, [
          users[0]?.userId,
        ]);
        onLocked();
        let waiting = 0;
        // Watched from a session outside any transaction: inside one, pg_stat_activity is the
        // snapshot of its first read, and commits that queue later are never seen.
        const watcher = new pg.Client({ connectionString: db.connectionString });
        await watcher.connect();
        // Bounded (about 60 s), generous: with the row held, user 0's requests pile up on it at once.
        for (let tries = 0; tries < 3000 && waiting < 2; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          const { rows } = await watcher.query<{ n: number }>(lockWaitersQuery(), [
            `imagegen-pricing-instance-${a.pid}`,
          ]);
          waiting = rows[0]?.n ?? 0;
        }
        await watcher.end();
        await a.kill("SIGKILL");
        await holder.query("COMMIT");
        return waiting;
      } finally {
        await holder.end();
      }
    };

    // The load: 16 clients, each sending one request after another, to A or B.
    const told = new Map<number, Told>();
    const lost: number[] = [];
    let next = 0;
    let answered = 0;
    let killing: Promise<number> | undefined;
    // The clients wait while the row is being taken: however slow that is, most of the load is
    // still to come once it is held, so A's requests for user 0 queue on it whatever the timing.
    let locked: Promise<void> | undefined;
    const client = async () => {
      while (next < REQUESTS) {
        const i = next++;
        const target = instanceFor(i);
        try {
          const res = await send(target, requests[i] as Request);
          expect(res.status, res.text).toBe(202);
          told.set(i, (JSON.parse(res.text) as { batch: Told }).batch);
        } catch (error) {
          if ((error as { code?: string }).code === undefined) {
            throw error; // an assertion, not a lost answer
          }
          expect(target).toBe(a);
          lost.push(i);
        }
        if (++answered === KILL_AFTER) {
          let release = () => {};
          locked = new Promise<void>((resolve) => {
            release = resolve;
          });
          killing = crashWithCommitsInFlight(release).finally(release);
        }
        if (locked) {
          await locked;
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const inFlight = (await killing) ?? 0;
    expect(a.process.signalCode).toBe("SIGKILL");
    expect(inFlight).toBeGreaterThanOrEqual(2);
    // Requests to A were in flight or sent after the kill; B took its half throughout.
    expect(lost.length).toBeGreaterThan(0);
    expect(told.size + lost.length).toBe(REQUESTS);

    // A starts again on the same schema; each lost request is retried with its key, on A or B.
    a = await start();
    let replayed = 0;
    for (const [n, i] of lost.entries()) {
      const res = await send(n % 2 === 0 ? a : b, requests[i] as Request);
      expect(res.status, res.text).toBe(202);
      if (res.headers["idempotent-replayed"] === "true") {
        replayed++;
      }
      told.set(i, (JSON.parse(res.text) as { batch: Told }).batch);
    }
    expect(told.size).toBe(REQUESTS);
    // The commits that were in the database when A died were accepted: their retries are replays.
    expect(replayed).toBeGreaterThanOrEqual(inFlight);
    expect(replayed).toBeLessThan(lost.length);

    // A second retry of everything is a replay of what the client was told: nothing is charged again.
    for (const [i, r] of requests.entries()) {
      if (i % 10 !== 0) {
        continue;
      }
      const res = await send(i % 20 === 0 ? a : b, r);
      expect(res.status).toBe(202);
      expect(res.headers["idempotent-replayed"]).toBe("true");
      expect((JSON.parse(res.text) as { batch: Told }).batch).toEqual(told.get(i));
    }

    // Entry by entry: each user's ledger is its grant, then exactly one debit per request, of the
    // charge the client was told, leaving the balance the client was told.
    for (const [u, { userId }] of users.entries()) {
      const mine = new Map(
        [...told].filter(([i]) => requests[i]?.user === u).map(([, t]) => [t.taskId, t]),
      );
      const ledger = await operator.admin.ledger(userId);
      expect(ledger[0]).toMatchObject({ kind: "grant", credits: GRANT });
      let balance = 0;
      const seen = new Set<string>();
      for (const entry of ledger) {
        if (entry.kind === "grant") {
          balance += entry.credits;
          continue;
        }
        expect(entry.kind).toBe("debit");
        const t = mine.get(entry.taskId ?? "");
        expect(t, `a debit for a task no client was told of: ${entry.taskId}`).toBeDefined();
        expect(seen.has(entry.taskId ?? "")).toBe(false);
        seen.add(entry.taskId ?? "");
        balance -= entry.credits;
        expect(entry.credits).toBe(t?.totalCreditCost);
        expect(balance).toBe(t?.balanceAfterCredits);
      }
      expect(seen.size).toBe(mine.size);
      expect(await operator.admin.balance(userId)).toBe(balance);
    }
    const { rows } = await db.sql(reconcileQuery(db.schema));
    expect(rows).toEqual([]);
  });
});
