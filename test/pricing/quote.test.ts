/** quote (P1-P4): the price of one output image for an account, or why a spec has none. */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type Catalog,
  catalog,
  computeCharge,
  defineCatalog,
  type ModelId,
  type ModelSpec,
  type PricedQuote,
  type Quality,
  type QuoteSpec,
  quote,
  type Resolution,
} from "../../src/index.js";
import { ROUNDING } from "../../src/pricing/multiplier.js";
import {
  bigIntHalfUp,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PRICES,
  ORACLE_SURCHARGE,
  type OracleModel,
} from "../oracle/seed.js";
import { CELLS, GRID_MULTIPLIERS, ok, thrown, timeFor } from "./helpers.js";

const priced = (q: ReturnType<typeof quote>): PricedQuote => {
  if (q.credits === null) {
    throw new Error(`unpriced: ${q.reason} ${q.message}`);
  }
  return q;
};

describe("prices", () => {
  it("P1: every model x resolution x quality cell quotes the table price (P1) at multiplier 1", () => {
    expect(CELLS).toHaveLength(1 + 3 * 9 + 4 * 3);
    for (const { modelId, resolution, quality } of CELLS) {
      const q = priced(quote({ kind: "image", modelId, resolution, quality } as QuoteSpec));
      expect(q.credits, `${modelId} ${resolution} ${quality}`).toBe(
        ORACLE_PRICES[modelId][resolution]?.[quality],
      );
      expect(q.breakdown.baseCredits).toBe(q.credits);
    }
  });

  it("P1: spot prices from the P1 table, typed out", () => {
    const p = (modelId: string, resolution?: Resolution, quality?: Quality) =>
      quote({
        kind: "image",
        modelId,
        ...(resolution && { resolution }),
        ...(quality && { quality }),
      }).credits;
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
      const q = quote(spec as any, { account: account as any });
      return q.credits === null ? q.reason : `priced ${q.credits}`;
    };
    expect(reason({ kind: "image", modelId: "delta" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: "__proto__" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: 7 })).toBe("unknown_model");
    expect(reason({ kind: "image" })).toBe("unknown_model");
    expect(reason({ kind: "image", modelId: "alpha-img2", resolution: "2K" })).toBe(
      "unsupported_resolution",
    );
    expect(reason({ kind: "image", modelId: "alpha-img2", resolution: "4K" })).toBe(
      "unsupported_resolution",
    );
    expect(reason({ kind: "image", modelId: "alpha-img2" })).toBe("resolution_required");
    expect(reason({ kind: "image", modelId: "beta2", resolution: "8K" })).toBe(
      "unsupported_resolution",
    );
    expect(reason({ kind: "image", modelId: "beta2", resolution: "4k" })).toBe(
      "unsupported_resolution",
    );
    expect(reason({ kind: "image", modelId: "beta2", quality: "high" })).toBe(
      "unsupported_quality",
    );
    expect(reason({ kind: "image", modelId: "alpha-img2-official", quality: "xhigh" })).toBe(
      "unsupported_quality",
    );
    expect(reason({ kind: "image", modelId: "alpha-img2-official", quality: "auto" })).toBe(
      "unsupported_quality",
    );
    expect(reason({ kind: "image", modelId: "beta2", quality: null })).toBe("unsupported_quality"); // null is not absent
    expect(reason({ kind: "image", modelId: "beta2", resolution: null })).toBe(
      "unsupported_resolution",
    );
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: 1.5 })).toBe(
      "invalid_reference_count",
    );
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: -1 })).toBe(
      "invalid_reference_count",
    );
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: 15 })).toBe(
      "invalid_reference_count",
    );
    expect(reason({ kind: "image", modelId: "beta2", referenceImageCount: "2" })).toBe(
      "invalid_reference_count",
    );
    expect(reason({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 2 })).toBe(
      "too_many_references",
    );
    expect(reason({ kind: "video", modelId: "beta2" })).toBe("invalid_kind");
    expect(reason({ modelId: "beta2" })).toBe("invalid_kind");
    expect(reason({ kind: "image", modelId: "beta2" }, { multiplier: "-1" })).toBe(
      "invalid_multiplier",
    );
    expect(reason(null)).toBe("invalid_spec");
    expect(reason("beta2")).toBe("invalid_spec");
    const q = quote({ kind: "image", modelId: "alpha-img2", resolution: "4K" });
    expect(q).toMatchObject({
      credits: null,
      reason: "unsupported_resolution",
      message: expect.stringContaining("1K"),
    });
  });

  it("P2: a spec's strings are trimmed; omitted resolution, quality and reference count take the defaults", () => {
    expect(
      quote({ kind: " image ", modelId: " beta2 ", resolution: " 4K ", quality: " low " } as never)
        .credits,
    ).toBe(120);
    expect(priced(quote({ kind: "image", modelId: "beta2" })).breakdown).toMatchObject({
      resolution: "2K",
      quality: "low",
      referenceCount: 0,
    });
    expect(
      priced(quote({ kind: "image", modelId: "alpha-img2-5-flare" })).breakdown.resolution,
    ).toBe("1K");
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
      quote({
        kind: "image",
        modelId: "alpha-img2-official",
        resolution: "4K",
        quality: "high",
        referenceImageCount: 14,
      }).credits,
    ).toBe(890);
  });

  it("P4: per-output amount is rounded half-up after the multiplier, exactly: beta x 2.3 = 58 (binary floats say 57)", () => {
    expect(Math.round(25 * 2.3)).toBe(57); // the trap
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: 2.3 } }).credits,
    ).toBe(58);
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: "2.3" } }).credits,
    ).toBe(58);
    expect(
      quote(
        { kind: "image", modelId: "beta2", resolution: "4K" },
        { account: { multiplier: "1.15" } },
      ).credits,
    ).toBe(138);
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: "0.5" } }).credits,
    ).toBe(13); // 12.5 -> 13
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: "0.02" } }).credits,
    ).toBe(1); // 0.5 -> 1
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: "0.019999" } }).credits,
    ).toBe(0);
    expect(quote({ kind: "image", modelId: "beta" }, { account: { multiplier: 0 } }).credits).toBe(
      0,
    );
    expect(
      quote({ kind: "image", modelId: "beta" }, { account: { multiplier: 1000 } }).credits,
    ).toBe(25000);
    expect(ROUNDING).toBe("half-up");
  });

  // alpha-img2 1 cell x 15 ref counts, quality models 3 x 9 x 15, beta family 3 x 3 x 15, gamma 3 x 2
  const gridCases = GRID_MULTIPLIERS.length * (15 + 405 + 135 + 6);
  it(
    "P4: exactness over every priceable cell x every allowed reference count x multipliers 0.01..3.00 (BigInt oracle)",
    () => {
      let checked = 0;
      const wrong: string[] = [];
      for (const { modelId, resolution, quality } of CELLS) {
        const base = ORACLE_PRICES[modelId][resolution]?.[quality] as number;
        for (let refs = 0; refs <= ORACLE_MAX_REFS[modelId as OracleModel]; refs++) {
          const subtotal = base + ORACLE_SURCHARGE[modelId] * refs;
          for (const m of GRID_MULTIPLIERS) {
            const expected = bigIntHalfUp(subtotal, m);
            const spec = {
              kind: "image",
              modelId,
              resolution,
              quality,
              referenceImageCount: refs,
            } as QuoteSpec;
            const fromString = quote(spec, { account: { multiplier: m } }).credits;
            const fromNumber = quote(spec, { account: { multiplier: Number(m) } }).credits;
            if (fromString !== expected || fromNumber !== expected) {
              wrong.push(`${modelId} ${resolution} ${quality} refs=${refs} x ${m}`);
            }
            checked++;
          }
        }
      }
      expect(wrong).toEqual([]);
      expect(checked).toBe(gridCases);
    },
    timeFor(gridCases),
  );
});

