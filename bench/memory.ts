/**
 * Memory and flatness of the reference server, in its own process (run with `--expose-gc`):
 * heap per stored task after N accepted generations, and the cost of one more accepted generation
 * with few versus many tasks stored (no scan may grow with history).
 *
 * Child mode: `node --expose-gc --import tsx bench/memory.ts child <tasks> <many>`; prints JSON.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { sha256Hex } from "../src/node/index.js";
import { createReferenceServer } from "../src/server/index.js";
import { median } from "./stats.js";

/** The numbers of the memory benchmark. */
export type MemoryResult = {
  tasks: number;
  /** Heap bytes per task, with and without a client idempotency key (then no claim is kept). */
  bytesPerTaskWithKey: number;
  bytesPerTaskWithoutKey: number;
  few: number;
  many: number;
  /** Median microseconds of one accepted POST /api/generations (in-process fetch) at `few` and `many` tasks stored. */
  usFew: number;
  usMany: number;
};

const gc = (globalThis as { gc?: () => void }).gc;
/** Servers measured for their heap stay reachable until measured. */
const alive: unknown[] = [];

async function makeServer() {
  const server = createReferenceServer({ hashApiKey: sha256Hex });
  const { userId } = await server.admin.createUser({ credits: 1e15 });
  const { key } = await server.admin.createApiKey(userId);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  let n = 0;
  const send = async (withKey: boolean): Promise<void> => {
    const i = n++;
    const body = JSON.stringify({
      prompt: `a watercolor fox in the snow, number ${i}`,
      modelId: "beta2",
      ...(withKey ? { idempotencyKey: `order-${i}` } : {}),
    });
    const res = await server.fetch(new Request("http://local/api/generations", { method: "POST", headers, body }));
    if (res.status !== 202) throw new Error(`status ${res.status}`);
    await res.text();
  };
  return { server, send };
}

async function heapPerTask(tasks: number, withKey: boolean): Promise<number> {
  const server = await makeServer();
  alive.push(server);
  for (let i = 0; i < 100; i++) await server.send(withKey); // every lazy path warm
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < tasks; i++) await server.send(withKey);
  gc?.();
  const perTask = (process.memoryUsage().heapUsed - before) / tasks;
  alive.pop();
  return perTask;
}

/** Median time of one request over batches, after the store holds `stored` tasks. */
async function costAt(send: (withKey: boolean) => Promise<void>, batches: number, size: number): Promise<number> {
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t = performance.now();
    for (let i = 0; i < size; i++) await send(true);
    times.push(((performance.now() - t) * 1000) / size);
  }
  return median(times);
}

async function child(tasks: number, few: number, many: number): Promise<MemoryResult> {
  if (!gc) throw new Error("run with --expose-gc");
  const bytesPerTaskWithKey = await heapPerTask(tasks, true);
  const bytesPerTaskWithoutKey = await heapPerTask(tasks, false);
  gc();
  const { send } = await makeServer();
  let stored = 0;
  while (stored < few) {
    await send(true);
    stored++;
  }
  const usFew = await costAt(send, 15, 400);
  stored += 15 * 400;
  while (stored < many) {
    await send(true);
    stored++;
  }
  gc();
  const usMany = await costAt(send, 15, 400);
  return { tasks, bytesPerTaskWithKey, bytesPerTaskWithoutKey, few, many, usFew, usMany };
}

/** Runs the memory benchmark in a child process with `--expose-gc` and enough heap. */
export async function runMemory(tasks: number, few: number, many: number): Promise<MemoryResult> {
  const proc = fork(fileURLToPath(import.meta.url), ["child", String(tasks), String(few), String(many)], {
    execArgv: ["--expose-gc", "--max-old-space-size=6144", "--import", fileURLToPath(new URL("./register.mjs", import.meta.url))],
  });
  return new Promise((resolve, reject) => {
    proc.once("message", (m) => resolve(m as MemoryResult));
    proc.once("exit", (code) => reject(new Error(`memory benchmark exited with ${code}`)));
  });
}

if (process.argv[2] === "child") {
  const [tasks, few, many] = process.argv.slice(3).map(Number) as [number, number, number];
  process.send?.(await child(tasks, few, many));
  process.exit(0);
}
