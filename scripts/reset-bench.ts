/**
 * How long a test-double reset takes (S17) with 10,000 tasks in the store, on the in-memory store
 * and on PostgreSQL: each round fills the store through the server (10,000 accepted generations
 * from the fixture users), then times `server.admin.reset()`: emptying the store and loading the
 * start-up fixtures again. Prints each round and the median per store.
 *
 *   npx tsx scripts/reset-bench.ts                  memory and a throwaway PostgreSQL cluster
 *   DATABASE_URL=postgres://... npx tsx scripts/reset-bench.ts   that database (a fresh schema, dropped after)
 *   RESET_BENCH_ONLY=memory npx tsx scripts/reset-bench.ts
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { createPostgresStore } from "../src/postgres/index.js";
import { createReferenceServer, type Fixtures } from "../src/server/index.js";
import { createMemoryStore } from "../src/store/memory.js";
import type { Store } from "../src/store/store.js";

const TASKS = 10_000;
const USERS = 10;
const CONCURRENCY = 16;
const ROUNDS = { memory: 5, postgres: 3 } as const;

const fixtures: Fixtures = {
  users: Array.from({ length: USERS }, (_, i) => ({
    id: `usr_bench_${i}`,
    credits: 1_000_000_000,
    apiKeys: [`ck_test_reset_bench_key_${String(i).padStart(4, "0")}`],
    assets: [`ast_bench_${i}`],
  })),
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

async function measure(kind: keyof typeof ROUNDS, store: Store): Promise<number[]> {
  const server = createReferenceServer({ store, fixtures });
  await server.ready();
  const generate = (i: number) =>
    server.fetch(
      new Request("http://bench/api/generations", {
        method: "POST",
        headers: {
          authorization: `Bearer ck_test_reset_bench_key_${String(i % USERS).padStart(4, "0")}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ prompt: "a fox", modelId: "beta2", resolution: "1K", idempotencyKey: `k${i}` }),
      }),
    );
  const times: number[] = [];
  for (let round = 1; round <= ROUNDS[kind]; round++) {
    let next = 0;
    const worker = async () => {
      while (next < TASKS) {
        const res = await generate(next++);
        if (res.status !== 202) throw new Error(`a generation answered ${res.status}: ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const start = performance.now();
    await server.admin.reset();
    const ms = performance.now() - start;
    times.push(ms);
    const balance = await server.admin.balance("usr_bench_0");
    if (balance !== 1_000_000_000) throw new Error(`after reset the fixture balance is ${balance}`);
    console.log(`${kind} round ${round}: reset with ${TASKS} tasks in ${ms.toFixed(1)} ms`);
  }
  return times;
}

const only = process.env.RESET_BENCH_ONLY;
const results: string[] = [];
if (only === undefined || only === "memory") {
  results.push(`memory: median ${median(await measure("memory", createMemoryStore())).toFixed(1)} ms`);
}
if (only === undefined || only === "postgres") {
  let url = process.env.DATABASE_URL;
  let destroy = async () => {};
  if (!url) {
    const { startPostgres } = await import("../test/support/postgresCluster.js");
    const cluster = await startPostgres({ durable: true });
    url = cluster.url;
    destroy = () => cluster.destroy();
  }
  const schema = `reset_bench_${randomBytes(6).toString("hex")}`;
  const store = await createPostgresStore({ connectionString: url, schema });
  try {
    results.push(`postgres: median ${median(await measure("postgres", store)).toFixed(1)} ms`);
  } finally {
    await store.close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
    await destroy();
  }
}
console.log(`reset with ${TASKS} tasks in the store (${USERS} fixture users): ${results.join("; ")}`);
