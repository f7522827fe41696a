/**
 * `npm run test:load`: 30 seconds of autocannon on loopback against `serve()`,
 * mixing all four endpoints (new generations, replays, unkeyed generations, quotes, ping, credits),
 * while the server fails jobs (some twice) and changes the price multiplier. Then the ledger is
 * checked entry by entry against what the client saw, and memory is sampled while idempotency
 * records expire (a 2-second expiry).
 *
 * The server runs in a child process (this file with `--server`, under `--expose-gc`) so that the
 * load generator does not share its event loop. Exits non-zero when any check fails.
 *
 * Environment: LOAD_SECONDS (default 30), LOAD_CONNECTIONS (default 50), LOAD_TTL_MS (default 2000).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannonUntyped from "autocannon";
import { serve } from "../src/node/index.js";
import { createReferenceServer } from "../src/server/index.js";
import { createMemoryStore } from "../src/store/memory.js";
import type { Store } from "../src/store/store.js";

const SECONDS = Number(process.env.LOAD_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.LOAD_CONNECTIONS ?? 50);
const TTL_MS = Number(process.env.LOAD_TTL_MS ?? 2000);
const GRANT = 1_000_000_000_000;

/** The part of autocannon's API this script uses (scripts/autocannon.d.ts types less of it). */
type LoadRequest = {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: LoadRequest) => LoadRequest;
  onResponse?: (
    status: number,
    body: string,
    context: unknown,
    headers: Record<string, string>,
  ) => void;
};
type Stat = { average: number; min: number; max: number; total: number; p50: number; p99: number };
type LoadResult = {
  requests: Stat;
  latency: Stat;
  errors: number;
  timeouts: number;
  non2xx: number;
};
const autocannon = autocannonUntyped as unknown as (options: {
  url: string;
  connections: number;
  duration: number;
  requests: LoadRequest[];
}) => Promise<LoadResult>;

type Accepted = { taskId: string; cost: number; balanceAfter: number };
type Sample = { t: number; heapUsedMB: number; rssMB: number; tasks: number };
type FromServer =
  | { type: "ready"; url: string; key: string }
  | { type: "report"; ok: boolean; problems: string[]; figures: Record<string, unknown> };

