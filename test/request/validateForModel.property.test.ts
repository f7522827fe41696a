import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  capabilities,
  catalog,
  defineCatalog,
  type GenerationRequest,
  type ModelSpec,
  type Quality,
  quote,
  type Resolution,
  validateForModel,
} from "../../src/index.js";
import {
  distinctIds,
  setOwn,
  type ValidCase,
  validCase,
  withDuplicates,
} from "../arbitraries/requests.js";
import { padded } from "../arbitraries/text.js";
import {
  ALL_RATIOS,
  ORACLE_BACKGROUNDS,
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PUBLIC_MAX_REFS,
  ORACLE_QUALITIES,
  ORACLE_RATIOS,
  ORACLE_RESOLUTIONS,
  type OracleModel,
  oracleBackgrounds,
  oracleDefaultResolution,
  oracleOutputFormat,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { issuesOf, verdict } from "../properties/helpers.js";

type Field = "aspectRatio" | "resolution" | "quality" | "background";

/**
 * For any model, any value of `field` from the public list: the request is accepted exactly when the
 * oracle says the model accepts it, and otherwise rejected only at that field with `code`. Checked
 * through the whole pipeline (a JSON body) and on a hand-built request given to validateForModel.
 */
function acceptsExactly(
  field: Field,
  all: readonly string[],
  accepted: (m: OracleModel) => readonly string[],
  code: string,
) {
  fc.assert(
    fc.property(
      validCase().chain((c) =>
        fc.tuple(
          fc.constant(c),
          fc.constantFrom(...all).chain((v) => padded(v).map((p) => [v, p] as const)),
        ),
      ),
      ([c, [value, paddedValue]]: [ValidCase, readonly [string, string]]) => {
        const body = { ...c.body };
        setOwn(body, field, paddedValue);
        const ok = accepted(c.model).includes(value);
        const r = verdict(body);
        const handBuilt = validateForModel({ ...c.expected, [field]: value } as GenerationRequest);
        for (const result of [r, handBuilt]) {
          if (ok) {
            expect(result).toEqual({ success: true, output: { ...c.expected, [field]: value } });
          } else {
            expect(issuesOf(result)).toEqual([
              { path: field, code, message: expect.stringContaining(c.model) },
            ]);
          }
        }
      },
    ),
  );
}

describe("validateForModel: one property per rule", () => {
  it("V1: property: every model accepts exactly its ratios (2.5 models: the 15 fixed, no Auto; gamma: 5; others: Auto + 7)", () => {
    acceptsExactly("aspectRatio", ALL_RATIOS, (m) => ORACLE_RATIOS[m], "unsupported_aspect_ratio");
  });

  it("V2: property: alpha-img2 accepts only 1K; every other model 1K, 2K and 4K", () => {
    acceptsExactly("resolution", ORACLE_RESOLUTIONS, oracleResolutions, "unsupported_resolution");
  });

  it('V2: property: an omitted resolution is an issue on alpha-img2 (pass "1K") and the model\'s default elsewhere', () => {
    fc.assert(
      fc.property(validCase(), (c) => {
        const { resolution: _, ...body } = c.body;
        const { resolution: __, ...handBuilt } = c.expected;
        const fallback = oracleDefaultResolution(c.model);
        for (const result of [verdict(body), validateForModel(handBuilt as GenerationRequest)]) {
          if (fallback === undefined) {
            expect(issuesOf(result)).toEqual([
              {
                path: "resolution",
                code: "resolution_required",
                message: expect.stringContaining('"1K"'),
              },
            ]);
          } else {
            expect(result).toEqual({
              success: true,
              output: { ...c.expected, resolution: fallback },
            });
          }
        }
      }),
    );
  });

  it("V3: property: the three quality models accept low, medium and high; every other model only low", () => {
    acceptsExactly("quality", ORACLE_QUALITIES, oracleQualities, "unsupported_quality");
  });

  it("V4: property: the three quality models accept every background; every other model only auto", () => {
    acceptsExactly("background", ORACLE_BACKGROUNDS, oracleBackgrounds, "unsupported_background");
  });

  it("V5: property: imageCount is accepted up to the model's maximum (alpha-img2 8, gamma-image-1.5 10, others 4), never above", () => {
    fc.assert(
      fc.property(
        validCase().chain((c) =>
          fc.tuple(fc.constant(c), fc.integer({ min: 1, max: ORACLE_MAX_IMAGES[c.model] + 20 })),
        ),
        ([c, n]) => {
          const r = verdict({ ...c.body, imageCount: n });
          if (n <= ORACLE_MAX_IMAGES[c.model]) {
            expect(r).toEqual({ success: true, output: { ...c.expected, imageCount: n } });
          } else {
            expect(issuesOf(r)).toEqual([
              {
                path: "imageCount",
                code: "too_many_images",
                message: expect.stringContaining(String(ORACLE_MAX_IMAGES[c.model])),
              },
            ]);
          }
        },
      ),
    );
  });

  it("V6: property: distinct references are accepted up to the model's limit (gamma-image-1.5 1, others 14); duplicates count once", () => {
    fc.assert(
      fc.property(
        validCase(),
        distinctIds(1, ORACLE_PUBLIC_MAX_REFS),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
        (c, ids, copies) => {
          const list = withDuplicates(ids, copies);
          const r = verdict({ ...c.body, generationType: "image-to-image", inputAssetIds: list });
          const handBuilt = validateForModel({
            ...c.expected,
            generationType: "image-to-image",
            inputAssetIds: list,
          } as GenerationRequest);
          for (const result of [r, handBuilt]) {
            if (ids.length <= ORACLE_MAX_REFS[c.model]) {
              expect(result.success).toBe(true);
            } else {
              expect(issuesOf(result)).toEqual([
                {
                  path: "inputAssetIds",
                  code: "too_many_references",
                  message: expect.stringContaining(c.model),
                },
              ]);
            }
          }
        },
      ),
    );
  });

  it("V8: property: the catalog records each model's output format: PNG exactly on the 2.5 models, null where the service interface is silent", () => {
    fc.assert(
      fc.property(fc.constantFrom(...ORACLE_MODEL_IDS), (m) => {
        expect(catalog.models[m].outputFormat).toBe(oracleOutputFormat(m));
        expect(capabilities(m)?.outputFormat).toBe(oracleOutputFormat(m));
      }),
    );
  });
});

/** A made-up model: any non-empty subsets of the public lists, limits, a surcharge and a full price grid. */
const modelSpec: fc.Arbitrary<ModelSpec> = fc
  .record({
    aspectRatios: fc.subarray([...ALL_RATIOS], { minLength: 1 }),
    resolutions: fc.subarray(ORACLE_RESOLUTIONS, { minLength: 1 }),
    qualities: fc.subarray(ORACLE_QUALITIES, { minLength: 1 }),
    backgrounds: fc.subarray(ORACLE_BACKGROUNDS, { minLength: 1 }),
    maxImageCount: fc.integer({ min: 1, max: 12 }),
    maxReferenceImages: fc.integer({ min: 0, max: ORACLE_PUBLIC_MAX_REFS }),
    referenceSurchargeCredits: fc.integer({ min: 0, max: 50 }),
    outputFormat: fc.constantFrom(null, "png", "jpeg", "webp"),
    hasDefault: fc.boolean(),
    picks: fc.tuple(fc.nat(), fc.nat()),
    prices: fc.array(fc.integer({ min: 0, max: 2000 }), { minLength: 9, maxLength: 9 }),
  })
  .map((r) => {
    const prices: Record<string, Record<string, number>> = {};
    r.resolutions.forEach((res, i) => {
      prices[res] = {};
      r.qualities.forEach((q, j) => {
        (prices[res] as Record<string, number>)[q] = r.prices[i * 3 + j] as number;
      });
    });
    return {
      id: "zeta-1",
      aspectRatios: r.aspectRatios,
      defaultAspectRatio: r.aspectRatios[r.picks[0] % r.aspectRatios.length],
      resolutions: r.resolutions,
      defaultResolution: r.hasDefault ? r.resolutions[r.picks[1] % r.resolutions.length] : null,
      qualities: r.qualities,
      backgrounds: r.backgrounds,
      maxImageCount: r.maxImageCount,
      maxReferenceImages: r.maxReferenceImages,
      referenceSurchargeCredits: r.referenceSurchargeCredits,
      outputFormat: r.outputFormat,
      prices,
    } as ModelSpec;
  });

describe("V7: the model table drives validation and pricing", () => {
  it("V7: property: a made-up model added to a copy of the catalog is validated and priced from its own entry, with no code change", () => {
    fc.assert(
      fc.property(
        modelSpec,
        fc.record({
          aspectRatio: fc.constantFrom(...ALL_RATIOS),
          resolution: fc.constantFrom(...ORACLE_RESOLUTIONS),
          quality: fc.constantFrom(...ORACLE_QUALITIES),
          background: fc.constantFrom(...ORACLE_BACKGROUNDS),
          imageCount: fc.integer({ min: 1, max: 14 }),
          refs: fc.integer({ min: 0, max: ORACLE_PUBLIC_MAX_REFS }),
        }),
        (spec, f) => {
          const extended: Catalog = defineCatalog({
            ...catalog,
            models: { ...catalog.models, [spec.id]: spec },
          });
          const request = {
            prompt: "x",
            modelId: spec.id,
            generationType: f.refs > 0 ? "image-to-image" : "text-to-image",
            aspectRatio: f.aspectRatio,
            resolution: f.resolution,
            quality: f.quality,
            background: f.background,
            imageCount: f.imageCount,
            inputAssetIds: Array.from({ length: f.refs }, (_, i) => `a${i}`),
          } as unknown as GenerationRequest;
          const expectedPaths = [
            ...(spec.aspectRatios.includes(f.aspectRatio as never) ? [] : ["aspectRatio"]),
            ...(spec.resolutions.includes(f.resolution as never) ? [] : ["resolution"]),
            ...(spec.qualities.includes(f.quality as never) ? [] : ["quality"]),
            ...(spec.backgrounds.includes(f.background as never) ? [] : ["background"]),
            ...(f.imageCount <= spec.maxImageCount ? [] : ["imageCount"]),
            ...(f.refs <= spec.maxReferenceImages ? [] : ["inputAssetIds"]),
          ];
          expect(
            issuesOf(validateForModel(request, { catalog: extended })).map((i) => i.path),
          ).toEqual(expectedPaths);

          const base = spec.prices[f.resolution as "1K"]?.[f.quality as "low"];
          const priceable = base !== undefined && f.refs <= spec.maxReferenceImages;
          const q = quote(
            {
              kind: "image",
              modelId: spec.id,
              resolution: f.resolution as Resolution,
              quality: f.quality as Quality,
              referenceImageCount: f.refs,
            },
            { catalog: extended },
          );
          expect(q.credits).toBe(
            priceable ? (base as number) + spec.referenceSurchargeCredits * f.refs : null,
          );
          expect(capabilities(spec.id, { catalog: extended })?.outputFormat).toBe(
            spec.outputFormat,
          );
        },
      ),
    );
  });
});
