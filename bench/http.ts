/**
 * HTTP on loopback: each endpoint of the reference server (through `<package>/node`'s serve())
 * against a bare node:http server that reads and parses a JSON body and answers a small JSON body.
 * The servers run in child processes, new ones for each endpoint and round, so that no load is
 * measured on a heap another load left (the in-memory store keeps every task); autocannon runs in
 * this one. Endpoints and servers alternate, one load at a time, so the two cores are shared the
 * same way for every measurement.
 *
 * Each server process also counts its garbage-collection pauses (`perf_hooks`), so that a latency
 * percentile can be told apart from the collector's work.
 *
 * Child mode: `tsx bench/http.ts child <bare|direct|reference>`; it reports its port (and a key) over IPC.
 * Compare mode (prints only): `node --import ./bench/register.mjs bench/http.ts compare [rounds] [seconds]`
 * loads accepted generations on bare node:http, the direct hono app of bench/directHono.ts and the
 * reference server in alternating rounds.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { median, percentile } from "./stats.js";

type Kind = "bare" | "direct" | "reference";
type Ready = { port: number; key: string };
/**
 * Stop-the-world collections in a server process since it started: total pause and longest pause
 * (ms); and the CPU time the process used (µs, user and system), which a busy machine stretches
 * far less than wall-clock rates.
 */
type Gc = { totalMs: number; maxMs: number; cpuUs: number };

async function child(kind: Kind): Promise<void> {
  // The longest pause is since the last report, so that each load gets its own.
  const gc: Gc = { totalMs: 0, maxMs: 0, cpuUs: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // Scavenges and full collections stop the program; incremental marking runs beside it.
      const kind = (entry.detail as { kind?: number } | null)?.kind ?? 0;
      if (
        kind !== constants.NODE_PERFORMANCE_GC_MINOR &&
        kind !== constants.NODE_PERFORMANCE_GC_MAJOR
      ) {
        continue;
      }
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
    }
  }).observe({ entryTypes: ["gc"] });
  process.on("message", (message: { gc?: boolean }) => {
    if (!message.gc) {
      return;
    }
    const cpu = process.cpuUsage();
    process.send?.({ gc: { ...gc, cpuUs: cpu.user + cpu.system } });
    gc.maxMs = 0;
  });
  if (kind === "bare") {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        let parsed: unknown = null;
        if (chunks.length > 0) {
          parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        }
        const body = JSON.stringify({
          ok: true,
          fields: parsed === null ? 0 : Object.keys(parsed as object).length,
        });
        res.writeHead(200, {
          "content-type": "application/json; charset=utf-8",
          "content-length": Buffer.byteLength(body),
        });
        res.end(body);
      });
    });
    server.listen(0, "127.0.0.1", () =>
      process.send?.({ port: (server.address() as AddressInfo).port, key: "" }),
    );
    return;
  }
  if (kind === "direct") {
    const { serve } = await import("@hono/node-server");
    const app = (await import("./directHono.js")).createDirectApp();
    serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
      process.send?.({ port: info.port, key: app.key }),
    );
    return;
  }
  const { serve } = await import("../src/node/index.js");
  const { createReferenceServer } = await import("../src/server/index.js");
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 1e15, multiplier: "1.15" });
  const { key } = await server.admin.createApiKey(userId);
  const running = await serve({ port: 0, server, handleSignals: false });
  process.send?.({ port: running.port, key } satisfies Ready);
}

/** The measured endpoints: what autocannon sends. */
const ENDPOINTS = [
  {
    name: "POST /api/pricing/quote",
    method: "POST",
    path: "/api/pricing/quote",
    body: JSON.stringify({
      kind: "image",
      modelId: "alpha-img2-official",
      resolution: "2K",
      quality: "medium",
      referenceImageCount: 1,
    }),
  },
  {
    name: "POST /api/generations",
    method: "POST",
    path: "/api/generations",
    // autocannon puts a fresh id at [<id>]: every request has its own idempotency key.
    body: JSON.stringify({
      prompt: "a watercolor fox in the snow",
      modelId: "beta2",
      imageCount: 1,
      idempotencyKey: "bench-[<id>]",
    }),
  },
  { name: "GET /api/ping", method: "GET", path: "/api/ping", body: undefined },
] as const;