// ------------------------------------------------------------------------------------------ server
async function runServer() {
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
  const base = createMemoryStore();
  const tasks: string[] = []; // ids of committed tasks, to fail some of their jobs
  const store: Store = {
    ...base,
    async commitTask(input, now) {
      const result = await base.commitTask(input, now);
      if (result.ok) {
        tasks.push(result.task.id);
      }
      return result;
    },
  };
  const logs: unknown[] = [];
  const server = createReferenceServer({
    store,
    idempotencyTtlMs: TTL_MS,
    log: (e) => logs.push(e),
  });
  const { userId } = await server.admin.createUser({ credits: GRANT });
  const { key } = await server.admin.createApiKey(userId);
  const running = await serve({ port: 0, server, handleSignals: false });

  const failures: { jobId: string; refunded: number }[] = [];
  let multiplier = "1";
  const failer = setInterval(async () => {
    const taskId = tasks[Math.floor(Math.random() * tasks.length)];
    if (taskId === undefined) {
      return;
    }
    const jobId = `job_${taskId.slice(5)}_0`;
    for (let i = 0; i < (Math.random() < 0.3 ? 2 : 1); i++) {
      failures.push({ jobId, refunded: (await server.admin.failJob(jobId)).refundedCredits });
    }
  }, 5);
  const repricer = setInterval(() => {
    multiplier = multiplier === "1" ? "1.15" : "1";
    void server.admin.setPriceMultiplier(userId, multiplier);
  }, 5000);
  const samples: Sample[] = [];
  const started = Date.now();
  const sample = () => {
    gc();
    const m = process.memoryUsage();
    samples.push({
      t: Math.round((Date.now() - started) / 1000),
      heapUsedMB: m.heapUsed / 2 ** 20,
      rssMB: m.rss / 2 ** 20,
      tasks: tasks.length,
    });
  };
  const sampler = setInterval(sample, 1000);

  process.on("message", async (message: { type: string; accepted?: Accepted[] }) => {
    if (message.type !== "check") {
      return;
    }
    clearInterval(failer);
    clearInterval(repricer);
    clearInterval(sampler);
    sample();
    const atEnd = samples[samples.length - 1] as Sample;
    await running.close();
    // Let every idempotency record expire, touch the map once so it evicts, and measure again.
    await new Promise((r) => setTimeout(r, TTL_MS + 100));
    const after = await server.fetch(
      new Request("http://local/api/generations", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "evict", modelId: "beta", idempotencyKey: "evict" }),
      }),
    );
    const evictBody = (await after.json()) as {
      batch: { taskId: string; totalCreditCost: number; balanceAfterCredits: number };
    };
    sample();
    const afterExpiry = samples[samples.length - 1] as Sample;

    // The ledger, entry by entry, against what the client saw.
    const problems: string[] = [];
    const seen = new Map<string, Accepted>();
    for (const a of message.accepted ?? []) {
      seen.set(a.taskId, a);
    }
    seen.set(evictBody.batch.taskId, {
      taskId: evictBody.batch.taskId,
      cost: evictBody.batch.totalCreditCost,
      balanceAfter: evictBody.batch.balanceAfterCredits,
    });
    const expectedRefunds = new Map<string, number>();
    for (const f of failures) {
      if (f.refunded > 0) {
        if (expectedRefunds.has(f.jobId)) {
          problems.push(`job ${f.jobId} refunded twice`);
        }
        expectedRefunds.set(f.jobId, f.refunded);
      }
    }
    const ledger = await server.admin.ledger(userId);
    let running_ = 0;
    let debits = 0;
    let refunds = 0;
    let inFlight = 0;
    const debited = new Set<string>();
    for (const entry of ledger) {
      if (entry.kind === "grant") {
        running_ += entry.credits;
      } else if (entry.kind === "debit") {
        running_ -= entry.credits;
        debits++;
        const a = seen.get(entry.taskId ?? "");
        if (!a) {
          // Autocannon stops at the deadline with up to one request in flight per connection: the
          // server accepted it, the client never read the answer. It must still match its stored task.
          inFlight++;
          const task = await server.admin.task(entry.taskId ?? "");
          if (task.totalCreditCost !== entry.credits) {
            problems.push(`unseen task ${entry.taskId}: debit differs from its stored charge`);
          }
        } else {
          if (a.cost !== entry.credits) {
            problems.push(`task ${a.taskId}: debited ${entry.credits}, client was told ${a.cost}`);
          }
          if (a.balanceAfter !== running_) {
            problems.push(
              `task ${a.taskId}: balance after ${running_}, client was told ${a.balanceAfter}`,
            );
          }
        }
        if (debited.has(entry.taskId ?? "")) {
          problems.push(`task ${entry.taskId} debited twice`);
        }
        debited.add(entry.taskId ?? "");
      } else {
        running_ += entry.credits;
        refunds++;
        const jobId = entry.jobId ?? "";
        const expected = expectedRefunds.get(jobId);
        if (expected !== entry.credits) {
          problems.push(`refund of ${entry.credits} for ${jobId}, failJob said ${expected}`);
        }
        if ((await server.admin.job(jobId)).credits !== entry.credits) {
          problems.push(`refund for ${jobId} differs from its stored charge`);
        }
        expectedRefunds.delete(jobId);
      }
      if (running_ < 0) {
        problems.push(`balance below zero after an entry: ${running_}`);
      }
    }
    for (const taskId of seen.keys()) {
      if (!debited.has(taskId)) {
        problems.push(`accepted task ${taskId} has no debit`);
      }
    }
    for (const jobId of expectedRefunds.keys()) {
      problems.push(`refund for ${jobId} missing from the ledger`);
    }
    const balance = await server.admin.balance(userId);
    if (running_ !== balance) {
      problems.push(`ledger sums to ${running_}, balance is ${balance}`);
    }
    if (inFlight > Number(process.env.LOAD_CONNECTIONS ?? 50)) {
      problems.push(`${inFlight} debits no client saw, more than one per connection`);
    }
    if (logs.length > 0) {
      problems.push(`${logs.length} unexpected errors logged`);
    }

    const peak = Math.max(...samples.map((s) => s.heapUsedMB));
    const send = process.send?.bind(process);
    send?.({
      type: "report",
      ok: problems.length === 0,
      problems: problems.slice(0, 20),
      figures: {
        ledgerEntries: ledger.length,
        debits,
        debitsUnseenByClient: inFlight,
        refunds,
        failJobCalls: failures.length,
        repeatedFailures: failures.filter((f) => f.refunded === 0).length,
        balance,
        tasks: tasks.length,
        heapUsedMB: {
          first: samples[0]?.heapUsedMB,
          peak,
          atEnd: atEnd.heapUsedMB,
          afterExpiry: afterExpiry.heapUsedMB,
          freedByExpiry: atEnd.heapUsedMB - afterExpiry.heapUsedMB,
        },
        bytesPerTaskAfterExpiry:
          ((afterExpiry.heapUsedMB - (samples[0]?.heapUsedMB ?? 0)) * 2 ** 20) /
          Math.max(1, tasks.length),
        samples: samples.map((s) => `${s.t}s ${s.heapUsedMB.toFixed(1)}MB ${s.tasks} tasks`),
      },
    });
    setTimeout(() => process.exit(0), 50);
  });
  process.send?.({ type: "ready", url: running.url, key } satisfies FromServer);
}

