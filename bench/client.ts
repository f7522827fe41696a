/**
 * The client's cost: an accepted generation through `client.generations.create` (local check, key,
 * retry machinery) against a bare `fetch` of the same body with its own key, both on one in-memory
 * reference server in process, in interleaved rounds (the order alternates).
 */
import { Bench } from "tinybench";
import { createClient } from "../src/client/index.js";
import { createReferenceServer } from "../src/server/index.js";
import { median } from "./stats.js";

/** A typical create: one image of beta2, a prompt of a few words. */
const BODY = { prompt: "a watercolor fox in the snow", modelId: "beta2", imageCount: 1 } as const;
const BASE_URL = "http://bench.test";

/** The client's figures: creates per second through it and through a bare fetch, and their ratio. */
export type ClientResult = {
  name: string;
  baseline: string;
  ops: number;
  baselineOps: number;
  /** Median over rounds of (client ops/s / bare fetch ops/s) in the same round. */
  ratio: number;
  rounds: number;
};

/** Creates awaited one after the other per sample, so that one sample is not one promise's overhead. */
const BATCH = 16;

/**
 * Runs the client against a bare fetch, `rounds` x `time` ms each.
 *
 * @param rounds - Rounds; the order of the two alternates.
 * @param time - Milliseconds per side and round.
 * @returns The medians and the ratio.
 */
export async function runClient(rounds: number, time: number): Promise<ClientResult> {
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 2 ** 52 });
  const { key } = await server.admin.createApiKey(userId);
  const client = createClient({ apiKey: key, baseUrl: BASE_URL, fetch: server.fetch });

  // The baseline never calls the client: one request, its own key, its answer read.
  const bare = async () => {
    const idempotencyKey = globalThis.crypto.randomUUID();
    const response = await server.fetch(
      new Request(`${BASE_URL}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": idempotencyKey },
        body: JSON.stringify({ ...BODY, idempotencyKey }),
      }),
    );
    if (response.status !== 202) throw new Error(`bare fetch: ${response.status}`);
    return response.json();
  };
  const viaClient = () => client.generations.create(BODY);
  // Both do the same work: an accepted generation each.
  const [a, b] = [(await viaClient()) as { billing: unknown }, (await bare()) as { billing: { totalCreditCost: number } }];
  if (JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b)) || b.billing.totalCreditCost !== 80) {
    throw new Error("the client and the bare fetch do not do the same work");
  }

  const batch = (f: () => Promise<unknown>) => async () => {
    for (let i = 0; i < BATCH; i++) await f();
  };
  const ops: number[] = [];
  const baseOps: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({ time, warmupTime: Math.min(200, time), throws: true, iterations: 3, warmupIterations: 2 });
    const tasks = [
      ["client", batch(viaClient)],
      ["bare", batch(bare)],
    ] as const;
    for (const [label, f] of round % 2 === 0 ? tasks : [...tasks].reverse()) bench.add(label, f);
    await bench.run();
    const rate = (label: string) => {
      const result = bench.getTask(label)?.result;
      if (result?.state !== "completed") throw new Error(`client bench: ${label} did not complete`);
      return result.throughput.p50 * BATCH;
    };
    ops.push(rate("client"));
    baseOps.push(rate("bare"));
    ratios.push(rate("client") / rate("bare"));
  }
  return {
    name: "POST /api/generations through client.generations.create",
    baseline: "bare fetch of the same body",
    ops: median(ops),
    baselineOps: median(baseOps),
    ratio: median(ratios),
    rounds,
  };
}
