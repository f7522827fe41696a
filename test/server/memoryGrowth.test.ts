/**
 * What the in-memory store keeps per task. Nothing is evicted (a task is needed for its replay, S5,
 * and its refunds, S6, for as long as the process lives), so its memory grows with every task, free
 * ones (multiplier 0) included: by the prompt and a small fixed part, measured after a full garbage
 * collection (bytes, not time: the figure does not depend on the machine's load). The store keeps
 * tasks outside the collected heap, in array buffers: the memory counted is the heap's and the
 * array buffers', and the heap's own share stays near nothing.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { createReferenceServer } from "../../src/server/index.js";
import { createMemoryStore } from "../../src/store/memory.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** The bytes in use on the collected heap and in array buffers. */
function used(): { heap: number; buffers: number } {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heap: heapUsed, buffers: arrayBuffers };
}

/**
 * Bytes one more free task keeps (on the heap, in array buffers and in all), averaged over `count`
 * tasks with this prompt, after `warm` tasks (code compiled and optimized, which takes heap too).
 */
async function bytesPerTask(
  prompt: string,
  warm: number,
  count: number,
): Promise<{ heap: number; buffers: number; total: number }> {
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
  for (let i = 0; i < warm; i++) await send();
  gc();
  gc();
  const before = used();
  for (let i = 0; i < count; i++) await send();
  gc();
  gc();
  const after = used();
  expect(await server.admin.balance(userId)).toBe(0);
  expect((await server.admin.ledger(userId)).length).toBe(0); // free: no entry, yet each task is kept
  const heap = (after.heap - before.heap) / count;
  const buffers = (after.buffers - before.buffers) / count;
  return { heap, buffers, total: heap + buffers };
}

describe("the in-memory store's growth", () => {
  it("S8: a free task with a short prompt keeps at most 4 KiB, and at most 64 bytes of it on the collected heap", {
    timeout: 60_000,
  }, async () => {
    // Enough tasks to fill several of the store's 256 KiB chunks of bytes.
    const bytes = await bytesPerTask("a fox", 3000, 5000);
    expect(bytes.total).toBeGreaterThan(100); // the task is kept: its fields are more than 100 bytes of UTF-8
    expect(bytes.total).toBeLessThanOrEqual(4096);
    expect(bytes.heap).toBeLessThanOrEqual(64);
  });

  it("S8: a task keeps its whole prompt (for the replay) and at most 4 KiB more, even for 12,000 emoji", {
    timeout: 60_000,
  }, async () => {
    const prompt = "🎨".repeat(12_000); // the longest prompt, in the widest characters: 48,000 bytes as UTF-16
    const bytes = await bytesPerTask(prompt, 50, 1000);
    expect(bytes.buffers).toBeGreaterThanOrEqual(prompt.length * 2); // UTF-8: four bytes per emoji, two per UTF-16 unit
    expect(bytes.total).toBeLessThanOrEqual(prompt.length * 2 + 4096);
    expect(bytes.heap).toBeLessThanOrEqual(256);
  });
});
