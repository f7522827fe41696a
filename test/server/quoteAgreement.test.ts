/**
 * One price everywhere: the quote endpoint answers what `quote` answers for every spec that is a
 * JSON object of the quote's fields, and an accepted generation debits what the quote and
 * `computeCharge` say, for random specs and accounts (S11, P2, P5, P7).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkRequest, computeCharge, type QuoteSpec, quote } from "../../src/index.js";
import { quoteSpec as priceableSpec, priceMultiplier } from "../../src/testing/index.js";
import { quoteSpec as anySpec } from "../pricing/helpers.js";
import { setup } from "./helpers.js";

/** Enough for every run's generations: at most 10 images of at most 890,000 credits each. */
const CREDITS = 1e13;

describe("the quote endpoint, quote(), computeCharge and the debit agree", () => {
  it("S11, P2: property: the endpoint answers exactly what quote() answers, priceable or not, for the caller's multiplier", async () => {
    const s = await setup({ credits: CREDITS });
    await fc.assert(
      fc.asyncProperty(anySpec, priceMultiplier(), async (spec, multiplier) => {
        await s.admin.setPriceMultiplier(s.userId, multiplier);
        const res = await s.post("/api/pricing/quote", spec);
        expect(res.status, JSON.stringify(spec)).toBe(200);
        expect(await res.json()).toEqual(quote(spec as QuoteSpec, { account: { multiplier } }));
      }),
    );
  });

  it("S11: the unpriceable specs of the interface are 200 with quote's reason and sentence, not 400", async () => {
    const s = await setup({ credits: CREDITS });
    for (const spec of [
      { kind: "image", modelId: "alpha-img2-5-flare", quality: "xhigh" },
      { kind: "image", modelId: "alpha-img2-5-sunburst", quality: "max" },
      { kind: "image", modelId: "alpha-img2-5-flare", referenceImageCount: 15 },
      { kind: "image", modelId: "beta2", resolution: "8K" },
      { kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 2 },
    ] as unknown as QuoteSpec[]) {
      const res = await s.post("/api/pricing/quote", spec);
      expect(res.status, JSON.stringify(spec)).toBe(200);
      const answer = await res.json();
      expect(answer).toEqual(quote(spec));
      expect(answer.credits).toBeNull();
    }
  });

  it("P5, P7: property: an accepted generation debits imageCount x the endpoint's quote, which is computeCharge's total", async () => {
    const s = await setup({ credits: CREDITS });
    const assets = [...s.assets];
    while (assets.length < 14) {
      assets.push((await s.admin.createAsset(s.userId)).assetId);
    }
    await fc.assert(
      fc.asyncProperty(
        priceableSpec({ priceable: true }),
        priceMultiplier(),
        fc.integer({ min: 1, max: 10 }),
        async (spec, multiplier, wanted) => {
          await s.admin.setPriceMultiplier(s.userId, multiplier);
          const account = { multiplier };
          const references = spec.referenceImageCount ?? 0;
          const body = {
            prompt: "one price everywhere",
            modelId: spec.modelId,
            ...(spec.resolution === undefined ? {} : { resolution: spec.resolution }),
            ...(spec.quality === undefined ? {} : { quality: spec.quality }),
            generationType: references > 0 ? "image-to-image" : "text-to-image",
            inputAssetIds: assets.slice(0, references),
          };
          const checked = checkRequest(body);
          if (!checked.success) {
            throw new Error(JSON.stringify(checked.issues));
          }
          // The model's own image limit (V5) bounds the count.
          const imageCount = Math.min(
            wanted,
            spec.modelId === "alpha-img2" ? 8 : spec.modelId === "gamma-image-1.5" ? 10 : 4,
          );
          const request = { ...checked.output, imageCount };

          const quoted = (await (await s.post("/api/pricing/quote", spec)).json()) as {
            credits: number | null;
          };
          const local = quote(spec, { account }).credits;
          const charge = computeCharge(request, { account });
          expect(quoted.credits).toBe(local);
          expect(charge.perOutputCredits).toBe(local);

          const before = await s.admin.balance(s.userId);
          const res = await s.generate({ ...body, imageCount });
          expect(res.status).toBe(202);
          const accepted = (await res.json()) as { billing: { totalCreditCost: number } };
          expect(accepted.billing.totalCreditCost).toBe(imageCount * (local as number));
          expect(accepted.billing.totalCreditCost).toBe(charge.totalCreditCost);
          expect(before - (await s.admin.balance(s.userId))).toBe(charge.totalCreditCost);
          // A free task (multiplier 0) moves nothing, so it has no ledger entry.
          if (charge.totalCreditCost > 0) {
            expect((await s.admin.ledger(s.userId)).at(-1)).toMatchObject({
              kind: "debit",
              credits: charge.totalCreditCost,
            });
          }
        },
      ),
    );
  });
});
