/**
 * Memory and flatness of the reference server, in its own process (run with `--expose-gc`):
 * memory per stored task after N accepted generations (on the collected heap and in array buffers,
 * where the in-memory store keeps its tasks), and the cost of one more accepted generation with few
 * versus many tasks stored (no scan may grow with history).
 *
 * Child mode: `node --expose-gc --import tsx bench/memory.ts child <tasks> <many>`; prints JSON.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createReferenceServer } from "../src/server/index.js";
import { median } from "./stats.js";

/** The numbers of the memory benchmark. */
export type MemoryResult = {
  tasks: number;
  /** Bytes per task, with and without a client idempotency key (then no claim is kept). */
  withKey: TaskBytes;
  withoutKey: TaskBytes;
  few: number;
  many: number;
  /** Median microseconds of one accepted POST /api/generations (in-process fetch) at `few` and `many` tasks stored. */
  usFew: number;
  usMany: number;
};

/** Bytes per stored task: on the collected heap, in array buffers, and both. */
export type TaskBytes = { heap: number; buffers: number; total: number };

const gc = (globalThis as { gc?: () => void }).gc;
/** Servers measured for their heap stay reachable until measured. */
const alive: unknown[] = [];

async function makeServer() {
  const server = createReferenceServer();
  let headers: Record<string, string> = {};
  /** A new user and key for the requests (after a reset, which removes them). */
  const newUser = async () => {
    const { userId } = await server.admin.createUser({ credits: 1e15 });
    const { key } = await server.admin.createApiKey(userId);
    headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  };
  await newUser();
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
  /** Empties the store (the code stays as warm as it was) and starts again with a new user. */
  const reset = async () => {
    await server.admin.reset();
    await newUser();
  };
  return { server, send, reset };
}

async function bytesPerTask(tasks: number, withKey: boolean): Promise<TaskBytes> {
  const server = await makeServer();
  alive.push(server);
  for (let i = 0; i < 3000; i++) await server.send(withKey); // every lazy path warm, the code optimized
  gc?.();
  const before = process.memoryUsage();
  for (let i = 0; i < tasks; i++) await server.send(withKey);
  gc?.();
  const after = process.memoryUsage();
  // The server stays alive: were it collected, the next measurement would count its memory freed.
  const heap = (after.heapUsed - before.heapUsed) / tasks;
  const buffers = (after.arrayBuffers - before.arrayBuffers) / tasks;
  return { heap, buffers, total: heap + buffers };
}

/** Sends accepted generations until `count` have been sent to this server since it was made or reset. */
async function fill(send: (withKey: boolean) => Promise<void>, from: number, count: number): Promise<void> {
  for (let i = from; i < count; i++) await send(true);
}

/**
 * Median time of one request on each of two servers, over batches that alternate between them (and
 * which goes first), so that a change of the machine's load or of the code's warmth falls on both.
 */
async function costsOf(
  sends: readonly [(withKey: boolean) => Promise<void>, (withKey: boolean) => Promise<void>],
  batches: number,
  size: number,
): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []];
  for (let b = 0; b < batches; b++) {
    for (const k of b % 2 === 0 ? [0, 1] : [1, 0]) {
      const send = sends[k] as (withKey: boolean) => Promise<void>;
      const t = performance.now();
      for (let i = 0; i < size; i++) await send(true);
      times[k]?.push(((performance.now() - t) * 1000) / size);
    }
  }
  return [median(times[0]), median(times[1])];
}

async function child(tasks: number, few: number, many: number): Promise<MemoryResult> {
  if (!gc) throw new Error("run with --expose-gc");
  const withKey = await bytesPerTask(tasks, true);
  const withoutKey = await bytesPerTask(tasks, false);
  gc();
  // Two servers, one with few tasks stored and one with many. The first is warmed (its code
  // optimized) by 20,000 requests, then emptied; the second by the requests that fill it.
  const small = await makeServer();
  await fill(small.send, 0, 20_000);
  await small.reset();
  await fill(small.send, 0, few);
  const large = await makeServer();
  await fill(large.send, 0, many);
  gc();
  const [usFew, usMany] = await costsOf([small.send, large.send], 15, 400);
  return { tasks, withKey, withoutKey, few, many, usFew, usMany };
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