describe("quote: corners", () => {
  it("P2: a spec's resolution and quality are typed as the public lists, its model id as any catalog's", () => {
    // @ts-expect-error "8K" is not a resolution, so a typo does not compile
    const eightK: QuoteSpec = { kind: "image", modelId: "beta2", resolution: "8K" };
    // @ts-expect-error "ultra" is not a quality
    const ultra: QuoteSpec = { kind: "image", modelId: "beta2", quality: "ultra" };
    // A custom catalog's model id is any string, so an unknown one compiles and has no price.
    const custom: QuoteSpec = { kind: "image", modelId: "beta3" };
    expectTypeOf<ModelId>().toExtend<QuoteSpec["modelId"]>();
    expectTypeOf<QuoteSpec["resolution"]>().toEqualTypeOf<Resolution | undefined>();
    expectTypeOf<QuoteSpec["quality"]>().toEqualTypeOf<Quality | undefined>();
    // Values read at run time are still judged (P2).
    expect(quote(eightK)).toMatchObject({ credits: null, reason: "unsupported_resolution" });
    expect(quote(ultra)).toMatchObject({ credits: null, reason: "unsupported_quality" });
    expect(quote(custom)).toMatchObject({ credits: null, reason: "unknown_model" });
  });

  it("P2: a modelId that is not a string is an unknown model, even one that names a model when converted", () => {
    for (const modelId of [["beta2"], { toString: () => "beta2" }, 7]) {
      expect(quote({ kind: "image", modelId } as never)).toMatchObject({
        credits: null,
        reason: "unknown_model",
      });
    }
  });

  it("P2: an unsupported resolution, quality or reference count says which, with the model's values", () => {
    expect(quote({ kind: "image", modelId: "alpha-img2", resolution: "2K" })).toMatchObject({
      reason: "unsupported_resolution",
      message: 'resolution "2K" is not supported by alpha-img2; use one of 1K.',
    });
    expect(quote({ kind: "image", modelId: "beta2", quality: "high" })).toMatchObject({
      reason: "unsupported_quality",
      message: 'quality "high" is not supported by beta2; use one of low.',
    });
    expect(quote({ kind: "image", modelId: "beta2", referenceImageCount: 1.5 })).toMatchObject({
      reason: "invalid_reference_count",
      message: "referenceImageCount must be a whole number from 0 to 14; received 1.5.",
    });
  });

  it("P2/V7: a catalog that skipped defineCatalog and lacks a price is 'not priceable', never a crash or a fallback", () => {
    const beta2 = catalog.models.beta2;
    const holes: Catalog = {
      ...catalog,
      models: {
        ...catalog.models,
        beta2: { ...beta2, prices: { "1K": { low: 60 }, "2K": {} } } as ModelSpec,
      },
    };
    for (const resolution of ["2K", "4K"] as const) {
      const q = quote({ kind: "image", modelId: "beta2", resolution }, { catalog: holes });
      expect(q).toMatchObject({
        credits: null,
        reason: "not_priceable",
        message: `beta2 has no price at resolution ${resolution} and quality low.`,
      });
      const e = thrown(() =>
        computeCharge(ok({ modelId: "beta2", resolution }), { catalog: holes }),
      );
      expect(e.issues).toEqual([
        {
          path: "",
          code: "not_priceable",
          message: `beta2 has no price at resolution ${resolution} and quality low.`,
        },
      ]);
    }
    expect(
      quote({ kind: "image", modelId: "beta2", resolution: "1K" }, { catalog: holes }).credits,
    ).toBe(60);
  });

  it("P2: an omitted quality means low, and a model that does not offer low says unsupported_quality", () => {
    const highOnly: ModelSpec = {
      id: "zeta-1",
      aspectRatios: ["1:1"],
      defaultAspectRatio: "1:1",
      resolutions: ["2K"],
      defaultResolution: "2K",
      qualities: ["high"],
      backgrounds: ["auto"],
      maxImageCount: 2,
      maxReferenceImages: 0,
      referenceSurchargeCredits: 0,
      outputFormat: null,
      prices: { "2K": { high: 40 } },
    };
    const custom = defineCatalog({ ...catalog, models: { ...catalog.models, "zeta-1": highOnly } });
    expect(quote({ kind: "image", modelId: "zeta-1" }, { catalog: custom })).toMatchObject({
      credits: null,
      reason: "unsupported_quality",
      message: 'quality "low" is not supported by zeta-1; use one of high.',
    });
    expect(
      // @ts-expect-error a quality with spaces around it is not a Quality; quote trims it (N3)
      quote({ kind: "image", modelId: "zeta-1", quality: " high " }, { catalog: custom }).credits,
    ).toBe(40);
  });
});
