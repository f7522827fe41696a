/**
 * The client's cost: an accepted generation through `client.generations.create` (local check, key,
 * retry machinery) against a bare `fetch` of the same body with its own key, both on one in-memory
 * reference server in process, in interleaved rounds (the order alternates), timed in wall-clock
 * and in CPU time.
 */
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
  /** Creates per second of wall-clock time, medians over rounds. */
  ops: number;
  baselineOps: number;
  /** Median over rounds of (client creates per second / bare fetch creates per second) in the same round. */
  ratio: number;
  /** The same, of creates per second of CPU time: what a shared machine disturbs far less. */
  cpuRatio: number;
  rounds: number;
};

/** Creates per side and round, awaited one after the other. */
const BATCH = 200;

/**
 * Runs the client against a bare fetch: `rounds` rounds, each a batch of creates through each (the
 * order alternating), timed in wall-clock and in CPU time.
 *
 * @param rounds - Rounds (after as many again to warm up).
 * @returns The medians and the ratios.
 */
export async function runClient(rounds: number): Promise<ClientResult> {
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
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "idempotency-key": idempotencyKey,
        },
        body: JSON.stringify({ ...BODY, idempotencyKey }),
      }),
    );
    if (response.status !== 202) {
      throw new Error(`bare fetch: ${response.status}`);
    }
    return response.json();
  };
  const viaClient = () => client.generations.create(BODY);
  // Both do the same work: an accepted generation each.
  const [a, b] = [
    (await viaClient()) as { billing: unknown },
    (await bare()) as { billing: { totalCreditCost: number } },
  ];
  if (
    JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b)) ||
    b.billing.totalCreditCost !== 80
  ) {
    throw new Error("the client and the bare fetch do not do the same work");
  }

  /** One batch: creates per second of wall-clock time and of CPU time. */
  const batch = async (f: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    const start = performance.now();
    for (let i = 0; i < BATCH; i++) {
      await f();
    }
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    return { ops: BATCH / seconds, cpuOps: BATCH / ((used.user + used.system) / 1e6) };
  };
  const ops: number[] = [];
  const baseOps: number[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < 2 * rounds; round++) {
    const first = round % 2 === 0;
    const x = first ? await batch(viaClient) : undefined;
    const y = await batch(bare);
    const c = x ?? (await batch(viaClient));
    if (round < rounds) {
      continue; // warm-up
    }
    ops.push(c.ops);
    baseOps.push(y.ops);
    ratios.push(c.ops / y.ops);
    cpuRatios.push(c.cpuOps / y.cpuOps);
  }
  return {
    name: "POST /api/generations through client.generations.create",
    baseline: "bare fetch of the same body",
    ops: median(ops),
    baselineOps: median(baseOps),
    ratio: median(ratios),
    cpuRatio: median(cpuRatios),
    rounds,
  };
}
