/**
 * PostgreSQL on loopback: accepted generations per second and latency of the reference server on
 * the PostgreSQL store (`serve()` of `<package>/node`, one and two instances on one schema), for one
 * hot user and for 1,000 users, each beside the hand-written baseline of bench/baseline/postgres.ts
 * (a bare node:http handler with SQL of its own, in two round trips) on the same database, tables,
 * users and load. Statements per accepted generation are counted twice: in each server's driver
 * (every `pool.query`, one round trip each) and, when the database has `pg_stat_statements` (the
 * throwaway cluster loads it), by the database, top-level and inside functions, during the second
 * half of each warm-up (counting every nested statement costs the database time, so the measured
 * loads count top-level statements only, the extension's default). The servers and the database
 * report their CPU time. The servers run in child processes; autocannon runs in this one; every
 * load is bounded in time and in count, and every accepted answer is checked against the tasks
 * the database holds. With `fsync` on, the same accepts then run in this process without HTTP:
 * the store's calls against the baseline's (see {@link runDirect}).
 *
 * The database is `BENCH_DATABASE_URL` (a schema of its own, dropped afterwards; its settings as
 * they are) or a throwaway cluster from the machine's PostgreSQL binaries, run with `fsync` on, so
 * that a commit costs what it costs on this machine's disk, and then again with `fsync` off, where
 * what is left is the CPU of each accepted generation.
 *
 * Child mode: `bench/postgres.ts child <reference|baseline> <credits>` with `DATABASE_URL` and
 * `BENCH_SCHEMA`; it reports its port over IPC.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { median } from "./stats.js";

type Kind = "reference" | "baseline";
type Scenario = "one hot user" | "1,000 users";

/** The body every generation of the benchmark sends (with a fresh idempotency key each). */
const BODY = { prompt: "a watercolor fox in the snow", modelId: "beta2", imageCount: 1 };

/** What a server process reports when asked: its CPU time and the statements its pools sent. */
type Stats = { cpuUs: number; queries: number };

async function child(kind: Kind, credits: number): Promise<void> {
  const connectionString = process.env.DATABASE_URL ?? "";
  const schema = process.env.BENCH_SCHEMA ?? "";
  // Counts every statement sent through a pool (the store and the baseline both use pool.query),
  // so that the report can say how many round trips an accepted generation costs each server.
  let queries = 0;
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    queries++;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  process.on("message", (message: { stats?: boolean }) => {
    if (!message.stats) {
      return;
    }
    const cpu = process.cpuUsage();
    process.send?.({ stats: { cpuUs: cpu.user + cpu.system, queries } satisfies Stats });
  });
  if (kind === "baseline") {
    const { startBaseline } = await import("./baseline/postgres.js");
    const { port } = await startBaseline({ connectionString, schema, credits });
    process.send?.({ port });
    return;
  }
  const { serve } = await import("../src/node/index.js");
  const { createPostgresStore } = await import("../src/postgres/index.js");
  const { createReferenceServer } = await import("../src/server/index.js");
  const store = await createPostgresStore({ connectionString, schema });
  const server = createReferenceServer({ store });
  const running = await serve({ port: 0, server, handleSignals: false });
  process.send?.({ port: running.port });
}

/**
 * The CPU time (µs) of a cluster's processes: the postmaster, its children alive, and those it has
 * reaped (Linux's /proc; NaN elsewhere or for a database of `BENCH_DATABASE_URL`).
 */
function clusterCpuUs(postmasterPid: number | undefined): number {
  if (postmasterPid === undefined) {
    return Number.NaN;
  }
  const fields = (pid: string) => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
  };
  try {
    // utime, stime (and for the postmaster cutime, cstime) in clock ticks of 10 ms.
    const own = fields(String(postmasterPid));
    let ticks = (own[11] ?? 0) + (own[12] ?? 0) + (own[13] ?? 0) + (own[14] ?? 0);
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) {
        continue;
      }
      try {
        const f = fields(pid);
        if (f[1] === postmasterPid) {
          ticks += (f[11] ?? 0) + (f[12] ?? 0);
        }
      } catch {
        // the process ended meanwhile: the postmaster's reaped time has it
      }
    }
    return ticks * 10_000;
  } catch {
    return Number.NaN;
  }
}