// ------------------------------------------------------------------------------------------ client
async function runClient() {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--server"], {
    execArgv: ["--import", "tsx", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<Extract<FromServer, { type: "ready" }>>((resolve) =>
    child.once("message", (m: FromServer) => m.type === "ready" && resolve(m)),
  );
  const auth = { authorization: `Bearer ${ready.key}` };
  const jsonHeaders = { ...auth, "content-type": "application/json" };

  const accepted: Accepted[] = [];
  const statuses = new Map<number, number>();
  const byKind = new Map<string, number>();
  let replays = 0;
  const replayOriginals = new Set<string>();
  const replayed: string[] = [];
  let counter = 0;
  const tally = (kind: string) => (status: number) => {
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  };
  const onGeneration =
    (kind: string) =>
    (status: number, body: string, _context: unknown, headers: Record<string, string>) => {
      tally(kind)(status);
      if (status !== 202) {
        return;
      }
      const b = JSON.parse(body) as {
        batch: { taskId: string };
        billing: { totalCreditCost: number; balanceAfterCredits: number };
      };
      if (headers["idempotent-replayed"] === "true") {
        replays++;
        replayed.push(body);
        return;
      }
      if (kind === "replay") {
        replayOriginals.add(body); // a new record each time the previous one expired
      }
      accepted.push({
        taskId: b.batch.taskId,
        cost: b.billing.totalCreditCost,
        balanceAfter: b.billing.balanceAfterCredits,
      });
    };

  const result = await autocannon({
    url: ready.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: [
      {
        method: "POST",
        path: "/api/generations",
        headers: jsonHeaders,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            prompt: `load ${++counter}`,
            modelId: "beta2",
            imageCount: 2,
            idempotencyKey: `load-${counter}`,
          }),
        }),
        onResponse: onGeneration("new"),
      },
      {
        method: "POST",
        path: "/api/generations",
        headers: jsonHeaders,
        body: JSON.stringify({
          prompt: "the same order",
          modelId: "beta",
          idempotencyKey: "load-replay",
        }),
        onResponse: onGeneration("replay"),
      },
      {
        method: "POST",
        path: "/api/pricing/quote",
        headers: jsonHeaders,
        body: JSON.stringify({
          kind: "image",
          modelId: "alpha-img2-official",
          quality: "high",
          resolution: "4K",
        }),
        onResponse: tally("quote"),
      },
      { method: "GET", path: "/api/ping", headers: auth, onResponse: tally("ping") },
      { method: "GET", path: "/api/query/credits", headers: auth, onResponse: tally("credits") },
      {
        method: "POST",
        path: "/api/generations",
        headers: jsonHeaders,
        body: JSON.stringify({ prompt: "no key", modelId: "gamma-image-1.5", imageCount: 3 }),
        onResponse: onGeneration("unkeyed"),
      },
      {
        method: "POST",
        path: "/api/generations",
        headers: { ...auth, "content-type": "text/plain" },
        body: "{}",
        onResponse: tally("rejected"),
      },
    ],
  });

  child.send({ type: "check", accepted });
  const report = await new Promise<Extract<FromServer, { type: "report" }>>((resolve) =>
    child.on("message", (m: FromServer) => m.type === "report" && resolve(m)),
  );
  const fiveXX = [...statuses.entries()].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  const problems = [...report.problems];
  if (fiveXX > 0) {
    problems.push(`${fiveXX} answers were 5xx`);
  }
  if (result.errors > 0 || result.timeouts > 0) {
    problems.push(`${result.errors} connection errors, ${result.timeouts} timeouts`);
  }
  const replayMismatch = replayed.filter((b) => !replayOriginals.has(b)).length;
  if (replayMismatch > 0) {
    problems.push(`${replayMismatch} replays differed from the original body`);
  }
  const summary = {
    seconds: SECONDS,
    connections: CONNECTIONS,
    idempotencyTtlMs: TTL_MS,
    requests: result.requests.total,
    requestsPerSecond: {
      average: result.requests.average,
      min: result.requests.min,
      max: result.requests.max,
    },
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    statuses: Object.fromEntries(statuses),
    byKind: Object.fromEntries(byKind),
    tasksAccepted: accepted.length,
    replays,
    ...report.figures,
    ok: problems.length === 0,
    problems,
  };
  console.log(JSON.stringify(summary, null, 2));
  process.exitCode = problems.length === 0 ? 0 : 1;
}

if (process.argv.includes("--server")) {
  await runServer();
} else {
  await runClient();
}
