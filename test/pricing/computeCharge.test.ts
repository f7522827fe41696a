/** computeCharge (P4-P7): one rounded line per output image, their sum, and the checks before it. */
import { describe, expect, it } from "vitest";
import {
  computeCharge,
  type GenerationRequest,
  InvalidRequestError,
  type ModelId,
  normalizeRequest,
  type QuoteSpec,
  quote,
} from "../../src/index.js";
import { priceValidated } from "../../src/pricing/computeCharge.js";
import { ORACLE_MAX_REFS, type OracleModel } from "../oracle/seed.js";
import { CELLS, generation, ok, thrown } from "./helpers.js";

describe("computeCharge", () => {
  it("P6: computeCharge's own issues carry their path, code and message", () => {
    const request = ok({ generationType: "image-to-image", inputAssetIds: ["a", "b"] });
    const e = thrown(() => computeCharge(request, { referenceCount: 3 }));
    expect(e.name).toBe("InvalidRequestError");
    expect(e.issues).toEqual([
      {
        path: "referenceCount",
        code: "invalid_reference_count",
        message: "referenceCount must be a whole number from 0 to 2; received 3.",
      },
    ]);
    const both = thrown(() =>
      computeCharge(request, { referenceCount: -1, account: { multiplier: "x" } }),
    );
    expect(both.issues.map((i) => [i.path, i.code])).toEqual([
      ["referenceCount", "invalid_reference_count"],
      ["account.multiplier", "invalid_multiplier"],
    ]);
    expect(both.message).toBe(
      `The request cannot be charged: referenceCount: ${both.issues[0]?.message} account.multiplier: ${both.issues[1]?.message}`,
    );
  });

  it("P5: the total is the sum of the rounded per-output lines, never the rounding of a product", () => {
    // 770 x 1.15 = 885.5 -> 886 per output; 3 outputs = 2658 (rounding 2656.5 once would give 2657)
    const req = generation({
      generationType: "image-to-image",
      inputAssetIds: ["a", "b"],
      quality: "high",
      resolution: "4K",
      imageCount: 3,
    });
    const charge = computeCharge(req, { account: { multiplier: "1.15" } });
    expect(charge.perOutputCredits).toBe(886);
    expect(charge.lines).toEqual([
      { index: 0, credits: 886 },
      { index: 1, credits: 886 },
      { index: 2, credits: 886 },
    ]);
    expect(charge.totalCreditCost).toBe(2658);
    expect(charge.breakdown).toMatchObject({
      baseCredits: 750,
      referenceCount: 2,
      referenceSurchargeCredits: 20,
      subtotalCredits: 770,
      multiplier: "1.15",
    });
    // beta: 25 x 2.3 = 57.5 -> 58 per output; x4 = 232, not round(230) = 230
    expect(
      computeCharge(generation({ modelId: "beta", imageCount: 4 }), {
        account: { multiplier: 2.3 },
      }).totalCreditCost,
    ).toBe(232);
  });

  it("P6: references count after de-duplication; referenceCount (the authorized ones) overrides, up to the listed ones", () => {
    const req = generation({ generationType: "image-to-image", inputAssetIds: ["a", "a ", " b"] });
    expect(computeCharge(req).perOutputCredits).toBe(18 + 20);
    const handBuilt = { ...req, inputAssetIds: ["a", "a", "b", " b"] };
    expect(computeCharge(handBuilt).perOutputCredits).toBe(18 + 20);
    expect(computeCharge(req, { referenceCount: 1 }).perOutputCredits).toBe(18 + 10);
    expect(computeCharge(req, { referenceCount: 0 }).perOutputCredits).toBe(18);
    for (const bad of [3, -1, 1.5, Number.NaN, "2"]) {
      // biome-ignore lint/suspicious/noExplicitAny: invalid on purpose
      expect(() => computeCharge(req, { referenceCount: bad as any }), String(bad)).toThrow(
        InvalidRequestError,
      );
    }
  });

  it("P6: a cost sent by the client is never used: it is an unknown field, and a charge reads no such field", () => {
    const r = normalizeRequest({ prompt: "x", totalCreditCost: 0, cost: 0, credits: 0 });
    expect(r.success).toBe(false);
    const req = generation({ modelId: "beta2" });
    const withCost = {
      ...req,
      totalCreditCost: 0,
      perOutputCredits: 0,
      credits: 1,
    } as GenerationRequest;
    expect(computeCharge(withCost).totalCreditCost).toBe(80);
  });

  it("P5: computeCharge throws a typed error carrying every issue on a request validateForModel rejects", () => {
    const bad = {
      ...generation({ modelId: "gamma-image-1.5" }),
      quality: "high" as const,
      imageCount: 11,
    };
    try {
      computeCharge(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidRequestError);
      const e = error as InvalidRequestError;
      expect(e.code).toBe("invalid_request");
      expect(e.issues.map((i) => i.code)).toEqual(["unsupported_quality", "too_many_images"]);
      expect(e.message).toContain("imageCount");
    }
    expect(() => computeCharge(generation({}), { account: { multiplier: "abc" } })).toThrow(
      /multiplier/,
    );
  });

  it("P7: quote(spec).credits equals computeCharge's per-output amount for the same inputs", () => {
    for (const { modelId, resolution, quality } of CELLS) {
      const maxRefs = ORACLE_MAX_REFS[modelId as OracleModel];
      for (const refs of [0, 1, maxRefs]) {
        for (const multiplier of ["1", "1.15", "2.3", "0.07", 0.333]) {
          const body = {
            modelId: modelId as ModelId,
            resolution,
            quality,
            ...(refs > 0 && {
              generationType: "image-to-image",
              inputAssetIds: Array.from({ length: refs }, (_, i) => `a${i}`),
            }),
          };
          const charge = computeCharge(generation(body), { account: { multiplier } });
          const q = quote(
            { kind: "image", modelId, resolution, quality, referenceImageCount: refs } as QuoteSpec,
            { account: { multiplier } },
          );
          expect(q.credits, `${modelId} ${resolution} ${quality} ${refs} ${multiplier}`).toBe(
            charge.perOutputCredits,
          );
        }
      }
    }
  });
});

