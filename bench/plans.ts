/**
 * One accepted generation on PostgreSQL, statement by statement: the store (`findCaller`, then
 * `accept_generation`) against the hand-written baseline of bench/baseline/postgres.ts (its key
 * lookup, then its one statement), both in this process, 16 callers over 1,000 users, on a
 * throwaway cluster that loads `pg_stat_statements` and `auto_explain`, with `fsync` off (what is
 * measured is the statements' own time, not the flush of each commit).
 *
 * 1. Statements: each statement's calls and execution time per accepted generation, top-level and
 *    run inside functions, foreign-key checks included (`pg_stat_statements.track = all`).
 * 2. Plans: each statement's plan, its time and its triggers' (`auto_explain` with `log_analyze`,
 *    `log_triggers` and `log_nested_statements`), medians over a few hundred accepts.
 * 3. This process: its CPU per accepted generation, by part (a sampling profile from
 *    `node:inspector`): the driver's protocol, its parameters, its rows, the store, the baseline.
 *
 * `node --import ./bench/register.mjs bench/plans.ts` (about a minute): prints tables, writes nothing.
 */
import { readFileSync, statSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { dirname, join } from "node:path";
import pg from "pg";
import { startPostgres } from "../test/support/postgresCluster.js";
import { accounts, directAccepts } from "./postgres.js";
import { median } from "./stats.js";

const CALLERS = 16;
const USERS = 1000;
/** Accepts counted per side for the statements and the profile; fewer for the plans (each is logged). */
const COUNTED = 5000;
const EXPLAINED = 400;
/** Profiled loads per side, alternating which goes first. */
const ROUNDS = 4;

// Stopped by a signal, it still removes its cluster: exiting runs the cluster's exit hook.
process.once("SIGINT", () => process.exit(130));
process.once("SIGTERM", () => process.exit(143));
const cluster = await startPostgres({
  settings: ["shared_preload_libraries=pg_stat_statements,auto_explain"],
});
const schema = "plans";
const admin = new pg.Pool({ connectionString: cluster.url, max: 1 });
admin.on("error", () => {}); // an idle session ended by the cluster's stop: the next query opens another
const log = join(dirname(cluster.dataDir), "server.log");
try {
  await admin.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  /** A setting of the whole cluster, taken by each session at its next statement. */
  const configure = async (settings: Record<string, string>) => {
    for (const [name, value] of Object.entries(settings)) {
      await admin.query(`ALTER SYSTEM SET ${name} = '${value}'`);
    }
    await admin.query("SELECT pg_reload_conf()");
  };
  const { many, credits } = await accounts(cluster.url, schema, USERS);
  const { viaStore, viaHand, close } = await directAccepts(cluster.url, schema, credits);
  const sides = [
    ["the store", viaStore],
    ["hand-written", viaHand],
  ] as const;
  let next = 0;
  /** `count` accepts by `CALLERS` callers, within a minute (else an error); the process's CPU per accept (µs). */
  const run = async (accept: (token: string) => Promise<void>, count: number) => {
    const cpu = process.cpuUsage();
    const deadline = performance.now() + 60_000;
    let started = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (started++ < count) {
          if (performance.now() > deadline) {
            throw new Error(`${count} accepts took more than a minute`);
          }
          await accept(many[next++ % many.length] as string);
        }
      }),
    );
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / count;
  };
  const short = (query: string) =>
    query
      .replaceAll(`"${schema}".`, "")
      .replaceAll(`${schema}.`, "")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 90);
  const us = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString("en-US"));

  console.log(
    `# One accepted generation, statement by statement (${CALLERS} callers, ${USERS} users, fsync off)\n`,
  );
  console.log("## Statements (pg_stat_statements, track = all)\n");
  await configure({ "pg_stat_statements.track": "all" });
  for (const [name, accept] of sides) {
    await run(accept, 1000); // every pooled session takes the setting, and the plans are cached
    await admin.query("SELECT pg_stat_statements_reset()");
    await run(accept, COUNTED);
    const { rows } = await admin.query<{
      query: string;
      toplevel: boolean;
      calls: string;
      total: number;
    }>(
      `SELECT query, toplevel, calls, total_exec_time * 1000 AS total FROM pg_stat_statements
        WHERE calls >= $1 ORDER BY toplevel DESC, total_exec_time DESC`,
      [COUNTED / 2],
    );
    console.log(`### ${name}\n`);
    console.log(
      "| statement | where | calls per accept | µs per call | µs per accept |\n|---|---|---:|---:|---:|",
    );
    let top = 0;
    for (const r of rows) {
      const calls = Number(r.calls);
      if (r.toplevel) {
        top += r.total / COUNTED;
      }
      console.log(
        `| \`${short(r.query)}\` | ${r.toplevel ? "top-level" : "inside"} | ${(calls / COUNTED).toFixed(2)} | ${us(r.total / calls)} | ${us(r.total / COUNTED)} |`,
      );
    }
    console.log(
      `\nTop-level statements together: ${us(top)} µs of execution per accepted generation.\n`,
    );
  }
  // Counting every nested statement costs the database time: the top-level statements alone, uncounted inside.
  await configure({ "pg_stat_statements.track": "top" });
  console.log("### Top-level only (track = top: nothing inside a statement is counted)\n");
  console.log(
    "| statement | µs per call, the store | µs per call, hand-written |\n|---|---:|---:|",
  );
  const tops: Map<string, number>[] = [];
  for (const [, accept] of sides) {
    await run(accept, 1000);
    await admin.query("SELECT pg_stat_statements_reset()");
    await run(accept, COUNTED);
    const { rows } = await admin.query<{ query: string; mean: number }>(
      "SELECT query, total_exec_time * 1000 / calls AS mean FROM pg_stat_statements WHERE calls >= $1 ORDER BY total_exec_time DESC",
      [COUNTED / 2],
    );
    tops.push(new Map(rows.map((r) => [short(r.query), r.mean])));
  }
  const [store, hand] = tops as [Map<string, number>, Map<string, number>];
  const label = (q: string) =>
    q.startsWith("SELECT 1 FROM ONLY")
      ? "the deferred foreign key of the claim, at commit"
      : `\`${q.slice(0, 60)}\``;
  const pairs: [string, number | undefined, number | undefined][] = [
    [
      "the call or the statement that accepts",
      [...store].find(([q]) => q.includes("accept_generation"))?.[1],
      [...hand].find(([q]) => q.startsWith("WITH claim"))?.[1],
    ],
    [
      "the key lookup",
      [...store].find(([q]) => q.includes("FROM api_keys"))?.[1],
      [...hand].find(([q]) => q.includes("FROM api_keys"))?.[1],
    ],
    [
      label("SELECT 1 FROM ONLY"),
      [...store].find(([q]) => q.startsWith("SELECT 1"))?.[1],
      [...hand].find(([q]) => q.startsWith("SELECT 1"))?.[1],
    ],
  ];
  for (const [what, a, b] of pairs) {
    console.log(
      `| ${what} | ${a === undefined ? "-" : us(a)} | ${b === undefined ? "-" : us(b)} |`,
    );
  }
  console.log("");

  console.log("## Plans (auto_explain, ANALYZE, medians)\n");
  for (const [name, accept] of sides) {
    await configure({
      "auto_explain.log_min_duration": "0",
      "auto_explain.log_analyze": "on",
      "auto_explain.log_triggers": "on",
      "auto_explain.log_nested_statements": "on",
      "auto_explain.log_format": "json",
    });
    await run(accept, 200); // every pooled session takes the settings
    const from = statSync(log).size;
    await run(accept, EXPLAINED);
    await configure({ "auto_explain.log_min_duration": "-1" });
    await run(accept, 200);
    const text = readFileSync(log, "utf8").slice(from);
    const byQuery = new Map<
      string,
      { ms: number[]; shape: string; triggers: Map<string, number[]> }
    >();
    // Each entry: "duration: X ms  plan:" then the JSON plan on lines that start with a tab.
    for (const entry of text.split(/\n(?=\S)/)) {
      const head = /duration: ([\d.]+) ms\s+plan:\n([\s\S]*)$/.exec(entry);
      if (!head) {
        continue;
      }
      const plan = JSON.parse(head[2] as string) as ExplainedPlan;
      const query = short(plan["Query Text"]);
      const seen = byQuery.get(query) ?? { ms: [], shape: shape(plan.Plan), triggers: new Map() };
      seen.ms.push(Number(head[1]));
      for (const t of plan.Triggers ?? []) {
        const key = `${t["Trigger Name"].startsWith("RI_") ? "foreign key" : t["Trigger Name"]} on ${t.Relation}`;
        seen.triggers.set(key, [...(seen.triggers.get(key) ?? []), t.Time]);
      }
      byQuery.set(query, seen);
    }
    console.log(`### ${name}\n`);
    console.log(
      "| statement | per accept | median µs | plan | triggers (median µs) |\n|---|---:|---:|---|---|",
    );
    for (const [query, { ms, shape, triggers }] of [...byQuery].sort(
      (a, b) => b[1].ms.length - a[1].ms.length,
    )) {
      if (ms.length < EXPLAINED / 2) {
        continue;
      }
      const trig = [...triggers].map(([k, t]) => `${k} ${us(median(t) * 1000)}`).join("; ");
      console.log(
        `| \`${query}\` | ${(ms.length / EXPLAINED).toFixed(2)} | ${us(median(ms) * 1000)} | ${shape} | ${trig} |`,
      );
    }
    console.log("");
  }

  console.log("## This process (node:inspector sampling profile, self time)\n");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  // Rounds alternate which side goes first; each part's figure is its median over the rounds.
  const parts = new Map<string, Map<string, number[]>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, accept] of round % 2 === 0 ? sides : [...sides].reverse()) {
      await run(accept, 2000);
      await session.post("Profiler.start");
      const cpu = await run(accept, COUNTED);
      const { profile } = await session.post("Profiler.stop");
      const mine = parts.get(name) ?? new Map<string, number[]>();
      for (const [part, value] of [
        ...byPart(profile, COUNTED),
        ["process CPU (user and system)", cpu] as const,
      ]) {
        mine.set(part, [...(mine.get(part) ?? []), value]);
      }
      parts.set(name, mine);
    }
  }
  session.disconnect();
  const names = sides.map(([name]) => name);
  const figure = (name: string, row: string) => median(parts.get(name)?.get(row) ?? [0]);
  const rows = [...new Set(names.flatMap((name) => [...(parts.get(name)?.keys() ?? [])]))].sort(
    (a, b) => figure(names[0] as string, b) - figure(names[0] as string, a),
  );
  console.log(
    `| part | ${names.map((n) => `${n}, µs per accept`).join(" | ")} |\n|---|${names.map(() => "---:").join("|")}|`,
  );
  for (const row of rows) {
    console.log(`| ${row} | ${names.map((n) => us(figure(n, row))).join(" | ")} |`);
  }
  await close();
} finally {
  await admin.end();
  await cluster.destroy();
}

