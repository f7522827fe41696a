/**
 * `npm run bench`: every benchmark, each beside its baseline in the same run, then each budget as
 * met or missed, and bench/results.md rewritten with the results (full runs only).
 *
 * Options (environment): BENCH_QUICK=1 (or `--quick`) for short runs that write no docs;
 * BENCH_ONLY=core,client,http,memory,postgres,conformance to run some parts; BENCH_CPU_PROF=<dir> to profile the
 * reference server under HTTP load (`node --cpu-prof`); BENCH_DATABASE_URL=postgres://... to run
 * the PostgreSQL part on that database instead of a throwaway cluster.
 */
import { execSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import type { ClientResult } from "./client.js";
import type { ConformanceResult } from "./conformance.js";
import type { PairResult } from "./core.js";
import type { HttpResult } from "./http.js";
import type { MemoryResult } from "./memory.js";
import type { DirectResult, PostgresResult, PostgresSetup } from "./postgres.js";

const quick = process.env.BENCH_QUICK === "1" || process.argv.includes("--quick");
const PARTS = ["core", "client", "http", "memory", "postgres", "conformance"];
const only = new Set((process.env.BENCH_ONLY ?? PARTS.join(",")).split(",").map((s) => s.trim()));
const settings = quick
  ? {
      coreRounds: 2,
      coreMs: 150,
      clientRounds: 10,
      seconds: 2,
      warmup: 1,
      httpRounds: 1,
      tasks: 10_000,
    }
  : {
      coreRounds: 5,
      coreMs: 500,
      clientRounds: 60,
      seconds: 10,
      warmup: 2,
      httpRounds: 3,
      tasks: 100_000,
    };
const pgSettings = quick
  ? { seconds: 2, warmup: 1, rounds: 1, roundsFsyncOff: 1, maxRequests: 20_000 }
  : { seconds: 5, warmup: 2, rounds: 8, roundsFsyncOff: 4, maxRequests: 200_000 };
const CONNECTIONS = 10;
/** Client connections of the PostgreSQL loads, in all (split over the instances). */
const PG_CONNECTIONS = 16;
const PG_USERS = 1000;

type Budget = { name: string; value: string; limit: string; met: boolean };
const budgets: Budget[] = [];
const ratio = (x: number) => `${x.toFixed(3)}x`;
const int = (x: number) => Math.round(x).toLocaleString("en-US");
const rounds = (n: number) => `${n} round${n === 1 ? "" : "s"}`;
const load0 = os.loadavg()[0] ?? 0;

let core: PairResult[] = [];
let client: ClientResult | undefined;
let http: HttpResult[] = [];
let memory: MemoryResult | undefined;
let conformance: ConformanceResult[] = [];
let postgres:
  | { results: PostgresResult[]; direct: DirectResult[]; setup: PostgresSetup }
  | undefined;

if (only.has("core")) {
  console.log(
    `core: ${settings.coreRounds} rounds of ${settings.coreMs} ms per case and per baseline ...`,
  );
  // Each part is loaded only when it runs, so that one part's imports never stop another part.
  const { runCore } = await import("./core.js");
  core = await runCore(settings.coreRounds, settings.coreMs);
  const at = (name: string) => core.find((r) => r.name.startsWith(name));
  const check = (name: string, label: string, min: number) => {
    const r = at(name);
    if (r) {
      budgets.push({
        name: label,
        value: ratio(r.ratio),
        limit: `>= ${min}x`,
        met: r.ratio >= min,
      });
    }
  };
  check("normalize + validate, valid", "validation, valid body vs hand-written", 0.12);
  check("normalize + validate, invalid", "validation, invalid body vs hand-written", 0.06);
  check(
    'quote, multiplier "1.15" read once',
    "quote, non-unit multiplier (read once) vs integer formula",
    0.25,
  );
}
if (only.has("client")) {
  console.log(
    `client: ${settings.clientRounds} rounds of 200 creates through the client and by a bare fetch ...`,
  );
  const { runClient } = await import("./client.js");
  client = await runClient(settings.clientRounds);
  budgets.push({
    name: "create through the client vs bare fetch (CPU time)",
    value: `${ratio(client.cpuRatio)} (wall-clock ${ratio(client.ratio)})`,
    limit: ">= 0.9x",
    met: client.cpuRatio >= 0.9,
  });
}
if (only.has("http")) {
  console.log(
    `http: ${settings.httpRounds} round(s) of ${settings.seconds} s per endpoint and server after ${settings.warmup} s warm-up, ${CONNECTIONS} connections ...`,
  );
  const { runHttp } = await import("./http.js");
  http = await runHttp({
    seconds: settings.seconds,
    warmup: settings.warmup,
    connections: CONNECTIONS,
    rounds: settings.httpRounds,
    ...(process.env.BENCH_CPU_PROF ? { cpuProf: process.env.BENCH_CPU_PROF } : {}),
  });
  const at = (name: string) => http.find((r) => r.name === name);
  const q = at("POST /api/pricing/quote");
  const g = at("POST /api/generations");
  const p = at("GET /api/ping");
  if (q) {
    budgets.push({
      name: "HTTP quote vs bare node:http",
      value: ratio(q.ratio),
      limit: ">= 0.6x",
      met: q.ratio >= 0.6,
    });
  }
  if (p) {
    budgets.push({
      name: "HTTP ping vs bare node:http",
      value: ratio(p.ratio),
      limit: ">= 0.6x",
      met: p.ratio >= 0.6,
    });
  }
  if (g) {
    budgets.push({
      name: "HTTP generations vs bare node:http",
      value: ratio(g.ratio),
      limit: ">= 0.5x",
      met: g.ratio >= 0.5,
    });
    budgets.push({
      name: "HTTP generations p99 vs bare node:http p99",
      value: `${int(g.p99)} µs / ${int(g.bareP99)} µs = ${ratio(g.p99 / g.bareP99)}`,
      limit: "<= 2x",
      met: g.p99 <= 2 * g.bareP99,
    });
  }
  const p99 = Math.max(...http.map((r) => r.p99));
  budgets.push({
    name: `HTTP p99, every endpoint, ${CONNECTIONS} connections`,
    value: `${int(p99)} µs`,
    limit: "<= 2,000 µs",
    met: p99 <= 2000,
  });
}
if (only.has("memory")) {
  console.log(`memory: ${int(settings.tasks)} tasks per case ...`);
  const { runMemory } = await import("./memory.js");
  memory = await runMemory(settings.tasks);
}

if (only.has("postgres")) {
  console.log(
    `postgres: ${pgSettings.rounds} round(s) of ${pgSettings.seconds} s per case and server after ${pgSettings.warmup} s warm-up, ${PG_CONNECTIONS} connections ...`,
  );
  const { runPostgres } = await import("./postgres.js");
  postgres = await runPostgres({ ...pgSettings, connections: PG_CONNECTIONS, users: PG_USERS });
  // The budget is with fsync on; fsync off shows the CPU of each generation.
  for (const r of postgres.results.filter((x) => x.fsync === "on")) {
    const instances = r.instances === 1 ? "one instance" : "two instances";
    budgets.push({
      name: `PostgreSQL generations, ${r.scenario}, ${instances}, fsync on vs hand-written SQL handler`,
      value: ratio(r.ratio),
      limit: ">= 0.85x",
      met: r.ratio >= 0.85,
    });
  }
}

/** Where the HTTP section's hand-written notes (a profile, what changed the figures) begin and end. */
const NOTES_START = "<!-- http-notes:start -->";
const NOTES_END = "<!-- http-notes:end -->";

/** The HTTP notes of the current bench/results.md, markers included, so that a run keeps them. */
function keptHttpNotes(): string {
  try {
    const text = readFileSync(new URL("results.md", import.meta.url), "utf8");
    const start = text.indexOf(NOTES_START);
    const end = text.indexOf(NOTES_END);
    if (start >= 0 && end > start) {
      return text.slice(start, end + NOTES_END.length);
    }
  } catch {}
  return `${NOTES_START}\n${NOTES_END}`;
}

if (only.has("conformance")) {
  const conformanceRounds = quick ? 1 : 3;
  console.log(
    `conformance: ${conformanceRounds} full run(s) per profile, --budget 20000, over HTTP ...`,
  );
  const { runConformanceBench } = await import("./conformance.js");
  conformance = await runConformanceBench(conformanceRounds);
  for (const r of conformance) {
    budgets.push({
      name: `full conformance run (${r.profile} profile, --budget 20000) over HTTP`,
      value: `${(r.ms / 1000).toFixed(2)} s, ${int(r.requests)} requests`,
      limit: "<= 30 s",
      met: r.ms <= 30_000,
    });
  }
}

// ---- report ----
const lines: string[] = [];
if (core.length > 0) {
  lines.push("### Core (in process, tinybench)", "");
  lines.push("| case | ops/s | baseline | baseline ops/s | ratio |", "|---|---:|---|---:|---:|");
  for (const r of core) {
    lines.push(
      `| ${r.name} | ${int(r.ops)} | ${r.baseline} | ${int(r.baselineOps)} | ${ratio(r.ratio)} |`,
    );
  }
  lines.push("");
}
if (client) {
  lines.push("### Client (in process)", "");
  lines.push(
    "| case | ops/s | baseline | baseline ops/s | ratio | CPU-time ratio |",
    "|---|---:|---|---:|---:|---:|",
  );
  lines.push(
    `| ${client.name} | ${int(client.ops)} | ${client.baseline} | ${int(client.baselineOps)} | ${ratio(client.ratio)} | ${ratio(client.cpuRatio)} |`,
    "",
  );
}
if (http.length > 0) {
  lines.push(`### HTTP on loopback (autocannon, ${CONNECTIONS} connections)`, "");
  lines.push(
    "| endpoint | req/s | p50 µs | p99 µs | bare req/s | bare p50 µs | bare p99 µs | ratio |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of http) {
    lines.push(
      `| ${r.name} | ${int(r.rps)} | ${int(r.p50)} | ${int(r.p99)} | ${int(r.bareRps)} | ${int(r.bareP50)} | ${int(r.bareP99)} | ${ratio(r.ratio)} |`,
    );
  }
  lines.push(
    "",
    "Server CPU time per request (user and system, µs; medians over rounds), which a shared machine disturbs far less than the rates above:",
    "",
    "| endpoint | CPU µs per request | bare CPU µs per request | bare / reference |",
    "|---|---:|---:|---:|",
  );
  for (const r of http) {
    lines.push(`| ${r.name} | ${int(r.cpuUs)} | ${int(r.bareCpuUs)} | ${ratio(r.cpuRatio)} |`);
  }
  lines.push(
    "",
    "Stop-the-world garbage collections (scavenges and full collections) in the server process during the measured load (medians over rounds):",
    "",
  );
  lines.push(
    "| endpoint | GC pause ms/s | longest GC pause ms | bare GC pause ms/s | bare longest GC pause ms |",
  );
  lines.push("|---|---:|---:|---:|---:|");
  for (const r of http) {
    lines.push(
      `| ${r.name} | ${r.gcMsPerS.toFixed(1)} | ${r.gcMaxMs.toFixed(1)} | ${r.bareGcMsPerS.toFixed(1)} | ${r.bareGcMaxMs.toFixed(1)} |`,
    );
  }
  lines.push("", keptHttpNotes(), "");
}
if (postgres) {
  const { setup } = postgres;
  lines.push(`### PostgreSQL on loopback (autocannon, ${PG_CONNECTIONS} connections in all)`, "");
  lines.push(
    `PostgreSQL ${setup.version} (synchronous_commit ${setup.synchronousCommit}), ${setup.source}. Accepted generations (202) per second.`,
    "",
  );
  for (const fsync of ["on", "off"]) {
    const rows = postgres.results.filter((r) => r.fsync === fsync);
    if (rows.length === 0) {
      continue;
    }
    lines.push(
      `With \`fsync\` ${fsync}${fsync === "on" ? " (the budget)" : " (what is left is CPU)"}:`,
      "",
    );
    lines.push(
      "| case | instances | accepted/s | p50 ms | p99 ms | baseline/s | baseline p50 ms | baseline p99 ms | ratio |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const r of rows) {
      lines.push(
        `| ${r.scenario} | ${r.instances} | ${int(r.rps)} | ${r.p50} | ${r.p99} | ${int(r.baseRps)} | ${r.baseP50} | ${r.baseP99} | ${ratio(r.ratio)} |`,
      );
    }
    lines.push("");
  }
  lines.push(
    `Where the time goes, per accepted generation (medians over rounds): round trips counted in each server's driver (every \`pool.query\`)${setup.statementStats ? "; statements as `pg_stat_statements` counts them in the second half of each warm-up, top-level (each round trip's statement, and the foreign-key check a commit defers to its end) and run inside functions (foreign-key checks included)" : ""}; CPU time of the server processes and of the database's.`,
    "",
  );
  const stat = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : "n/a");
  lines.push(
    "| case | fsync | instances | round trips | baseline round trips | top-level statements | baseline top-level | statements in functions | baseline in functions | server CPU µs | baseline server CPU µs | database CPU µs | baseline database CPU µs |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of postgres.results) {
    const cpu = (x: number) => (Number.isFinite(x) ? int(x) : "n/a");
    lines.push(
      `| ${r.scenario} | ${r.fsync} | ${r.instances} | ${r.queries.toFixed(2)} | ${r.baseQueries.toFixed(2)} | ${stat(r.topStatements)} | ${stat(r.baseTopStatements)} | ${stat(r.nestedStatements)} | ${stat(r.baseNestedStatements)} | ${int(r.cpuUs)} | ${int(r.baseCpuUs)} | ${cpu(r.dbCpuUs)} | ${cpu(r.baseDbCpuUs)} |`,
    );
  }
  lines.push("");
  if (postgres.direct.length > 0) {
    lines.push(
      `In one process, without HTTP (\`fsync\` on): ${PG_CONNECTIONS} callers, each calling the store's \`commitTask\` as the reference server does (after \`findCaller\` for a key not seen before), against the baseline's key lookup and statement called the same way (\`handWrittenAccept\`). What is left of the gap is the store's own: its function and its JavaScript. CPU per accepted generation; medians over ${rounds(postgres.direct[0]?.rounds ?? 0)}.`,
      "",
      "| case | store/s | hand-written/s | ratio | store process CPU µs | hand-written process CPU µs | database CPU µs | hand-written database CPU µs |",
      "|---|---:|---:|---:|---:|---:|---:|---:|",
    );
    const cpu = (x: number) => (Number.isFinite(x) ? int(x) : "n/a");
    for (const d of postgres.direct) {
      lines.push(
        `| ${d.scenario} | ${int(d.rps)} | ${int(d.baseRps)} | ${ratio(d.ratio)} | ${int(d.cpuUs)} | ${int(d.baseCpuUs)} | ${cpu(d.dbCpuUs)} | ${cpu(d.baseDbCpuUs)} |`,
      );
    }
    lines.push("");
  }
}
if (memory) {
  lines.push("### Memory per stored task (in process, one reference server)", "");
  lines.push("| measure | bytes |", "|---|---:|");
  lines.push(
    `| per task, client idempotency key (claim kept), ${int(memory.tasks)} tasks | ${int(memory.withKey)} B |`,
  );
  lines.push(
    `| per task, no client key, ${int(memory.tasks)} tasks | ${int(memory.withoutKey)} B |`,
  );
  lines.push("");
}
if (conformance.length > 0) {
  lines.push("### Conformance (the kit against the reference server over HTTP)", "");
  lines.push(
    "| profile | run (median) | requests | credits spent | rules passed / failed / skipped |",
  );
  lines.push("|---|---:|---:|---:|---|");
  for (const r of conformance) {
    lines.push(
      `| ${r.profile} | ${(r.ms / 1000).toFixed(2)} s | ${int(r.requests)} | ${int(r.spent)} | ${r.passed} / ${r.failed} / ${r.skipped} |`,
    );
  }
  lines.push("");
}
const budgetLines = ["| budget | measured | limit | |", "|---|---:|---|---|"];
for (const b of budgets) {
  budgetLines.push(`| ${b.name} | ${b.value} | ${b.limit} | ${b.met ? "met" : "**missed**"} |`);
}

