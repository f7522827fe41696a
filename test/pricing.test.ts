import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  computeCharge,
  Multiplier,
  type GenerationRequest,
  InvalidRequestError,
  type ModelId,
  normalizeRequest,
  type PricedQuote,
  quote,
  ROUNDING,
} from "../src/index.js";
import { multiplyAndRound, multiplyAndRoundExact, parseMultiplier } from "../src/pricing/decimal.js";
import {
  bigIntHalfUp,
  HUNDREDTHS,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PRICES,
  ORACLE_SURCHARGE,
  type OracleModel,
  oracleQualities,
  oracleResolutions,
} from "./oracle/seed.js";

const priced = (q: ReturnType<typeof quote>): PricedQuote => {
  if (q.credits === null) throw new Error(`unpriced: ${q.reason} ${q.message}`);
  return q;
};

function generation(body: Record<string, unknown>): GenerationRequest {
  const r = normalizeRequest({ prompt: "x", ...body });
  if (!r.success) throw new Error(JSON.stringify(r.issues));
  return r.output;
}

/** Every priceable cell of the oracle. */
const CELLS = ORACLE_MODEL_IDS.flatMap((modelId) =>
  oracleResolutions(modelId).flatMap((resolution) =>
    oracleQualities(modelId).map((quality) => ({ modelId, resolution, quality })),
  ),
);