describe("priceValidated: the charge of a request already validated", () => {
  it("P5/P7: gives computeCharge's charge for a valid request, without validating the request again", () => {
    for (const body of [
      { modelId: "beta2", resolution: "4K", imageCount: 3 },
      {
        modelId: "alpha-img2-official",
        quality: "high",
        generationType: "image-to-image",
        inputAssetIds: ["a", "b"],
      },
      { modelId: "alpha-img2", resolution: "1K" },
    ]) {
      const request = generation(body);
      for (const options of [{}, { account: { multiplier: "1.15" } }, { referenceCount: 0 }]) {
        if ("referenceCount" in options && request.inputAssetIds.length === 0) {
          continue;
        }
        expect(priceValidated(request, options)).toEqual(computeCharge(request, options));
      }
    }
    // not validated again: a limit the caller already checked is not judged here (imageCount above V5's 4)
    const five = { ...generation({ modelId: "beta2" }), imageCount: 5 };
    expect(() => computeCharge(five)).toThrow(InvalidRequestError);
    expect(priceValidated(five).totalCreditCost).toBe(5 * 80);
  });

  it("P4/P6: still checks the account's multiplier, the reference count and that the cell has a price", () => {
    const request = generation({ generationType: "image-to-image", inputAssetIds: ["a"] });
    const e = thrown(() =>
      priceValidated(request, { referenceCount: 2, account: { multiplier: "-1" } }),
    );
    expect(e.issues.map((i) => [i.path, i.code])).toEqual([
      ["referenceCount", "invalid_reference_count"],
      ["account.multiplier", "invalid_multiplier"],
    ]);
    const noCell = { ...generation({ modelId: "beta2" }), quality: "high" as const };
    expect(thrown(() => priceValidated(noCell)).issues).toEqual([
      {
        path: "",
        code: "not_priceable",
        message: "beta2 has no price at resolution 2K and quality high.",
      },
    ]);
    const unknownModel = { ...generation({}), modelId: "delta" as never };
    expect(thrown(() => priceValidated(unknownModel)).issues.map((i) => i.code)).toEqual([
      "not_priceable",
    ]);
  });
});
