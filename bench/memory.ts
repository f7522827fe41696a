/**
 * Memory per stored task of the reference server on the in-memory store, in its own process (run
 * with `--expose-gc`): the bytes in use after N accepted generations, with and without a client
 * idempotency key, divided by N. A figure, not a budget.
 *
 * Child mode: `node --expose-gc --import ./bench/register.mjs bench/memory.ts child <tasks>`; prints JSON.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createReferenceServer } from "../src/server/index.js";

/** The numbers of the memory benchmark. */
export type MemoryResult = {
  tasks: number;
  /** Bytes per task (collected heap and array buffers) with a client idempotency key, so a claim is kept. */
  withKey: number;
  /** Bytes per task without a client key: no claim. */
  withoutKey: number;
};

/** Tasks sent before measuring: every lazy path taken and the code optimized (which takes heap too). */
const WARM = 3000;

const gc = (globalThis as { gc?: () => void }).gc;
/** Servers measured stay reachable: were one collected, the next measurement would count its memory freed. */
const alive: unknown[] = [];

/**
 * The heap and array buffers in use once collected. Collections alternate with turns of the event
 * loop: a `Request` made in process registers with undici's FinalizationRegistry, and what it holds
 * is freed only by a finalizer, which runs in a later turn (and WeakRef targets stay alive until
 * the current job ends).
 */
async function used(collect: () => void): Promise<number> {
  for (let i = 0; i < 4; i++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  collect();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

async function bytesPerTask(tasks: number, withKey: boolean, collect: () => void): Promise<number> {
  const server = createReferenceServer();
  alive.push(server);
  const { userId } = await server.admin.createUser({ credits: 1e15 });
  const { key } = await server.admin.createApiKey(userId);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const send = async (i: number): Promise<void> => {
    const body = JSON.stringify({
      prompt: `a watercolor fox in the snow, number ${i}`,
      modelId: "beta2",
      ...(withKey ? { idempotencyKey: `order-${i}` } : {}),
    });
    const res = await server.fetch(
      new Request("http://local/api/generations", { method: "POST", headers, body }),
    );
    if (res.status !== 202) {
      throw new Error(`status ${res.status}`);
    }
    await res.text();
  };
  for (let i = 0; i < WARM; i++) {
    await send(i);
  }
  const before = await used(collect);
  for (let i = WARM; i < WARM + tasks; i++) {
    await send(i);
  }
  return ((await used(collect)) - before) / tasks;
}

async function child(tasks: number): Promise<MemoryResult> {
  if (!gc) {
    throw new Error("run with --expose-gc");
  }
  const withKey = await bytesPerTask(tasks, true, gc);
  const withoutKey = await bytesPerTask(tasks, false, gc);
  return { tasks, withKey, withoutKey };
}

/**
 * Runs the memory benchmark in a child process with `--expose-gc`.
 *
 * @param tasks - Accepted generations measured per case.
 * @returns Bytes per stored task, with and without a client key.
 */
export async function runMemory(tasks: number): Promise<MemoryResult> {
  const proc = fork(fileURLToPath(import.meta.url), ["child", String(tasks)], {
    execArgv: [
      "--expose-gc",
      "--import",
      fileURLToPath(new URL("./register.mjs", import.meta.url)),
    ],
  });
  return new Promise((resolve, reject) => {
    proc.once("message", (m) => resolve(m as MemoryResult));
    proc.once("exit", (code) => reject(new Error(`memory benchmark exited with ${code}`)));
  });
}

if (process.argv[2] === "child") {
  process.send?.(await child(Number(process.argv[3])));
  process.exit(0);
}