console.log(`\n${lines.join("\n")}`);
console.log("Budgets:");
for (const b of budgets) {
  console.log(`  ${b.met ? "met   " : "MISSED"}  ${b.name}: ${b.value} (limit ${b.limit})`);
}

if (!quick && PARTS.every((part) => only.has(part))) {
  const pkg = (name: string) => {
    try {
      const path = fileURLToPath(new URL(`../node_modules/${name}/package.json`, import.meta.url));
      return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
    } catch {
      return "?";
    }
  };
  const self = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  let commit = "?";
  try {
    commit = execSync("git rev-parse --short HEAD", { encoding: "utf8" }).trim();
  } catch {}
  const cpus = os.cpus();
  const doc = `# Benchmarks

Written by \`npm run bench\` (bench/run.ts); do not edit by hand. Each case runs beside a baseline
that does the same work, in the same run; the speed budgets are ratios to that baseline.
Ratios are medians over rounds of the case / baseline of the same round; absolute numbers depend on
the machine and on its load, the ratios much less.

## Machine and versions

- Date: ${new Date().toISOString().slice(0, 10)}, commit ${commit}
- CPU: ${cpus.length} x ${cpus[0]?.model ?? "?"}; memory ${Math.round(os.totalmem() / 2 ** 30)} GiB; ${os.type()} ${os.release()}
- Load average when the run started: ${load0.toFixed(2)} (the machine is shared; other jobs ran during the run)
- Node ${process.version}; imagegen-pricing ${self.version}, valibot ${pkg("valibot")}, tinybench ${pkg("tinybench")}, autocannon ${pkg("autocannon")}, tsx ${pkg("tsx")}

## How it was run

\`\`\`sh
npm run bench                      # everything, then rewrites this file (about 15 minutes)
BENCH_QUICK=1 npm run bench        # short runs, writes nothing
BENCH_ONLY=http npm run bench      # some parts: core, client, http, memory, postgres, conformance
BENCH_CPU_PROF=prof BENCH_ONLY=http npm run bench   # CPU profile of the server under load
node --import ./bench/register.mjs bench/plans.ts  # the PostgreSQL accept, statement by statement (prints only)
node --import ./bench/register.mjs bench/http.ts compare  # generations: bare, a direct hono app, the reference server (prints only)
\`\`\`

- **Core**: tinybench, ${settings.coreRounds} rounds; in each round the case and its baseline run ${settings.coreMs} ms each
  (the order alternates), each sample a batch of 64 calls. The baselines are in bench/baseline/: a
  hand-written normalizer of N1-N15 and V1-V6 (checked to give the same issues and output before
  timing) and the integer formula \`floor((2 x base x num + den) / (2 x den))\` with the price cell read
  from the catalog and the multiplier already as num/den.
- **Client**: \`client.generations.create\` of \`imagegen-pricing/client\` (local check, key, retry
  machinery) against a bare \`fetch\` of the same body with its own key, both on one in-memory
  reference server in process (\`server.fetch\`): ${settings.clientRounds} rounds (after as many to warm up), each a batch
  of 200 accepted generations one after the other through each, the order alternating; medians of
  the per-round ratios of wall-clock rates and of CPU-time rates (the budget's, as a shared machine
  disturbs CPU time far less).
- **HTTP**: the reference server (\`serve()\` of \`imagegen-pricing/node\`, made with no options: \`node:crypto\` hashes keys) and
  a bare node:http server that reads and parses the JSON body and answers a small JSON body each run
  in a child process; autocannon runs in the parent with ${CONNECTIONS} connections. The machine has ${cpus.length} cores:
  one for the load generator, one for the server under load (the other server idles). Per round, for
  each endpoint, both servers start in new processes (no load runs on a heap another load left: the
  in-memory store keeps every task), and each gets ${settings.warmup} s of warm-up then ${settings.seconds} s measured, alternating
  which goes first; ${settings.httpRounds} rounds, medians. Generations carry a fresh idempotency key each (autocannon's
  \`[<id>]\`), the bare server gets the same bodies. Latencies are each response's time as autocannon
  measures it, in µs; each server process reports its CPU time and its GC pauses around each measured load.
- **PostgreSQL**: the reference server on the PostgreSQL store (\`serve()\` of \`imagegen-pricing/node\`,
  \`createPostgresStore\` with its default pool of 10 connections; each request looks its key up,
  then an accept is one more round trip), one and two instances (child processes) on one schema, beside the hand-written baseline of bench/baseline/postgres.ts: a bare
  node:http handler with \`pg\` (a pool of 10 per instance too) that writes its own SQL on the store's
  tables, constraints and indexes, and never calls the store's functions. It looks the key up by its
  SHA-256 with its user's multiplier (round trip 1), prices the body from a fixed table, then runs
  one statement (round trip 2): a CTE that claims the idempotency key (\`ON CONFLICT DO NOTHING\`),
  debits with a conditional \`UPDATE\` that re-checks the balance, the multiplier and that the key is
  not revoked as it takes the user's row, and inserts the task, its job and the debit entry (a
  refusal after the claim fails the claim's deferred foreign key, so it keeps nothing). Every
  request is an accepted generation (\`beta2\`, one image) with a fresh idempotency key; "one hot
  user" sends every request for one user (every commit queues on that user's row), "${int(PG_USERS)} users"
  spreads them round-robin over ${int(PG_USERS)} users. ${PG_CONNECTIONS} autocannon connections in all (split evenly over
  two instances, whose p50 and p99 are the slower instance's). Per round, for each case, each server
  gets a \`CHECKPOINT\` (both start with the same WAL state), ${pgSettings.warmup} s of warm-up, then ${pgSettings.seconds} s measured
  (at most ${int(pgSettings.maxRequests)} requests), alternating which goes first; ${pgSettings.rounds} rounds with \`fsync\` on (the budget:
  every commit flushed to this machine's disk), then ${pgSettings.roundsFsyncOff} with \`fsync\` off (what is left is CPU), medians.
  After each load the tasks in the database are counted against the 202 answers. The throwaway
  cluster loads \`pg_stat_statements\`, which counts nested statements only during the second half of
  each warm-up (counting them costs the database time); the servers and the database report their CPU
  time. PostgreSQL runs on the same 2 cores as the servers and the load generator. With \`fsync\`
  on, the same accepts also run in the benchmark's own process without HTTP: ${PG_CONNECTIONS} callers of
  the store's \`commitTask\` (after \`findCaller\` for a key not seen before, as the server) against ${PG_CONNECTIONS} callers of the
  baseline's two round trips (\`handWrittenAccept\`, a pool of 10), in the same rounds and order.
- **Conformance**: \`runConformance\` (bench/conformance.ts) with a budget of 20,000 credits, two
  assets and the admin token, in each profile, against a reference server (multiplier 1.15) in a new
  child process each run, over HTTP on 127.0.0.1; medians of ${quick ? 1 : 3} runs. A figure, not a test.
- **Memory**: one process with \`--expose-gc\`: the bytes in use (collected heap and array buffers,
  after full collections) that ${int(settings.tasks)} accepted generations through \`server.fetch\` add to the
  in-memory store (typical short prompt, after 3,000 to warm up), per task. A figure, not a budget.

## Budgets

${budgetLines.join("\n")}

## Results

${lines.join("\n")}`;
  writeFileSync(new URL("results.md", import.meta.url), doc);
  console.log("\nwrote bench/results.md");
}
