/**
 * What the in-memory store keeps per task. Nothing is evicted (a task is needed for its replay, S5,
 * and its refunds, S6, for as long as the process lives), so its memory grows with every task, free
 * ones (multiplier 0) included: by the prompt and a small fixed part, measured on the heap after a
 * full garbage collection (bytes, not time: the figure does not depend on the machine's load).
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createMemoryStore, createReferenceServer } from "../../src/server/index.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap bytes one more free task keeps, averaged over `count` tasks with this prompt. */
async function bytesPerTask(prompt: string, count: number): Promise<number> {
  const server = createReferenceServer({ store: createMemoryStore() });
  const { userId } = await server.admin.createUser({ credits: 0, multiplier: "0" });
  const { key } = await server.admin.createApiKey(userId);
  let sent = 0;
  const send = async () => {
    const res = await server.fetch(
      new Request("http://test/api/generations", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt, imageCount: 4, idempotencyKey: `order-${sent++}` }),
      }),
    );
    expect(res.status).toBe(202);
    await res.text();
  };
  for (let i = 0; i < 50; i++) await send(); // warm: code, caches and the first map growth
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < count; i++) await send();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  expect(await server.admin.balance(userId)).toBe(0);
  expect((await server.admin.ledger(userId)).length).toBe(0); // free: no entry, yet each task is kept
  return (after - before) / count;
}

describe("the in-memory store's growth", () => {
  it("S8: a free task with a short prompt keeps at most 4 KiB", { timeout: 60_000 }, async () => {
    const bytes = await bytesPerTask("a fox", 1000);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(4096);
  });

  it("S8: a task keeps its whole prompt (for the replay) and at most 4 KiB more, even for 12,000 emoji", {
    timeout: 60_000,
  }, async () => {
    const prompt = "🎨".repeat(12_000); // the longest prompt, in the widest characters: 48,000 bytes as UTF-16
    const bytes = await bytesPerTask(prompt, 300);
    expect(bytes).toBeGreaterThanOrEqual(prompt.length * 2);
    expect(bytes).toBeLessThanOrEqual(prompt.length * 2 + 4096);
  });
});