/** One endpoint's numbers: the reference server and the bare server, medians over rounds. */
export type HttpResult = {
  name: string;
  rps: number;
  /** Latency percentiles in microseconds. */
  p50: number;
  p99: number;
  bareRps: number;
  bareP50: number;
  bareP99: number;
  /** Median over rounds of the reference / bare req/s of the same round. */
  ratio: number;
  /** Server CPU time per request (µs), medians over rounds. */
  cpuUs: number;
  bareCpuUs: number;
  /** Median over rounds of the bare / reference CPU per request of the same round. */
  cpuRatio: number;
  /** Garbage-collection pause per second of load (ms/s) and the longest pause (ms), medians over rounds. */
  gcMsPerS: number;
  gcMaxMs: number;
  bareGcMsPerS: number;
  bareGcMaxMs: number;
  rounds: number;
};

type Run = {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  gcMsPerS: number;
  gcMaxMs: number;
  cpuUs: number;
};

async function load(
  port: number,
  key: string,
  e: (typeof ENDPOINTS)[number],
  seconds: number,
  connections: number,
): Promise<Run> {
  const headers: Record<string, string> = { authorization: `Bearer ${key || "ck_test_bare"}` };
  if (e.body !== undefined) {
    headers["content-type"] = "application/json";
  }
  // autocannon's own percentiles are whole milliseconds; each response's time is kept here in µs.
  const latencies: number[] = [];
  const instance = autocannon({
    url: `http://127.0.0.1:${port}${e.path}`,
    method: e.method,
    headers,
    ...(e.body === undefined ? {} : { body: e.body, idReplacement: true }),
    connections,
    duration: seconds,
  });
  instance.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) =>
    latencies.push(ms * 1000),
  );
  const result = await instance;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${e.name} on port ${port}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return {
    rps: result.requests.average,
    requests: result.requests.total,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    gcMsPerS: 0,
    gcMaxMs: 0,
    cpuUs: 0,
  };
}

/** Asks a server process for its garbage-collection figures. */
function gcOf(proc: ChildProcess): Promise<Gc> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown) => {
      const gc = (m as { gc?: Gc }).gc;
      if (!gc) {
        return;
      }
      proc.off("message", onMessage);
      resolve(gc);
    };
    proc.on("message", onMessage);
    proc.send({ gc: true });
  });
}

/**
 * One measured load of a server: `warmup` seconds of the same load, then `seconds` measured, with
 * the server's CPU per request and its GC pauses over the measured part.
 */
async function measured(
  proc: ChildProcess,
  ready: Ready,
  e: (typeof ENDPOINTS)[number],
  opts: { warmup: number; seconds: number; connections: number },
): Promise<Run> {
  await load(ready.port, ready.key, e, opts.warmup, opts.connections);
  const before = await gcOf(proc);
  const run = await load(ready.port, ready.key, e, opts.seconds, opts.connections);
  const after = await gcOf(proc);
  run.gcMsPerS = (after.totalMs - before.totalMs) / opts.seconds;
  run.gcMaxMs = after.maxMs;
  run.cpuUs = (after.cpuUs - before.cpuUs) / Math.max(1, run.requests);
  return run;
}

async function start(
  kind: Kind,
  execArgv: string[],
): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(fileURLToPath(import.meta.url), ["child", kind], {
    execArgv: [...execArgv, "--import", fileURLToPath(new URL("./register.mjs", import.meta.url))],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    proc.once("message", (m) => resolve(m as Ready));
    proc.once("exit", (code) => reject(new Error(`${kind} server exited with ${code}`)));
  });
  return { proc, ready };
}

/**
 * Runs every endpoint against both servers, `rounds` times, alternating which goes first, each load
 * on new server processes.
 *
 * @param opts.seconds - Measured seconds per run (after `warmup` seconds of the same load).
 * @param opts.cpuProf - Directory for `node --cpu-prof` profiles of the reference server, if any.
 */
