/**
 * Heap per stored task of the reference server, with a typical short prompt, with and without a
 * client idempotency key. Run: `node --expose-gc --import tsx scripts/bench-memory.ts [tasks]`.
 */
import { createReferenceServer } from "../src/server/index.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const n = Number(process.argv[2] ?? 20_000);

async function measure(withKey: boolean): Promise<number> {
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 1_000_000_000 });
  const { key } = await server.admin.createApiKey(userId);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const send = (i: number) =>
    server.fetch(
      new Request("http://local/api/generations", {
        method: "POST",
        headers,
        body: JSON.stringify({
          prompt: `a watercolor fox in the snow, number ${i}`,
          modelId: "beta2",
          ...(withKey ? { idempotencyKey: `order-${i}-${withKey}` } : {}),
        }),
      }),
    );
  await (await send(-1)).text(); // warm every lazy path
  gc?.();
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < n; i++) await (await send(i)).text();
  gc?.();
  const after = process.memoryUsage().heapUsed;
  if ((await server.admin.balance(userId)) !== 1_000_000_000 - (n + 1) * 80) throw new Error("unexpected balance");
  return (after - before) / n;
}

console.log(`tasks: ${n}`);
console.log(`without a client key: ${(await measure(false)).toFixed(0)} bytes of heap per task`);
console.log(`with a client key:    ${(await measure(true)).toFixed(0)} bytes of heap per task (replay body kept)`);
