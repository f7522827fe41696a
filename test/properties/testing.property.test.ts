import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  catalog,
  computeCharge,
  defineCatalog,
  type ModelSpec,
  normalizeRequest,
  quote,
  validateForModel,
} from "../../src/index.js";
import {
  BREAKABLE_RULES,
  generationRequest,
  generationRequestBody,
  nearlyValidRequestBody,
  priceMultiplier,
  quoteSpec,
} from "../../src/testing/index.js";
import { multiplierText } from "../arbitraries/values.js";
import {
  bigIntHalfUp,
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_RATIOS,
  type OracleModel,
  oracleBackgrounds,
  oracleDefaultResolution,
  oraclePrice,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { expectOnly, issuesOf, verdict } from "./helpers.js";

const zeta: ModelSpec = {
  id: "zeta-1",
  aspectRatios: ["1:1", "3:1"],
  defaultAspectRatio: "1:1",
  resolutions: ["2K", "4K"],
  defaultResolution: null,
  qualities: ["high"],
  backgrounds: ["opaque"],
  maxImageCount: 6,
  maxReferenceImages: 3,
  referenceSurchargeCredits: 7,
  outputFormat: "webp",
  prices: { "2K": { high: 33 }, "4K": { high: 44 } },
};
const extended: Catalog = defineCatalog({
  ...catalog,
  models: { ...catalog.models, "zeta-1": zeta },
});

describe("imagegen-pricing/testing: the exported arbitraries, checked against the oracle", () => {
  it("N5-N13/V1-V6: generationRequestBody() gives bodies every model accepts, within the oracle's limits", () => {
    fc.assert(
      fc.property(generationRequestBody(), (body) => {
        const r = verdict(body);
        if (!r.success) {
          throw new Error(JSON.stringify(r.issues));
        }
        const m = r.output.modelId as OracleModel;
        expect(ORACLE_RATIOS[m]).toContain(r.output.aspectRatio);
        expect(oracleResolutions(m)).toContain(r.output.resolution);
        expect(oracleQualities(m)).toContain(r.output.quality);
        expect(oracleBackgrounds(m)).toContain(r.output.background);
        expect(r.output.imageCount).toBeLessThanOrEqual(ORACLE_MAX_IMAGES[m]);
        expect(r.output.inputAssetIds.length).toBeLessThanOrEqual(ORACLE_MAX_REFS[m]);
      }),
    );
  });

  it("V2: generationRequestBody({ modelId }) stays on that model and names alpha-img2's resolution", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      fc.assert(
        fc.property(generationRequestBody({ modelId }), (body) => {
          expect(verdict(body)).toMatchObject({ success: true, output: { modelId } });
          if (oracleDefaultResolution(modelId) === undefined) {
            expect(body.resolution).toBeDefined();
          }
        }),
      );
    }
    expect(() => generationRequestBody({ modelId: "nope" })).toThrow(RangeError);
  });

  it("V7: the arbitraries read a custom catalog: a made-up model's bodies validate against it", () => {
    fc.assert(
      fc.property(generationRequestBody({ catalog: extended, modelId: "zeta-1" }), (body) => {
        const r = normalizeRequest(body, { catalog: extended });
        expect(r.success && validateForModel(r.output, { catalog: extended }).success).toBe(true);
      }),
    );
    fc.assert(
      fc.property(
        nearlyValidRequestBody("V6", { catalog: extended, modelId: "zeta-1" }),
        ({ body, path }) => {
          const r = normalizeRequest(body, { catalog: extended });
          if (!r.success) {
            throw new Error(JSON.stringify(r.issues));
          }
          const issues = issuesOf(validateForModel(r.output, { catalog: extended }));
          expect(issues.map((i) => [i.path, i.code])).toEqual([[path, "too_many_references"]]);
        },
      ),
    );
  });

  for (const rule of BREAKABLE_RULES) {
    it(`${rule}: nearlyValidRequestBody("${rule}") breaks only ${rule}: every issue is at its path with one of its codes`, () => {
      fc.assert(
        fc.property(nearlyValidRequestBody(rule), (n) => {
          expect(n.rule).toBe(rule);
          expectOnly(n.body, n.path, n.codes);
        }),
      );
    });
  }

  it("V3/V6: nearlyValidRequestBody refuses a rule the chosen model cannot break, and an unknown rule", () => {
    expect(() => nearlyValidRequestBody("V6", { modelId: "beta" })).toThrow(
      /cannot break V6|can break V6/,
    );
    expect(() => nearlyValidRequestBody("V3", { modelId: "alpha-img2-official" })).toThrow(
      RangeError,
    );
    // biome-ignore lint/suspicious/noExplicitAny: an unknown rule on purpose
    expect(() => nearlyValidRequestBody("Z9" as any)).toThrow(RangeError);
    fc.assert(
      fc.property(nearlyValidRequestBody("V6"), (n) => {
        expect(n.modelId).toBe("gamma-image-1.5");
      }),
    );
  });

  it("P1-P3: quoteSpec({ priceable: true }) is always priced, at the oracle's price; { priceable: false } never", () => {
    fc.assert(
      fc.property(quoteSpec({ priceable: true }), (spec) => {
        const m = spec.modelId as OracleModel;
        const resolution = spec.resolution ?? oracleDefaultResolution(m);
        expect(quote(spec).credits).toBe(
          oraclePrice(
            m,
            resolution as string,
            spec.quality ?? "low",
            spec.referenceImageCount ?? 0,
          ),
        );
        expect(quote(spec).credits).not.toBeNull();
      }),
    );
    fc.assert(
      fc.property(quoteSpec({ priceable: false }), (spec) => {
        expect(quote(spec).credits).toBeNull();
      }),
    );
    fc.assert(
      fc.property(quoteSpec({ catalog: extended, modelId: "zeta-1", priceable: false }), (spec) => {
        expect(quote(spec, { catalog: extended }).credits).toBeNull();
      }),
    );
  });

  it("P4: priceMultiplier() gives only valid multipliers, priced exactly as the BigInt oracle says", () => {
    fc.assert(
      fc.property(quoteSpec({ priceable: true }), priceMultiplier(), (spec, multiplier) => {
        const m = spec.modelId as OracleModel;
        const subtotal = oraclePrice(
          m,
          (spec.resolution ?? oracleDefaultResolution(m)) as string,
          spec.quality ?? "low",
          spec.referenceImageCount ?? 0,
        ) as number;
        expect(quote(spec, { account: { multiplier } }).credits).toBe(
          bigIntHalfUp(subtotal, multiplierText(multiplier)),
        );
      }),
    );
  });
});

