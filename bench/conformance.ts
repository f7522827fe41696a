/**
 * How long a full conformance run takes against the reference server over HTTP, and how many
 * requests it sends: `runConformance` with a budget of 20,000 credits, two assets and the admin
 * token, in each profile, against a reference server in a new child process each round. A figure
 * for a team that runs the kit on every push (its budget: at most 30 s), never a test.
 *
 *   node --import ./bench/register.mjs bench/conformance.ts   prints the figures
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { runConformance } from "../src/conformance/index.js";
import type { ConformanceProfile } from "../src/conformance/types.js";

/** What the server process tells the benchmark once it listens. */
type Ready = { url: string; key: string; assets: string[]; adminToken: string };

/** The figures of one profile: medians over the rounds. */
export type ConformanceResult = {
  profile: ConformanceProfile;
  /** Wall-clock milliseconds of a whole run, median. */
  ms: number;
  /** Requests one run sends. */
  requests: number;
  /** Credits one run spends, read from the balance. */
  spent: number;
  /** Rules passed, failed, skipped. */
  passed: number;
  failed: number;
  skipped: number;
};

const ADMIN_TOKEN = "conformance-bench-admin-token";

/** The server process: a reference server with one account, over HTTP on 127.0.0.1. */
async function child(): Promise<void> {
  const { createReferenceServer } = await import("../src/server/index.js");
  const { serve } = await import("../src/node/index.js");
  const server = createReferenceServer({ adminToken: ADMIN_TOKEN });
  const { userId } = await server.admin.createUser({ credits: 100_000, multiplier: "1.15" });
  const { key } = await server.admin.createApiKey(userId);
  const assets = [
    (await server.admin.createAsset(userId)).assetId,
    (await server.admin.createAsset(userId)).assetId,
  ];
  const running = await serve({ server, port: 0, host: "127.0.0.1", handleSignals: false });
  process.send?.({ url: running.url, key, assets, adminToken: ADMIN_TOKEN } satisfies Ready);
  process.on("disconnect", () => {
    void running.close().then(() => process.exit(0));
  });
}

/** Starts a server process and waits until it listens. */
async function start(): Promise<{ proc: ChildProcess; ready: Ready }> {
  const proc = fork(fileURLToPath(import.meta.url), ["child"], {
    execArgv: ["--import", fileURLToPath(new URL("./register.mjs", import.meta.url))],
  });
  const ready = await new Promise<Ready>((resolve, reject) => {
    proc.once("message", (m) => resolve(m as Ready));
    proc.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { proc, ready };
}

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * Runs the kit in each profile, `rounds` times, each run on a new server process.
 *
 * @param rounds - Runs per profile.
 * @returns The figures of each profile.
 */
export async function runConformanceBench(rounds: number): Promise<ConformanceResult[]> {
  const results: ConformanceResult[] = [];
  for (const profile of ["interface", "reference"] as const) {
    const times: number[] = [];
    let last: Awaited<ReturnType<typeof runConformance>> | undefined;
    for (let round = 0; round < rounds; round += 1) {
      const { proc, ready } = await start();
      try {
        const began = performance.now();
        last = await runConformance({
          baseUrl: ready.url,
          key: ready.key,
          assets: ready.assets,
          adminToken: ready.adminToken,
          budget: 20_000,
          profile,
        });
        times.push(performance.now() - began);
      } finally {
        proc.disconnect();
        await new Promise((resolve) => proc.once("exit", resolve));
      }
    }
    if (last) {
      const count = (status: string) => last.checks.filter((c) => c.status === status).length;
      results.push({
        profile,
        ms: median(times),
        requests: last.requests,
        spent: last.spentCredits,
        passed: count("passed"),
        failed: count("failed"),
        skipped: count("skipped"),
      });
    }
  }
  return results;
}

if (process.argv[2] === "child") {
  await child();
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const r of await runConformanceBench(3)) {
    console.log(
      `${r.profile}: ${(r.ms / 1000).toFixed(2)} s, ${r.requests} requests, ${r.spent} credits spent; ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`,
    );
  }
}