describe("prices", () => {
  it("P1: every model x resolution x quality cell quotes the seed's table price at multiplier 1", () => {
    expect(CELLS).toHaveLength(1 + 3 * 9 + 4 * 3);
    for (const { modelId, resolution, quality } of CELLS) {
      const q = priced(quote({ kind: "image", modelId, resolution, quality }));
      expect(q.credits, `${modelId} ${resolution} ${quality}`).toBe(ORACLE_PRICES[modelId][resolution]?.[quality]);
      expect(q.breakdown.baseCredits).toBe(q.credits);
    }
  });

  it("P1: spot prices from the seed, typed out", () => {
    const p = (modelId: string, resolution?: string, quality?: string) =>
      quote({ kind: "image", modelId, ...(resolution && { resolution }), ...(quality && { quality }) }).credits;
    expect(p("alpha-img2", "1K")).toBe(18);
    expect(p("alpha-img2-official", "4K", "high")).toBe(750);
    expect(p("alpha-img2-5-sunburst", "2K", "medium")).toBe(120);
    expect(p("beta-pro", "2K")).toBe(80);
    expect(p("beta-pro", "4K")).toBe(100);
    expect(p("beta2", "1K")).toBe(60);
    expect(p("beta", "4K")).toBe(25);
    expect(p("gamma-image-1.5", "1K")).toBe(30);
    expect(p("alpha-img2-5-flare")).toBe(18); // 1K low by default
    expect(p("alpha-img2-official")).toBe(18); // 2K low by default
  });

  it("P2: what cannot be priced is credits: null with a reason, never a fallback price", () => {
    const reason = (spec: unknown, account?: unknown) => {
      // biome-ignore lint/suspicious/noExplicitAny: quote must survive any plain object
      const q = quote(spec as any, account as any);
      return q.credits === null ? q.reason : `priced ${q.credits}`;
    };
    expect(reason({ kind: "image", modelId: "delta" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: "__proto__" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: 7 })).toBe("unknown_model");
    expect(reason({ kind: "image" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: "alpha-img2", resolution: "2K" })).toBe("unsupported_resolution");
    expect(reason({ kind: "image", modelId: "alpha-img2", resolution: "4K" })).toBe("unsupported_resolution");
    expect(reason({ kind: "image", modelId: "alpha-img2" })).toBe("resolution_required");
    expect(reason({ kind: "image", modelId: "beta2", resolution: "8K" })).toBe("unsupported_resolution");
    expect(reason({ kind: "image", modelId: "beta2", resolution: "4k" })).toBe("unsupported_resolution");
    expect(reason({ kind: "image", modelId: "beta2", quality: "high" })).toBe("unsupported_quality");
    expect(reason({ kind: "image", modelId: "alpha-img2-official", quality: "xhigh" })).toBe("unsupported_quality");
    expect(reason({ kind: "image", modelId: "alpha-img2-official", quality: "auto" })).toBe("unsupported_quality");
    expect(reason({ kind: "image", modelId: "beta2", quality: null })).toBe("unsupported_quality"); // null is not absent
    expect(reason({ kind: "image", modelId: "beta2", resolution: null })).toBe("unsupported_resolution");
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: 1.5 })).toBe("invalid_reference_count");
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: -1 })).toBe("invalid_reference_count");
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: 15 })).toBe("invalid_reference_count");
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: "2" })).toBe("invalid_reference_count");
    expect(reason({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 2 })).toBe("too_many_references");
    expect(reason({ kind: "video", modelId: "beta2" })).toBe("invalid_kind");
    expect(reason({ modelId: "beta2" })).toBe("invalid_kind");
    expect(reason({ kind: "image", modelId: "beta2" }, { multiplier: "-1" })).toBe("invalid_multiplier");
    expect(reason(null)).toBe("invalid_spec");
    expect(reason("beta2")).toBe("invalid_spec");
    const q = quote({ kind: "image", modelId: "alpha-img2", resolution: "4K" });
    expect(q).toMatchObject({ credits: null, reason: "unsupported_resolution", message: expect.stringContaining("1K") });
  });

  it("P2: a spec's strings are trimmed; omitted resolution, quality and reference count take the defaults", () => {
    expect(quote({ kind: " image ", modelId: " beta2 ", resolution: " 4K ", quality: " low " } as never).credits).toBe(120);
    expect(priced(quote({ kind: "image", modelId: "beta2" })).breakdown).toMatchObject({
      resolution: "2K",
      quality: "low",
      referenceCount: 0,
    });
    expect(priced(quote({ kind: "image", modelId: "alpha-img2-5-flare" })).breakdown.resolution).toBe("1K");
  });

  it("P3: the three quality models add 10 base credits per reference, per output; the others nothing", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      for (let refs = 0; refs <= ORACLE_MAX_REFS[modelId]; refs++) {
        const resolution = modelId === "alpha-img2" ? "1K" : "2K";
        const q = priced(quote({ kind: "image", modelId, resolution, referenceImageCount: refs }));
        const base = ORACLE_PRICES[modelId][resolution]?.low as number;
        expect(q.credits, `${modelId} refs=${refs}`).toBe(base + ORACLE_SURCHARGE[modelId] * refs);
        expect(q.breakdown.referenceSurchargeCredits).toBe(ORACLE_SURCHARGE[modelId] * refs);
      }
    }
    expect(
      quote({ kind: "image", modelId: "alpha-img2-official", resolution: "4K", quality: "high", referenceImageCount: 14 })
        .credits,
    ).toBe(890);
  });

  it("P4: per-output amount is rounded half-up after the multiplier, exactly: beta x 2.3 = 58 (binary floats say 57)", () => {
    expect(Math.round(25 * 2.3)).toBe(57); // the trap
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: 2.3 }).credits).toBe(58);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "2.3" }).credits).toBe(58);
    expect(quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { multiplier: "1.15" }).credits).toBe(138);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "0.5" }).credits).toBe(13); // 12.5 -> 13
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "0.02" }).credits).toBe(1); // 0.5 -> 1
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "0.019999" }).credits).toBe(0);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: 0 }).credits).toBe(0);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: 1000 }).credits).toBe(25000);
    expect(ROUNDING).toBe("half-up");
  });

  it("P4: exactness over every priceable cell x every allowed reference count x multipliers 0.01..3.00 (BigInt oracle)", () => {
    let checked = 0;
    const wrong: string[] = [];
    for (const { modelId, resolution, quality } of CELLS) {
      const base = ORACLE_PRICES[modelId][resolution]?.[quality] as number;
      for (let refs = 0; refs <= ORACLE_MAX_REFS[modelId as OracleModel]; refs++) {
        const subtotal = base + ORACLE_SURCHARGE[modelId] * refs;
        for (const m of HUNDREDTHS) {
          const expected = bigIntHalfUp(subtotal, m);
          const spec = { kind: "image", modelId, resolution, quality, referenceImageCount: refs } as const;
          const fromString = quote(spec, { multiplier: m }).credits;
          const fromNumber = quote(spec, { multiplier: Number(m) }).credits;
          if (fromString !== expected || fromNumber !== expected)
            wrong.push(`${modelId} ${resolution} ${quality} refs=${refs} x ${m}`);
          checked++;
        }
      }
    }
    expect(wrong).toEqual([]);
    // alpha-img2 1 cell x 15 ref counts, quality models 3 x 9 x 15, beta family 3 x 3 x 15, gamma 3 x 2
    expect(checked).toBe(300 * (15 + 405 + 135 + 6));
  });

  it("P4: the multiplier is a plain decimal string (trimmed) or a finite number, from 0 to 1000", () => {
    const valid: [unknown, string][] = [
      [undefined, "1"],
      ["1", "1"],
      [" 1.15 ", "1.15"],
      ["0", "0"],
      ["1000", "1000"],
      ["1000.000", "1000"],
      ["007.50", "7.5"],
      [2.3, "2.3"],
      [0.1, "0.1"],
      [1e-7, "0.0000001"],
      [-0, "0"],
      [1000, "1000"],
    ];
    for (const [input, text] of valid) expect(parseMultiplier(input)?.text, String(input)).toBe(text);
    const invalid = [
      "",
      " ",
      "-1",
      "+1",
      "1e3",
      "1E-2",
      ".5",
      "1.",
      "1,5",
      "0x10",
      "NaN",
      "Infinity",
      "1000.0001",
      "١",
      -0.5,
      1000.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      true,
      {},
      [],
      10n,
    ];
    for (const input of invalid) expect(parseMultiplier(input), String(input)).toBeUndefined();
    for (const input of invalid) {
      // biome-ignore lint/suspicious/noExplicitAny: invalid on purpose
      expect(quote({ kind: "image", modelId: "beta" }, { multiplier: input as any })).toMatchObject({
        credits: null,
        reason: "invalid_multiplier",
      });
    }
  });

  it("P4: a multiplier read once with parseMultiplier prices like its text; a look-alike object is invalid", () => {
    const spec = { kind: "image", modelId: "beta2", resolution: "4K" } as const;
    const multiplier = parseMultiplier(" 1.150 ");
    if (!multiplier) throw new Error("1.150 is valid");
    expect(multiplier.text).toBe("1.15");
    expect(Multiplier.is(multiplier)).toBe(true);
    expect(parseMultiplier(multiplier)).toBe(multiplier);
    expect(quote(spec, { multiplier }).credits).toBe(138);
    expect(Object.isFrozen(multiplier)).toBe(true);
    const lookAlike = { ...multiplier, text: "0.01" };
    expect(Multiplier.is(lookAlike)).toBe(false);
    // biome-ignore lint/suspicious/noExplicitAny: a forged multiplier on purpose
    expect(quote(spec, { multiplier: lookAlike as any })).toMatchObject({ credits: null, reason: "invalid_multiplier" });
    expect(() => new Multiplier(Symbol("forged"), "0", 0n, 1n, undefined)).toThrow(TypeError);
    const request = generation({ modelId: "beta2", resolution: "4K", imageCount: 2 });
    expect(computeCharge(request, { account: { multiplier } }).totalCreditCost).toBe(276);
  });

  it("P4: a multiplier with many digits is exact, with no rounding before the last step", () => {
    // 25 x 0.01999999999999999999999999999 = 0.49999999999999999999999999975 -> 0 (20-digit precision would say 1)
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "0.01999999999999999999999999999" }).credits).toBe(0);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "0.02000000000000000000000000001" }).credits).toBe(1);
    expect(quote({ kind: "image", modelId: "beta" }, { multiplier: "2.29999999999999999999999" }).credits).toBe(57);
  });

  it("P4: the integer fast path equals decimal.js over the full grid (every subtotal 0..890 x 0.01..3.00)", () => {
    for (const m of HUNDREDTHS) {
      const multiplier = parseMultiplier(m);
      if (!multiplier) throw new Error(m);
      for (let credits = 0; credits <= 890; credits++) {
        const fast = multiplyAndRound(credits, multiplier);
        if (fast !== byDecimalJs(credits, multiplier)) expect(fast, `${credits} x ${m}`).toBe(byDecimalJs(credits, multiplier));
        if (multiplyAndRoundExact(credits, multiplier) !== fast) expect(multiplyAndRoundExact(credits, multiplier)).toBe(fast);
      }
    }
    const six = parseMultiplier("999.999999");
    if (!six) throw new Error("six");
    expect(multiplyAndRound(890, six)).toBe(byDecimalJs(890, six));
    expect(multiplyAndRound(Number.MAX_SAFE_INTEGER, six)).toBe(byDecimalJs(Number.MAX_SAFE_INTEGER, six));
  });

  it("P4: reading and multiplying equal decimal.js for any multiplier, any digits, any credits", () => {
    // decimal.js, configured to never round before the last step, is the authority the exact
    // fraction arithmetic of src/pricing/decimal.ts is proven against (docs/decisions.md, P4).
    const digits = (max: number) => fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: max });
    const asString = fc
      .tuple(digits(4), fc.option(digits(40), { nil: undefined }))
      .map(([w, f]) => (f === undefined ? w : `${w}.${f}`));
    const asNumber = fc.oneof(fc.double({ min: 0, max: 1000, noNaN: true }), fc.integer({ min: 0, max: 1000 }));
    const credits = fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.maxSafeNat());
    fc.assert(
      fc.property(fc.oneof(asString, asNumber), credits, (input, c) => {
        const text = typeof input === "number" ? String(input) : input;
        const exact = new Exact(text);
        const parsed = parseMultiplier(input);
        if (exact.greaterThan(1000)) return parsed === undefined;
        if (!parsed) return false;
        expect(parsed.text).toBe(exact.abs().toFixed());
        expect(multiplyAndRound(c, parsed)).toBe(byDecimalJs(c, parsed));
        expect(multiplyAndRoundExact(c, parsed)).toBe(byDecimalJs(c, parsed));
        return true;
      }),
    );
  });
});

