/**
 * Two instances of the reference server, each its own process serving HTTP with `serve()`, on one
 * database and one schema: what a client sees over HTTP when its requests are spread over both
 * (S4, S5, S6, S14), and the ledger in SQL afterwards (S13).
 */
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { createReferenceServer, type ReferenceServer } from "../../src/server/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type Instance, postJson, startInstance } from "../support/instances.js";
import {
  type PostgresTestDatabase,
  reconcileQuery,
  storeLayout,
  withPostgres,
} from "../support/postgres.js";

let db: PostgresTestDatabase;
let store: PostgresStore;
/** The operator's server in this process: creates users and keys and reads ledgers, on the same schema. */
let operator: ReferenceServer;
let instances: Instance[] = [];

beforeAllOrFail(async () => {
  db = await withPostgres();
  // Migrated here first; the instances find the schema up to date.
  store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
    ...storeLayout(),
  });
  operator = createReferenceServer({ store });
  instances = await Promise.all(
    [0, 1].map(() =>
      startInstance({
        connectionString: db.connectionString,
        schema: db.schema,
        connectTimeoutMs: 60_000,
      }),
    ),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(instances.map((i) => i.kill()));
  await store?.close();
  await db?.drop();
}, 60_000);

async function account(credits: number) {
  const { userId } = await operator.admin.createUser({ credits });
  const { key } = await operator.admin.createApiKey(userId);
  return { userId, key };
}

type Answer = { status: number; text: string; replayed: string | null };

/** One POST /api/generations to an instance over loopback HTTP, on a connection of its own. */
async function generate(instance: Instance, key: string, body: unknown): Promise<Answer> {
  const res = await postJson(
    `${instance.url}/api/generations`,
    { authorization: `Bearer ${key}` },
    body,
  );
  const replayed = res.headers["idempotent-replayed"];
  return {
    status: res.status,
    text: res.text,
    replayed: typeof replayed === "string" ? replayed : null,
  };
}

const on = (i: number) => instances[i % 2] as Instance;