describe("laws checked with the package's own arbitraries (no oracle needed)", () => {
  it("N3: law: normalizing a generated request again changes nothing", () => {
    fc.assert(
      fc.property(generationRequest(), (request) => {
        expect(normalizeRequest(request)).toEqual({ success: true, output: request });
      }),
    );
  });

  it("P5: law: a charge's total is the sum of its lines and imageCount x quote, for any valid request and multiplier", () => {
    fc.assert(
      fc.property(generationRequest(), priceMultiplier(), (request, multiplier) => {
        const charge = computeCharge(request, { account: { multiplier } });
        expect(charge.totalCreditCost).toBe(charge.lines.reduce((s, l) => s + l.credits, 0));
        const q = quote(
          {
            kind: "image",
            modelId: request.modelId,
            resolution: request.resolution,
            quality: request.quality,
            referenceImageCount: request.inputAssetIds.length,
          },
          { account: { multiplier } },
        );
        expect(charge.totalCreditCost).toBe(request.imageCount * (q.credits as number));
      }),
    );
  });

  it("P2: law: quote never throws on a generated spec and is null exactly for the unpriceable ones, with a reason", () => {
    fc.assert(
      fc.property(quoteSpec(), (spec) => {
        const q = quote(spec);
        if (q.credits === null) {
          expect(q.reason).toMatch(/^[a-z_]+$/);
        } else {
          expect(q.credits).toBe(q.breakdown.subtotalCredits);
        }
      }),
    );
  });
});

describe("imagegen-pricing/testing stays out of the core", () => {
  it("the core entry never imports fast-check or the testing entry (fast-check is an optional peer dependency)", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const root = new URL("../../src/", import.meta.url).pathname;
    const files = (readdirSync(root, { recursive: true }) as string[]).filter(
      (f) => f.endsWith(".ts") && !f.startsWith("testing"),
    );
    expect(files).toContain("index.ts");
    for (const file of files) {
      const source = readFileSync(join(root, file), "utf8");
      // Not imported, dynamically imported or required: the name does not appear in the core at all.
      expect(source, file).not.toMatch(/["']fast-check["']/);
      expect(source, file).not.toMatch(/from\s+["'][./]*testing\//);
    }
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(pkg.peerDependencies["fast-check"]).toMatch(/^\^4/);
    expect(pkg.peerDependenciesMeta["fast-check"].optional).toBe(true);
    expect(pkg.dependencies?.["fast-check"]).toBeUndefined();
  });
});
