import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  capabilities,
  catalog,
  computeCharge,
  defineCatalog,
  type ModelSpec,
  normalizeRequest,
  quote,
  validateForModel,
} from "../../src/index.js";
import { MODEL_IDS } from "../../src/models/catalog.js";
import { CatalogSchema, ModelSpecSchema } from "../../src/models/modelSpec.js";
import {
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_RATIOS,
  oracleDefaultResolution,
} from "../oracle/seed.js";

describe("the model catalog", () => {
  it("V7: every entry parses with the valibot ModelSpec schema, and the whole catalog with CatalogSchema", () => {
    for (const spec of Object.values(catalog.models)) {
      const result = v.safeParse(ModelSpecSchema, spec);
      expect(result.issues, spec.id).toBeUndefined();
    }
    expect(v.safeParse(CatalogSchema, catalog).success).toBe(true);
    expect(defineCatalog(catalog)).toBe(catalog);
  });

  it("V7: the schema catches a typo in a price grid, a default outside the accepted values, a missing price", () => {
    const beta2 = catalog.models.beta2;
    const bad: unknown[] = [
      { ...beta2, prices: { ...beta2.prices, "4K": { low: "120" } } },
      { ...beta2, prices: { ...beta2.prices, "4K": { low: 12.5 } } },
      { ...beta2, prices: { ...beta2.prices, "4K": { low: -1 } } },
      { ...beta2, prices: { "1K": { low: 60 }, "2K": { low: 80 } } },
      { ...beta2, prices: { ...beta2.prices, "4K": { low: 120, high: 200 } } },
      { ...beta2, defaultAspectRatio: "21:9" },
      { ...beta2, defaultResolution: "8K" },
      { ...beta2, maxImageCount: 0 },
      { ...beta2, maxReferenceImages: 15 },
      { ...beta2, qualities: ["low", "low"] },
      { ...beta2, extra: 1 },
    ];
    for (const entry of bad) {
      expect(v.safeParse(ModelSpecSchema, entry).success, JSON.stringify(entry)).toBe(false);
    }
    expect(() => defineCatalog({ ...catalog, defaultModelId: "nope" })).toThrow(TypeError);
    expect(() =>
      defineCatalog({
        ...catalog,
        models: { ...catalog.models, beta2: { ...beta2, id: "beta3" } },
      }),
    ).toThrow(/own id/);
  });

  it("N5: the catalog holds exactly the eight models of the interface", () => {
    expect([...MODEL_IDS].sort()).toEqual([...ORACLE_MODEL_IDS].sort());
    expect(catalog.defaultModelId).toBe("alpha-img2-official");
    expect(catalog.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("V8: the 2.5 models record PNG output; the catalog records every model's output format", () => {
    expect(catalog.models["alpha-img2-5-flare"].outputFormat).toBe("png");
    expect(catalog.models["alpha-img2-5-sunburst"].outputFormat).toBe("png");
    for (const spec of Object.values(catalog.models)) {
      expect("outputFormat" in spec).toBe(true);
    }
    expect(capabilities("alpha-img2-5-flare")?.outputFormat).toBe("png");
  });

  it("N7: every model's default ratio is 9:16", () => {
    for (const id of MODEL_IDS) {
      expect(catalog.models[id].defaultAspectRatio).toBe("9:16");
    }
  });

  it("V1-V6: capabilities() lists exactly what each model accepts, matching the oracle", () => {
    for (const id of ORACLE_MODEL_IDS) {
      const caps = capabilities(id);
      expect(caps?.aspectRatios, id).toEqual(ORACLE_RATIOS[id]);
      expect(caps?.maxImageCount, id).toBe(ORACLE_MAX_IMAGES[id]);
      expect(caps?.maxReferenceImages, id).toBe(ORACLE_MAX_REFS[id]);
      expect(caps?.defaultResolution ?? undefined, id).toBe(oracleDefaultResolution(id));
    }
    expect(capabilities("nope")).toBeUndefined();
    expect(capabilities("__proto__")).toBeUndefined();
    expect(capabilities("toString")).toBeUndefined();
  });
});

describe("V7: a made-up model added to a copy of the catalog", () => {
  const zeta: ModelSpec = {
    id: "zeta-1",
    aspectRatios: ["1:1", "3:1"],
    defaultAspectRatio: "1:1",
    resolutions: ["2K", "4K"],
    defaultResolution: "4K",
    qualities: ["low", "high"],
    backgrounds: ["auto", "opaque"],
    maxImageCount: 6,
    maxReferenceImages: 3,
    referenceSurchargeCredits: 7,
    outputFormat: "webp",
    prices: { "2K": { low: 11, high: 33 }, "4K": { low: 22, high: 44 } },
  };
  const extended: Catalog = defineCatalog({
    ...catalog,
    models: { ...catalog.models, "zeta-1": zeta },
  });

  it("V7: is normalized with its own defaults, validated by its own limits and priced from its own grid", () => {
    const normalized = normalizeRequest({ prompt: "x", modelId: "zeta-1" }, { catalog: extended });
    expect(normalized).toMatchObject({
      success: true,
      output: { aspectRatio: "1:1", resolution: "4K" },
    });
    expect(normalizeRequest({ prompt: "x", modelId: "zeta-1" }).success).toBe(false);

    const request = {
      prompt: "x",
      modelId: "zeta-1",
      generationType: "image-to-image",
      aspectRatio: "3:1",
      resolution: "4K",
      quality: "high",
      background: "opaque",
      imageCount: 6,
      inputAssetIds: ["a", "b", "c"],
    } as const;
    // biome-ignore lint/suspicious/noExplicitAny: a made-up model id is not a built-in ModelId
    const r = request as any;
    expect(validateForModel(r, { catalog: extended }).success).toBe(true);
    const tooMuch = validateForModel(
      {
        ...r,
        aspectRatio: "9:16",
        resolution: "1K",
        quality: "medium",
        background: "transparent",
        imageCount: 7,
        inputAssetIds: ["a", "b", "c", "d"],
      },
      { catalog: extended },
    );
    expect(tooMuch.success ? [] : tooMuch.issues.map((i) => i.code)).toEqual([
      "unsupported_aspect_ratio",
      "unsupported_resolution",
      "unsupported_quality",
      "unsupported_background",
      "too_many_images",
      "too_many_references",
    ]);

    const charge = computeCharge(r, { catalog: extended, account: { multiplier: "1.5" } });
    expect(charge.perOutputCredits).toBe(98); // (44 + 3 x 7) x 1.5 = 97.5, half-up
    expect(charge.totalCreditCost).toBe(6 * 98);
    expect(
      quote(
        { kind: "image", modelId: "zeta-1", quality: "high", referenceImageCount: 3 },
        { account: { multiplier: "1.5" }, catalog: extended },
      ).credits,
    ).toBe(98);
    expect(capabilities("zeta-1", { catalog: extended })?.outputFormat).toBe("webp");
  });
});

describe("V7: the catalog schema explains what is wrong", () => {
  const beta2 = catalog.models.beta2;
  const problem = (c: unknown) => {
    try {
      defineCatalog(c as Catalog);
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  it("V7: each check of the catalog schema has its own sentence, and every problem is listed", () => {
    expect(problem({ ...catalog, defaultModelId: "nope" })).toBe(
      "Invalid catalog: (catalog): The default model must be in the catalog.",
    );
    const two = problem({
      ...catalog,
      models: {
        ...catalog.models,
        beta2: { ...beta2, qualities: ["low", "low"], defaultAspectRatio: "21:9" },
      },
    });
    expect(two).toContain("Each value may be listed once.");
    expect(two).toContain("; ");
    expect(
      problem({
        ...catalog,
        models: { ...catalog.models, beta2: { ...beta2, defaultAspectRatio: "21:9" } },
      }),
    ).toContain("The default aspect ratio must be an accepted one.");
    expect(
      problem({
        ...catalog,
        models: {
          ...catalog.models,
          beta2: { ...beta2, resolutions: ["1K"], prices: { "1K": { low: 60 } } },
        },
      }),
    ).toContain("The default resolution must be an accepted one.");
    expect(
      problem({
        ...catalog,
        models: { ...catalog.models, beta2: { ...beta2, prices: { "1K": { low: 60 } } } },
      }),
    ).toContain("Every accepted resolution x quality cell, and no other, must have a price.");
  });

  it("V7: a model id is lower-case letters, digits, dots and dashes, from its first to its last character", () => {
    for (const id of ["Zeta-1", "zeta_1", "-zeta", "zeta 1", "zeta-1!"]) {
      const result = v.safeParse(ModelSpecSchema, { ...beta2, id });
      expect(result.success, id).toBe(false);
      expect(result.issues?.[0]?.message).toBe(
        "A model id is lower-case letters, digits, dots and dashes.",
      );
    }
    expect(v.safeParse(ModelSpecSchema, { ...beta2, id: "zeta-1.5" }).success).toBe(true);
    expect(v.safeParse(CatalogSchema, catalog).success).toBe(true);
  });
});
