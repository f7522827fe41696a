/**
 * Measures the node:http bridge of `imagegen-pricing/node` against a bare node:http JSON server, each in
 * its own process, with autocannon. Run: `npx tsx scripts/bench-bridge.ts [seconds] [connections]`.
 *
 * - bare:      node:http writing `{"ok":true}` itself (the 100% line)
 * - bridge:    serve() with a fetch handler answering the same JSON (what the bridge costs)
 * - reference: serve() with the reference server, GET /api/ping with a key (hashing included)
 */
import { fork } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

type Mode = "bare" | "bridge" | "reference";
type Ready = { port: number; headers: Record<string, string>; path: string };

async function child(mode: Mode): Promise<void> {
  const send = (ready: Ready) => process.send?.(ready);
  if (mode === "bare") {
    const body = JSON.stringify({ ok: true });
    const server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    server.listen(0, "127.0.0.1", () => send({ port: (server.address() as AddressInfo).port, headers: {}, path: "/" }));
    return;
  }
  const { serve } = await import("../src/node/index.js");
  if (mode === "bridge") {
    const running = await serve({
      port: 0,
      server: {
        fetch: () =>
          new Response(JSON.stringify({ ok: true }), { headers: { "content-type": "application/json; charset=utf-8" } }),
      },
    });
    send({ port: running.port, headers: {}, path: "/" });
    return;
  }
  const { createReferenceServer } = await import("../src/server/index.js");
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  const running = await serve({ port: 0, server });
  send({ port: running.port, headers: { authorization: `Bearer ${key}` }, path: "/api/ping" });
}

async function measure(mode: Mode, seconds: number, connections: number): Promise<number> {
  const proc = fork(fileURLToPath(import.meta.url), ["child", mode], { execArgv: ["--import", "tsx"] });
  try {
    const ready = await new Promise<Ready>((resolve) => proc.once("message", (m) => resolve(m as Ready)));
    const url = `http://127.0.0.1:${ready.port}${ready.path}`;
    await autocannon({ url, headers: ready.headers, connections, duration: 1 }); // warm-up
    const result = await autocannon({ url, headers: ready.headers, connections, duration: seconds });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${mode}: ${result.non2xx} non-2xx, ${result.errors} errors`);
    return result.requests.average;
  } finally {
    proc.kill();
  }
}

if (process.argv[2] === "child") {
  await child(process.argv[3] as Mode);
} else {
  // The machine is shared and small, so measure in alternating rounds and report medians.
  const seconds = Number(process.argv[2] ?? 5);
  const connections = Number(process.argv[3] ?? 50);
  const rounds = Number(process.argv[4] ?? 3);
  const runs: Record<Mode, number[]> = { bare: [], bridge: [], reference: [] };
  for (let round = 0; round < rounds; round++) {
    for (const mode of ["bare", "bridge", "reference"] as const) runs[mode].push(await measure(mode, seconds, connections));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const ratios = runs.bridge.map((b, i) => b / (runs.bare[i] ?? 1));
  const bare = median(runs.bare);
  const bridge = median(runs.bridge);
  const reference = median(runs.reference);
  const pct = (n: number) => `${((100 * n) / bare).toFixed(1)}%`;
  console.log(`${rounds} rounds of ${seconds} s, ${connections} connections; medians:`);
  console.log(`bare node:http          ${bare.toFixed(0)} req/s`);
  console.log(`serve() bridge          ${bridge.toFixed(0)} req/s  (${pct(bridge)} of bare)`);
  console.log(`serve() + reference     ${reference.toFixed(0)} req/s  (${pct(reference)} of bare, GET /api/ping)`);
  console.log(`bridge/bare per round:  ${ratios.map((r) => `${(100 * r).toFixed(1)}%`).join(", ")}`);
}