/** decimal.js with enough precision that no product is rounded before the final whole-credit step. */
const Exact = Decimal.clone({ precision: 1_000_000_000, rounding: Decimal.ROUND_HALF_UP });

function byDecimalJs(credits: number, multiplier: Multiplier): number {
  return new Exact(multiplier.text).times(credits).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

describe("computeCharge", () => {
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
    expect(computeCharge(generation({ modelId: "beta", imageCount: 4 }), { account: { multiplier: 2.3 } }).totalCreditCost).toBe(
      232,
    );
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
      expect(() => computeCharge(req, { referenceCount: bad as any }), String(bad)).toThrow(InvalidRequestError);
    }
  });

  it("P6: a cost sent by the client is never used: it is an unknown field, and a charge reads no such field", () => {
    const r = normalizeRequest({ prompt: "x", totalCreditCost: 0, cost: 0, credits: 0 });
    expect(r.success).toBe(false);
    const req = generation({ modelId: "beta2" });
    const withCost = { ...req, totalCreditCost: 0, perOutputCredits: 0, credits: 1 } as GenerationRequest;
    expect(computeCharge(withCost).totalCreditCost).toBe(80);
  });

  it("P5: computeCharge throws a typed error carrying every issue on a request validateForModel rejects", () => {
    const bad = { ...generation({ modelId: "gamma-image-1.5" }), quality: "high" as const, imageCount: 11 };
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
    expect(() => computeCharge(generation({}), { account: { multiplier: "abc" } })).toThrow(/multiplier/);
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
            ...(refs > 0 && { generationType: "image-to-image", inputAssetIds: Array.from({ length: refs }, (_, i) => `a${i}`) }),
          };
          const charge = computeCharge(generation(body), { account: { multiplier } });
          const q = quote({ kind: "image", modelId, resolution, quality, referenceImageCount: refs }, { multiplier });
          expect(q.credits, `${modelId} ${resolution} ${quality} ${refs} ${multiplier}`).toBe(charge.perOutputCredits);
        }
      }
    }
  });
});