export async function runHttp(opts: {
  seconds: number;
  warmup: number;
  connections: number;
  rounds: number;
  cpuProf?: string;
}): Promise<HttpResult[]> {
  const runs = ENDPOINTS.map(() => ({ ref: [] as Run[], bare: [] as Run[] }));
  for (let round = 0; round < opts.rounds; round++) {
    for (const [i, e] of ENDPOINTS.entries()) {
      // New processes for each load: no load is measured on a heap that another one left behind.
      const bare = await start("bare", []);
      try {
        const ref = await start(
          "reference",
          opts.cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${opts.cpuProf}`] : [],
        );
        try {
          const order =
            round % 2 === 0 ? (["reference", "bare"] as const) : (["bare", "reference"] as const);
          for (const kind of order) {
            const { ready, proc } = kind === "bare" ? bare : ref;
            runs[i]?.[kind === "bare" ? "bare" : "ref"].push(await measured(proc, ready, e, opts));
          }
        } finally {
          await stop(ref.proc);
        }
      } finally {
        bare.proc.kill();
      }
    }
  }
  return ENDPOINTS.map((e, i) => {
    const { ref: r = [], bare: b = [] } = runs[i] ?? {};
    return {
      name: e.name,
      rps: median(r.map((x) => x.rps)),
      p50: median(r.map((x) => x.p50)),
      p99: median(r.map((x) => x.p99)),
      bareRps: median(b.map((x) => x.rps)),
      bareP50: median(b.map((x) => x.p50)),
      bareP99: median(b.map((x) => x.p99)),
      ratio: median(r.map((x, k) => x.rps / (b[k]?.rps ?? Number.NaN))),
      cpuUs: median(r.map((x) => x.cpuUs)),
      bareCpuUs: median(b.map((x) => x.cpuUs)),
      cpuRatio: median(r.map((x, k) => (b[k]?.cpuUs ?? Number.NaN) / x.cpuUs)),
      gcMsPerS: median(r.map((x) => x.gcMsPerS)),
      gcMaxMs: median(r.map((x) => x.gcMaxMs)),
      bareGcMsPerS: median(b.map((x) => x.gcMsPerS)),
      bareGcMaxMs: median(b.map((x) => x.gcMaxMs)),
      rounds: opts.rounds,
    };
  });
}

/** Ends a child with SIGINT so that `--cpu-prof` writes its profile. */
function stop(proc: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    proc.once("exit", () => resolve());
    proc.kill("SIGINT");
  });
}

/**
 * Accepted generations on bare node:http, the direct hono app and the reference server, `rounds`
 * times in alternating order (2 s of warm-up, then `seconds` measured, 10 connections); prints each
 * load and the medians: what the chosen libraries reach for this work, and what the reference
 * server costs on top.
 */
async function compare(rounds: number, seconds: number): Promise<void> {
  const kinds = ["bare", "direct", "reference"] as const;
  const servers = [];
  for (const kind of kinds) {
    servers.push(await start(kind, []));
  }
  const runs = kinds.map(() => [] as Run[]);
  const [, generations] = ENDPOINTS;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const i of round % 2 === 0 ? [0, 1, 2] : [2, 1, 0]) {
        const { proc, ready } = servers[i] as (typeof servers)[number];
        const run = await measured(proc, ready, generations, {
          warmup: 2,
          seconds,
          connections: 10,
        });
        runs[i]?.push(run);
        console.log(
          `round ${round + 1}, ${kinds[i]}: ${Math.round(run.rps)} req/s, ${run.cpuUs.toFixed(1)} µs of CPU per request`,
        );
      }
    }
    const bare = runs[0] ?? [];
    for (const [i, kind] of kinds.entries()) {
      const own = runs[i] ?? [];
      const ratio = median(own.map((run, k) => run.rps / (bare[k]?.rps ?? Number.NaN)));
      console.log(
        `${kind}: median ${Math.round(median(own.map((run) => run.rps)))} req/s, ${median(own.map((run) => run.cpuUs)).toFixed(1)} µs of CPU per request, ${ratio.toFixed(3)}x of bare`,
      );
    }
  } finally {
    for (const { proc } of servers) {
      proc.kill();
    }
  }
}

if (process.argv[2] === "compare") {
  await compare(Number(process.argv[3] ?? 3), Number(process.argv[4] ?? 10));
}

if (process.argv[2] === "child") {
  process.on("SIGINT", () => process.exit(0));
  // The benchmark is gone (ended or killed): so is this server.
  process.on("disconnect", () => process.exit(0));
  await child(process.argv[3] as Kind);
}