/** What `auto_explain` logs in JSON: the statement, its plan tree and its triggers. */
type ExplainedPlan = {
  "Query Text": string;
  Plan: PlanNode;
  Triggers?: { "Trigger Name": string; Relation: string; Time: number; Calls: number }[];
};
type PlanNode = {
  "Node Type": string;
  Operation?: string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Function Name"?: string;
  Plans?: PlanNode[];
};

/** A plan tree on one line: each node with what it reads or writes, children in brackets. */
function shape(node: PlanNode): string {
  const what = node["Index Name"] ?? node["Relation Name"] ?? node["Function Name"];
  const self = `${node.Operation ?? node["Node Type"]}${what ? ` ${what}` : ""}`;
  const children = (node.Plans ?? []).map(shape);
  return children.length ? `${self} (${children.join(", ")})` : self;
}

/** Self time per accept (µs) of a CPU profile, by part of the program. */
function byPart(
  profile: {
    nodes: { id: number; callFrame: { url: string; functionName: string } }[];
    samples?: number[];
    timeDeltas?: number[];
  },
  count: number,
): Map<string, number> {
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const out = new Map<string, number>();
  const samples = profile.samples ?? [];
  for (let i = 0; i < samples.length; i++) {
    const frame = frames.get(samples[i] as number);
    if (!frame || frame.functionName === "(idle)") {
      continue;
    }
    const part = partOf(frame.url, frame.functionName);
    out.set(part, (out.get(part) ?? 0) + (profile.timeDeltas?.[i] ?? 0) / count);
  }
  return out;
}

function partOf(url: string, fn: string): string {
  if (url.includes("/pg-protocol/")) {
    return "pg-protocol: writing and reading messages";
  }
  if (url.includes("/pg/lib/utils")) {
    return "pg: parameters (`prepareValue`)";
  }
  if (url.includes("/pg/lib/result") || url.includes("/pg-types/")) {
    return "pg: rows and their types";
  }
  if (url.includes("/pg/") || url.includes("/pg-pool/")) {
    return "pg: client, pool and queries";
  }
  if (url.includes("/src/postgres/")) {
    return "the store (src/postgres)";
  }
  if (url.includes("/bench/baseline/")) {
    return "the baseline's handler";
  }
  if (url.includes("/bench/") || url.includes("/src/")) {
    return "the load and the request";
  }
  if (url.startsWith("node:")) {
    return "node (streams, sockets, timers)";
  }
  if (fn === "(garbage collector)") {
    return "garbage collector";
  }
  if (fn === "writev" || fn === "writeUtf8String" || fn === "writeBuffer") {
    return "sending to the socket (the system call)";
  }
  return url ? "other JavaScript" : "other native code (crypto, buffers, the engine)";
}