describe("two serve() processes on one database", () => {
  it("S5 S14: 1,000 concurrent requests with one idempotency key, spread over both instances, are charged once and answered with one body", {
    timeout: 180_000,
  }, async () => {
    const { userId, key } = await account(10_000);
    const body = {
      prompt: "a lighthouse at dusk",
      modelId: "beta",
      imageCount: 2,
      idempotencyKey: "one-key-for-all",
    };
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) => generate(on(i), key, body)),
    );

    const statuses = new Map<number, number>();
    for (const a of answers) {
      statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 202: 1000 });
    const bodies = new Set(answers.map((a) => a.text));
    expect(bodies.size).toBe(1);
    // Exactly one answer is the first acceptance; every other one says it is a replay.
    expect(answers.filter((a) => a.replayed === null).length).toBe(1);
    expect(answers.filter((a) => a.replayed === "true").length).toBe(999);

    const batch = (
      JSON.parse(answers[0]?.text ?? "{}") as { batch: { taskId: string; totalCreditCost: number } }
    ).batch;
    const ledger = await operator.admin.ledger(userId);
    expect(ledger.filter((e) => e.kind === "debit")).toEqual([
      {
        kind: "debit",
        credits: batch.totalCreditCost,
        at: expect.any(String),
        taskId: batch.taskId,
      },
    ]);
    expect(await operator.admin.balance(userId)).toBe(10_000 - batch.totalCreditCost);
    const { rows } = await db.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${db.schema}".tasks WHERE user_id = $1`,
      [userId],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });

  it("S4 S14: a balance for 137, one request on each instance and then 1,000 concurrent distinct ones over both: exactly 137 accepted; the rest are 402", {
    timeout: 180_000,
  }, async () => {
    const n = 137;
    const probe = await account(1000);
    const price = (
      JSON.parse((await generate(on(0), probe.key, { prompt: "x", modelId: "beta" })).text) as {
        batch: { totalCreditCost: number };
      }
    ).batch.totalCreditCost;
    const { userId, key } = await account(n * price);

    // One request to each instance first, one after the other: both debit the shared balance,
    // whatever the scheduler does with the burst that follows.
    const first: Answer[] = [];
    for (const side of [0, 1]) {
      const a = await generate(on(side), key, {
        prompt: "x",
        modelId: "beta",
        idempotencyKey: `first-${side}`,
      });
      expect(a.status, a.text).toBe(202);
      first.push(a);
    }
    const answers = await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        generate(on(i), key, { prompt: "x", modelId: "beta", idempotencyKey: `distinct-${i}` }),
      ),
    );
    // Which instance wins each debit of the burst is up to the scheduler: only totals are asserted.
    const accepted = [...first, ...answers.filter((a) => a.status === 202)];
    expect(accepted.length).toBe(n);
    for (const a of answers.filter((x) => x.status !== 202)) {
      expect(a.status).toBe(402);
      expect(JSON.parse(a.text)).toMatchObject({ error: { code: "insufficient_credits" } });
    }
    // Every acceptance saw its own balance: the debits were serialized, none lost.
    const after = accepted.map(
      (a) =>
        (JSON.parse(a.text) as { batch: { balanceAfterCredits: number } }).batch
          .balanceAfterCredits,
    );
    expect(new Set(after).size).toBe(n);
    expect(Math.min(...after)).toBe(0);
    expect(await operator.admin.balance(userId)).toBe(0);
    expect((await operator.admin.ledger(userId)).filter((e) => e.kind === "debit").length).toBe(n);
  });

  it("S6 S14: every job failed on both instances at once, four times on each, is refunded exactly once", {
    timeout: 180_000,
  }, async () => {
    const { userId, key } = await account(100_000);
    const tasks: { taskId: string; totalCreditCost: number; jobs: string[] }[] = [];
    for (let i = 0; i < 12; i++) {
      const a = await generate(on(i), key, {
        prompt: "a fox",
        modelId: "beta",
        imageCount: 1 + (i % 3),
      });
      expect(a.status).toBe(202);
      const { batch } = JSON.parse(a.text) as {
        batch: { taskId: string; totalCreditCost: number; results: { job: { id: string } }[] };
      };
      tasks.push({
        taskId: batch.taskId,
        totalCreditCost: batch.totalCreditCost,
        jobs: batch.results.map((r) => r.job.id),
      });
    }
    const before = await operator.admin.balance(userId);
    const jobs = tasks.flatMap((t) => t.jobs);
    const calls = jobs.flatMap((jobId) => Array.from({ length: 8 }, (_, k) => ({ jobId, k })));
    const refunds = await Promise.all(calls.map(({ jobId, k }) => on(k).admin("failJob", jobId)));

    const perJob = new Map<string, number[]>();
    for (const [i, r] of refunds.entries()) {
      const jobId = calls[i]?.jobId as string;
      perJob.set(jobId, [...(perJob.get(jobId) ?? []), r.refundedCredits]);
    }
    for (const jobId of jobs) {
      const nonZero = (perJob.get(jobId) ?? []).filter((c) => c !== 0);
      expect(nonZero).toEqual([(await operator.admin.job(jobId)).credits]);
      expect((await operator.admin.job(jobId)).status).toBe("failed");
    }
    const total = tasks.reduce((sum, t) => sum + t.totalCreditCost, 0);
    expect(refunds.reduce((sum, r) => sum + r.refundedCredits, 0)).toBe(total);
    expect(await operator.admin.balance(userId)).toBe(before + total);
    const refundEntries = (await operator.admin.ledger(userId)).filter((e) => e.kind === "refund");
    expect(refundEntries.map((e) => e.jobId).sort()).toEqual([...jobs].sort());
  });

  it("S13 S14: after all of it, balance = grants - debits + refunds for every user, by the query of docs/postgres.md", async () => {
    const { rows } = await db.sql(reconcileQuery(db.schema));
    expect(rows).toEqual([]);
    const { rows: users } = await db.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${db.schema}".users`,
    );
    expect(users[0]?.n).toBeGreaterThanOrEqual(4);
  });
});