/** One scenario's numbers: the reference server and the baseline, medians over rounds. */
export type PostgresResult = {
  scenario: Scenario;
  /** The database's `fsync` during these loads. */
  fsync: string;
  instances: 1 | 2;
  rps: number;
  p50: number;
  p99: number;
  baseRps: number;
  baseP50: number;
  baseP99: number;
  /** Median over rounds of the reference / baseline accepted generations per second of the same round. */
  ratio: number;
  /** Statements sent to the database per accepted generation (counted in the driver), reference and baseline. */
  queries: number;
  baseQueries: number;
  /** Top-level statements per accepted generation as `pg_stat_statements` counts them (NaN without it). */
  topStatements: number;
  baseTopStatements: number;
  /** Statements run inside functions per accepted generation, as `pg_stat_statements` counts them (NaN without it). */
  nestedStatements: number;
  baseNestedStatements: number;
  /** CPU time of the server processes per accepted generation (µs). */
  cpuUs: number;
  baseCpuUs: number;
  /** CPU time of the database's processes per accepted generation (µs; NaN when not measured). */
  dbCpuUs: number;
  baseDbCpuUs: number;
  rounds: number;
};

/**
 * One scenario in one process, without HTTP: the store's calls as the reference server makes them
 * (`commitTask`, after `findCaller` for a key not seen before) against the baseline's two statements
 * (`handWrittenAccept`), medians over rounds.
 */
export type DirectResult = {
  scenario: Scenario;
  rps: number;
  baseRps: number;
  /** Median over rounds of the store / hand-written accepted generations per second of the same round. */
  ratio: number;
  /** CPU time of this process per accepted generation (µs): the store's JavaScript and the driver's. */
  cpuUs: number;
  baseCpuUs: number;
  /** CPU time of the database's processes per accepted generation (µs; NaN when not measured). */
  dbCpuUs: number;
  baseDbCpuUs: number;
  rounds: number;
};

/** What the database was, for the report. */
export type PostgresSetup = {
  version: string;
  synchronousCommit: string;
  source: string;
  users: number;
  /** Whether the database counts statements (`pg_stat_statements`). */
  statementStats: boolean;
};

type Run = {
  rps: number;
  p50: number;
  p99: number;
  accepted: number;
  queries: number;
  cpuUs: number;
  dbCpuUs: number;
  top: number;
  nested: number;
};

/** Stops a child and waits for it. */
function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGINT");
  });
}

