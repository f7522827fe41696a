/**
 * Property: whatever the double's faults do to a run of creates (random schedules of lost answers,
 * 503s, 500s and delays, random valid bodies, random retry and time bounds), each create is charged
 * at most once and exactly once when it resolved, the debits lie between the confirmed and the
 * attempted, every attempt carries its create's key, and the ledger reconciles (S5, S13, S17).
 */
import fc from "fast-check";
import { describe, it } from "vitest";
import {
  createClient,
  type GenerationInput,
  ImagegenError,
  type RetryEvent,
} from "../../src/client/index.js";
import { checkRequest, computeCharge } from "../../src/index.js";
import type { FaultInput } from "../../src/server/index.js";
import { generationRequestBody } from "../../src/testing/index.js";
import { type CreateOutcome, double, expectChargedOnce, IN_PROCESS, tracked } from "./helpers.js";

const fault: fc.Arbitrary<FaultInput> = fc
  .record({
    kind: fc.constantFrom("unavailable", "internal", "lose_answer", "delay"),
    times: fc.integer({ min: 1, max: 3 }),
    delayMs: fc.integer({ min: 0, max: 20 }),
    retryAfterS: fc.integer({ min: 1, max: 5 }),
  })
  .map(({ kind, times, delayMs, retryAfterS }) => ({
    kind,
    times,
    path: "/api/generations",
    ...(kind === "delay" ? { delayMs } : {}),
    ...(kind === "unavailable" ? { retryAfterMs: retryAfterS * 1000 } : {}),
  }));

/** A create of the run: a valid body, and where its key goes (the option, the body, or both). */
const create = fc.record({
  body: generationRequestBody(),
  keyIn: fc.constantFrom("option", "body", "both"),
});

describe("the client under random faults", () => {
  it("S5, S13, S17: property: each create charged at most once, exactly once when it resolves; one key per create; the ledger reconciles", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fault, { maxLength: 6 }),
        fc.array(create, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 3 }),
        // A short attempt time makes some attempts give up while the service still works on them.
        fc.constantFrom(60_000, 10),
        async (faults, creates, maxRetries, timeoutMs) => {
          const d = await double({ credits: 1e12 });
          const assets: string[] = [];
          for (let i = 0; i < 14; i++) {
            assets.push((await d.admin.createAsset(d.userId)).assetId);
          }
          for (const f of faults) {
            await d.admin.addFault(f);
          }
          const wire = tracked(d.server.fetch);
          const retries: RetryEvent[] = [];
          const client = createClient({
            apiKey: d.key,
            baseUrl: IN_PROCESS,
            fetch: wire.fetch,
            maxRetries,
            timeoutMs,
            maxRetryDelayMs: 0,
            onRetry: (event) => retries.push(event),
          });

          const outcomes: CreateOutcome[] = [];
          for (const [i, { body: generated, keyIn }] of creates.entries()) {
            const body = withOwnAssets(generated, assets);
            const checked = checkRequest(body);
            if (!checked.success) {
              throw new Error(
                `generationRequestBody gave an invalid body: ${JSON.stringify(checked.issues)}`,
              );
            }
            const cost = computeCharge(checked.output).totalCreditCost;
            const key = keyIn === "option" ? globalThis.crypto.randomUUID() : `order-${i}`;
            const sent = keyIn === "option" ? body : { ...body, idempotencyKey: key };
            try {
              const accepted = await client.generations.create(
                sent,
                keyIn === "body" ? {} : { idempotencyKey: key },
              );
              outcomes.push({
                key,
                cost,
                attempts: retries.filter((r) => r.idempotencyKey === key).length + 1,
                accepted,
              });
            } catch (error) {
              if (!(error instanceof ImagegenError)) {
                throw error;
              }
              outcomes.push({ key, cost, attempts: error.attempts, error });
            }
          }
          // Attempts the client gave up on may still be running on the service.
          await wire.idle();
          await expectChargedOnce(d.server, d.userId, outcomes);
        },
      ),
    );
  });
});

/** The body with its references replaced by assets the user owns (copies kept as copies), and no key of its own. */
function withOwnAssets(body: Record<string, unknown>, assets: readonly string[]): GenerationInput {
  const { idempotencyKey: _, ...rest } = body;
  const ids = rest.inputAssetIds as string[] | undefined;
  if (ids === undefined) {
    return rest as GenerationInput;
  }
  const distinct = [...new Set(ids.map((id) => id.trim()))];
  const own = {
    ...rest,
    inputAssetIds: ids.map((id) => assets[distinct.indexOf(id.trim())] as string),
  };
  return own as unknown as GenerationInput;
}