async function start(kind: Kind, credits: number, connectionString: string, schema: string) {
  const proc = fork(fileURLToPath(import.meta.url), ["child", kind, String(credits)], {
    execArgv: [
      "--import",
      fileURLToPath(new URL("./register.mjs", import.meta.url)),
      // BENCH_CPU_PROF=<dir>: a CPU profile of each server process, written when it stops.
      ...(process.env.BENCH_CPU_PROF
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${kind}`]
        : []),
    ],
    env: { ...process.env, DATABASE_URL: connectionString, BENCH_SCHEMA: schema },
  });
  const port = await new Promise<number>((resolve, reject) => {
    proc.once("message", (m) => resolve((m as { port: number }).port));
    proc.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  const stats = () =>
    new Promise<Stats>((resolve) => {
      const onMessage = (m: unknown) => {
        const reported = (m as { stats?: Stats }).stats;
        if (!reported) {
          return;
        }
        proc.off("message", onMessage);
        resolve(reported);
      };
      proc.on("message", onMessage);
      proc.send({ stats: true });
    });
  return { proc, port, stats };
}

/**
 * Runs the scenarios against the reference server and the baseline, `rounds` times, alternating
 * which goes first: with `fsync` on, then (on the throwaway cluster) with `fsync` off.
 *
 * @param opts.seconds - Measured seconds per load (after `warmup` seconds of the same load).
 * @param opts.connections - Client connections in all (split evenly over the instances).
 * @param opts.maxRequests - The most requests one load may send, whatever the time.
 * @param opts.users - How many users the many-user scenario spreads its requests over.
 * @param opts.rounds - Rounds with `fsync` on (medians are reported).
 * @param opts.roundsFsyncOff - Rounds with `fsync` off, on the throwaway cluster only (0: none).
 * @returns The results, and what the database was.
 */
export async function runPostgres(opts: {
  seconds: number;
  warmup: number;
  rounds: number;
  roundsFsyncOff: number;
  connections: number;
  maxRequests: number;
  users: number;
}): Promise<{ results: PostgresResult[]; direct: DirectResult[]; setup: PostgresSetup }> {
  // A benchmark stopped by a signal still removes its cluster: exiting runs the cluster's exit hook.
  const onSignal = (signal: NodeJS.Signals) => process.exit(signal === "SIGINT" ? 130 : 143);
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let connectionString = process.env.BENCH_DATABASE_URL;
  let source = "BENCH_DATABASE_URL";
  let destroy = async () => {};
  let postmasterPid: number | undefined;
  if (!connectionString) {
    const { startPostgres } = await import("../test/support/postgresCluster.js");
    // Durable: every commit is flushed to this machine's disk, as in production.
    const cluster = await startPostgres({
      durable: true,
      settings: ["shared_preload_libraries=pg_stat_statements"],
    });
    postmasterPid = Number(
      readFileSync(`${cluster.dataDir}/postmaster.pid`, "utf8").split("\n")[0],
    );
    connectionString = cluster.url;
    source = "a throwaway cluster on this machine (initdb, 127.0.0.1, otherwise default settings)";
    destroy = () => cluster.destroy();
  }
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const sql = new pg.Pool({ connectionString, max: 2 });
  const children: ChildProcess[] = [];
  try {
    const show = async (name: string) =>
      (await sql.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name] ?? "?";
    const statementStats = await sql
      .query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
      .then(
        () => sql.query("SELECT pg_stat_statements_reset()").then(() => true),
        () => false,
      );
    /** A setting of the whole throwaway cluster, taken by each session after its next statement. */
    const configure = async (name: string, value: string) => {
      if (postmasterPid === undefined) {
        return;
      }
      await sql.query(`ALTER SYSTEM SET ${name} = '${value}'`);
      await sql.query("SELECT pg_reload_conf()");
    };
    const setup: PostgresSetup = {
      version: await show("server_version"),
      synchronousCommit: await show("synchronous_commit"),
      source,
      users: opts.users,
      statementStats,
    };

    const { hot, many, credits } = await accounts(connectionString, schema, opts.users);

    const servers: Record<Kind, { port: number; stats: () => Promise<Stats> }[]> = {
      reference: [],
      baseline: [],
    };
    for (const kind of ["reference", "baseline"] as const) {
      for (let i = 0; i < 2; i++) {
        const { proc, port, stats } = await start(kind, credits, connectionString, schema);
        children.push(proc);
        servers[kind].push({ port, stats });
      }
    }
    const statsOf = async (targets: { stats: () => Promise<Stats> }[]) => {
      const all = await Promise.all(targets.map((t) => t.stats()));
      return {
        cpuUs: all.reduce((sum, x) => sum + x.cpuUs, 0),
        queries: all.reduce((sum, x) => sum + x.queries, 0),
      };
    };

    const taskCount = async () =>
      Number(
        (await sql.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".tasks`)).rows[0]
          ?.n ?? 0,
      );
    /** The task count once the requests still in flight at the end of a load have committed. */
    const settledCount = async () => {
      let last = await taskCount();
      for (let tries = 0; tries < 50; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const now = await taskCount();
        if (now === last) {
          return now;
        }
        last = now;
      }
      return last;
    };
    /**
     * A checkpoint before each load (and its warm-up), so that both servers start with the same
     * WAL state: after a checkpoint every page's first change writes the whole page to the WAL,
     * which would otherwise slow whichever load a checkpoint happened to fall before.
     */
    let checkpoints = true;
    const checkpoint = async () => {
      if (!checkpoints) {
        return;
      }
      try {
        await sql.query("CHECKPOINT");
      } catch (error) {
        checkpoints = false;
        console.warn(`postgres: no CHECKPOINT between loads (${(error as Error).message})`);
      }
    };
    let tag = 0;
    const load = async (
      targets: { port: number; stats: () => Promise<Stats> }[],
      keys: string[],
      seconds: number,
    ): Promise<Run> => {
      const run = `${++tag}-${randomBytes(4).toString("hex")}`;
      let n = 0;
      const before = await settledCount();
      if (statementStats) {
        await sql.query("SELECT pg_stat_statements_reset()");
      }
      const statsBefore = await statsOf(targets);
      const dbBefore = clusterCpuUs(postmasterPid);
      const results = await Promise.all(
        targets.map(({ port }) =>
          autocannon({
            url: `http://127.0.0.1:${port}/api/generations`,
            method: "POST",
            connections: Math.max(1, Math.round(opts.connections / targets.length)),
            duration: seconds,
            maxOverallRequests: Math.ceil(opts.maxRequests / targets.length),
            requests: [
              {
                setupRequest: (request) => {
                  const i = n++;
                  return {
                    ...request,
                    headers: {
                      authorization: `Bearer ${keys[i % keys.length]}`,
                      "content-type": "application/json",
                    },
                    body: JSON.stringify({ ...BODY, idempotencyKey: `bench-${run}-${i}` }),
                  };
                },
              },
            ],
          }),
        ),
      );
      // A request still in flight when the load ends may commit without its answer being counted.
      const accepted = (await settledCount()) - before;
      const statsAfter = await statsOf(targets);
      const dbCpuUs = (clusterCpuUs(postmasterPid) - dbBefore) / accepted;
      // The benchmark's own statements (counting tasks, resetting the counts) are left out.
      const counted = statementStats
        ? (
            await sql.query<{ toplevel: boolean; calls: string }>(
              `SELECT toplevel, sum(calls) AS calls FROM pg_stat_statements
               WHERE query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%count(*) AS n%' GROUP BY toplevel`,
            )
          ).rows
        : [];
      const callsOf = (toplevel: boolean) =>
        statementStats
          ? Number(counted.find((row) => row.toplevel === toplevel)?.calls ?? 0) / accepted
          : Number.NaN;
      const answered = results.reduce((sum, r) => sum + r["2xx"], 0);
      for (const r of results) {
        if (r.non2xx > 0 || r.errors > 0 || r.timeouts > 0) {
          throw new Error(
            `PostgreSQL load: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`,
          );
        }
      }
      if (accepted < answered || accepted > answered + opts.connections) {
        throw new Error(`PostgreSQL load: ${answered} answers 202 but ${accepted} tasks stored`);
      }
      return {
        rps: results.reduce((sum, r) => sum + r.requests.average, 0),
        // With two instances: the slower instance's percentile (each instance gets half the connections).
        p50: Math.max(...results.map((r) => r.latency.p50)),
        p99: Math.max(...results.map((r) => r.latency.p99)),
        accepted,
        queries: (statsAfter.queries - statsBefore.queries) / accepted,
        cpuUs: (statsAfter.cpuUs - statsBefore.cpuUs) / accepted,
        dbCpuUs,
        top: callsOf(true),
        nested: callsOf(false),
      };
    };

    const cases: { scenario: Scenario; instances: 1 | 2; keys: string[] }[] = [
      { scenario: "one hot user", instances: 1, keys: hot },
      { scenario: "one hot user", instances: 2, keys: hot },
      { scenario: "1,000 users", instances: 1, keys: many },
      { scenario: "1,000 users", instances: 2, keys: many },
    ];
    const results: PostgresResult[] = [];
    const direct: DirectResult[] = [];
    const passes =
      postmasterPid === undefined
        ? [{ fsync: await show("fsync"), rounds: opts.rounds }]
        : [
            { fsync: "on", rounds: opts.rounds },
            { fsync: "off", rounds: opts.roundsFsyncOff },
          ];
    for (const { fsync, rounds } of passes.filter((pass) => pass.rounds > 0)) {
      await configure("fsync", fsync);
      const runs = cases.map(() => ({ reference: [] as Run[], baseline: [] as Run[] }));
      for (let round = 0; round < rounds; round++) {
        for (const [c, { instances, keys }] of cases.entries()) {
          const order =
            round % 2 === 0
              ? (["reference", "baseline"] as const)
              : (["baseline", "reference"] as const);
          for (const kind of order) {
            const targets = servers[kind].slice(0, instances);
            await checkpoint();
            // The warm-up's first half lets every session take the counting of nested statements,
            // its second half is counted; the measured load counts top-level statements only.
            await configure("pg_stat_statements.track", "all");
            await load(targets, keys, opts.warmup / 2);
            const counted = await load(targets, keys, opts.warmup / 2);
            await configure("pg_stat_statements.track", "top");
            const measured = await load(targets, keys, opts.seconds);
            runs[c]?.[kind].push({ ...measured, top: counted.top, nested: counted.nested });
          }
        }
      }
      for (const [c, { scenario, instances }] of cases.entries()) {
        const { reference: r = [], baseline: b = [] } = runs[c] ?? {};
        const med = (runs: Run[], field: keyof Run) => median(runs.map((x) => x[field]));
        results.push({
          scenario,
          fsync,
          instances,
          rps: med(r, "rps"),
          p50: med(r, "p50"),
          p99: med(r, "p99"),
          baseRps: med(b, "rps"),
          baseP50: med(b, "p50"),
          baseP99: med(b, "p99"),
          ratio: median(r.map((x, k) => x.rps / (b[k]?.rps ?? Number.NaN))),
          queries: med(r, "queries"),
          baseQueries: med(b, "queries"),
          topStatements: med(r, "top"),
          baseTopStatements: med(b, "top"),
          nestedStatements: med(r, "nested"),
          baseNestedStatements: med(b, "nested"),
          cpuUs: med(r, "cpuUs"),
          baseCpuUs: med(b, "cpuUs"),
          dbCpuUs: med(r, "dbCpuUs"),
          baseDbCpuUs: med(b, "dbCpuUs"),
          rounds,
        });
      }
      if (fsync === "on") {
        direct.push(
          ...(await runDirect(
            { ...opts, rounds },
            connectionString,
            schema,
            credits,
            { hot, many },
            postmasterPid,
            checkpoint,
          )),
        );
      }
    }
    return { results, direct, setup };
  } finally {
    await Promise.all(children.map(stop));
    await sql.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
    await sql.end();
    await destroy();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/**
 * The same accepts in this process, without HTTP: `opts.connections` callers, each calling the
 * store's `commitTask` the way the reference server does (with a request it checked once, after
 * `findCaller` for a key it has not seen), or the baseline's `handWrittenAccept`, for `opts.seconds` after `opts.warmup`
 * seconds, alternating which goes first. What is left of the gap is the store's: its function and
 * its JavaScript. Every call must accept its task, else the load fails.
 */
async function runDirect(
  opts: {
    seconds: number;
    warmup: number;
    rounds: number;
    connections: number;
    maxRequests: number;
  },
  connectionString: string,
  schema: string,
  credits: number,
  keys: { hot: string[]; many: string[] },
  postmasterPid: number | undefined,
  checkpoint: () => Promise<void>,
): Promise<DirectResult[]> {
  const { viaStore, viaHand, close } = await directAccepts(connectionString, schema, credits);
  const load = async (
    accept: (token: string) => Promise<void>,
    tokens: string[],
    seconds: number,
  ) => {
    const end = performance.now() + seconds * 1000;
    const cpu = process.cpuUsage();
    const db = clusterCpuUs(postmasterPid);
    let accepted = 0;
    let next = 0;
    await Promise.all(
      Array.from({ length: opts.connections }, async () => {
        while (performance.now() < end && accepted < opts.maxRequests) {
          await accept(tokens[next++ % tokens.length] as string);
          accepted++;
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return {
      rps: accepted / seconds,
      cpuUs: (used.user + used.system) / accepted,
      dbCpuUs: (clusterCpuUs(postmasterPid) - db) / accepted,
    };
  };
  try {
    const out: DirectResult[] = [];
    for (const [scenario, tokens] of [
      ["one hot user", keys.hot],
      ["1,000 users", keys.many],
    ] as const) {
      const runs = {
        store: [] as Awaited<ReturnType<typeof load>>[],
        hand: [] as Awaited<ReturnType<typeof load>>[],
      };
      for (let round = 0; round < opts.rounds; round++) {
        const order = round % 2 === 0 ? (["store", "hand"] as const) : (["hand", "store"] as const);
        for (const kind of order) {
          const accept = kind === "store" ? viaStore : viaHand;
          await checkpoint();
          await load(accept, tokens, opts.warmup);
          runs[kind].push(await load(accept, tokens, opts.seconds));
        }
      }
      const med = (list: typeof runs.store, field: "rps" | "cpuUs" | "dbCpuUs") =>
        median(list.map((x) => x[field]));
      out.push({
        scenario,
        rps: med(runs.store, "rps"),
        baseRps: med(runs.hand, "rps"),
        ratio: median(runs.store.map((x, k) => x.rps / (runs.hand[k]?.rps ?? Number.NaN))),
        cpuUs: med(runs.store, "cpuUs"),
        baseCpuUs: med(runs.hand, "cpuUs"),
        dbCpuUs: med(runs.store, "dbCpuUs"),
        baseDbCpuUs: med(runs.hand, "dbCpuUs"),
        rounds: opts.rounds,
      });
    }
    return out;
  } finally {
    await close();
  }
}

/**
 * The benchmark's users on `schema` (migrated here): one hot user and `users` more, each with a key,
 * made through the reference server's admin; and the charge of the benchmark's body, as the
 * reference server computes it (the baseline charges the same).
 */
export async function accounts(connectionString: string, schema: string, users: number) {
  const { createPostgresStore } = await import("../src/postgres/index.js");
  const { createReferenceServer } = await import("../src/server/index.js");
  const store = await createPostgresStore({ connectionString, schema });
  try {
    const server = createReferenceServer({ store });
    const account = async (credits: number) => {
      const { userId } = await server.admin.createUser({ credits });
      return (await server.admin.createApiKey(userId)).key;
    };
    const hot = [await account(1e15)];
    const many: string[] = [];
    while (many.length < users) {
      many.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(50, users - many.length) }, () => account(1e12)),
        )),
      );
    }
    const probe = await server.fetch(
      new Request("http://bench/api/generations", {
        method: "POST",
        headers: { authorization: `Bearer ${hot[0]}`, "content-type": "application/json" },
        body: JSON.stringify(BODY),
      }),
    );
    const credits = ((await probe.json()) as { batch: { totalCreditCost: number } }).batch
      .totalCreditCost;
    return { hot, many, credits };
  } finally {
    await store.close();
  }
}

/**
 * The two ways to accept one generation in process, each checking that it was accepted: the
 * store's `findCaller` then `commitTask` (a pool of 10), as the reference server calls them for
 * each request it checked once; and the baseline's `handWrittenAccept` (its own pool of 10),
 * which looks the key up too. Each call
 * takes a bearer token of a user of `schema`, and a fresh idempotency key of its own.
 */
export async function directAccepts(connectionString: string, schema: string, credits: number) {
  const { createHash } = await import("node:crypto");
  const { createPostgresStore } = await import("../src/postgres/index.js");
  const { catalog, checkRequest } = await import("../src/index.js");
  const { handWrittenAccept } = await import("./baseline/postgres.js");
  const store = await createPostgresStore({ connectionString, schema });
  const pool = new pg.Pool({ connectionString, max: 10 });
  pool.on("error", () => {});
  const byHand = handWrittenAccept(pool, schema, credits);
  const checked = checkRequest(BODY);
  if (!checked.success) {
    throw new Error("the benchmark's body does not pass the request rules");
  }
  let n = 0;
  const viaStore = async (token: string) => {
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    const found = await store.findCaller(hash);
    if (!found || found.key.revoked) {
      throw new Error("PostgreSQL direct load: a key was not found");
    }
    const userId = found.key.userId;
    const key = `direct-${++n}`;
    const now = Date.now();
    const task = {
      id: `task_${randomBytes(8).toString("hex")}${Buffer.from(userId, "utf8").toString("hex")}`,
      userId,
      createdAt: now,
      request: { ...checked.output, idempotencyKey: key },
      clientKey: true,
      referenceCount: 0,
      multiplier: found.multiplier,
      catalogVersion: catalog.version,
      jobCredits: [credits],
      totalCredits: credits,
    };
    const result = await store.commitTask(
      { task, apiKeyId: found.key.id, claim: { key }, assetIds: [] },
      now,
    );
    if (!result.ok) {
      throw new Error(`PostgreSQL direct load: the store refused a task (${result.reason})`);
    }
  };
  const viaHand = async (token: string) => {
    const answer = await byHand(token, { ...BODY, idempotencyKey: `direct-${++n}` });
    if (answer.status !== 202) {
      throw new Error(`PostgreSQL direct load: the hand-written accept answered ${answer.status}`);
    }
  };
  const close = async () => {
    await store.close();
    await pool.end();
  };
  return { viaStore, viaHand, close };
}

if (process.argv[2] === "child") {
  process.on("SIGINT", () => process.exit(0));
  // The benchmark is gone (ended or killed): so is this server.
  process.on("disconnect", () => process.exit(0));
  await child(process.argv[3] as Kind, Number(process.argv[4]));
}
