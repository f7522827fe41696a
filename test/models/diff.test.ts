import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  type CatalogChange,
  catalog,
  diffCatalogs,
  type ModelSpec,
} from "../../src/index.js";
import { changeValue, describeCatalogChange, percentChange } from "../../src/models/diff.js";
import { ASPECT_RATIOS, BACKGROUNDS, QUALITIES, RESOLUTIONS } from "../../src/models/lists.js";
import { copy } from "./arbitraries.js";

type Loose = Record<string, unknown>;
type LooseModel = Loose & { prices: Record<string, Record<string, number>> };
type LooseCatalog = { version: string; defaultModelId: string; models: Record<string, LooseModel> };

/** Applies a diff to a copy of `before`, field by field, independently of how diffCatalogs works. */
function applyChanges(before: Catalog, changes: readonly CatalogChange[]): LooseCatalog {
  const out = copy(before) as unknown as LooseCatalog;
  for (const change of changes) {
    if (change.kind === "default_model") {
      out.defaultModelId = change.after;
      continue;
    }
    if (change.kind === "model_added") {
      out.models[change.modelId] = JSON.parse(JSON.stringify(change.after));
      continue;
    }
    if (change.kind === "model_removed") {
      delete out.models[change.modelId];
      continue;
    }
    const model = out.models[change.modelId] as LooseModel;
    expect(model, change.modelId).toBeDefined();
    if (change.kind === "price") {
      expect(model.prices[change.resolution]?.[change.quality] ?? null).toBe(change.before);
      if (change.after === null) {
        delete model.prices[change.resolution]?.[change.quality];
        if (Object.keys(model.prices[change.resolution] ?? {}).length === 0) {
          delete model.prices[change.resolution];
        }
      } else {
        model.prices[change.resolution] ??= {};
        (model.prices[change.resolution] as Record<string, number>)[change.quality] = change.after;
      }
      continue;
    }
    expect(model[change.field]).toEqual(change.before);
    model[change.field] = Array.isArray(change.after) ? [...change.after] : change.after;
  }
  return out;
}

const MODEL_IDS = Object.keys(catalog.models);
const subList = <T>(values: readonly T[]) => fc.shuffledSubarray([...values], { minLength: 1 });

/** One edit of a catalog, of any kind diffCatalogs reports (the result need not be a valid catalog). */
const edit = fc.oneof(
  fc.record({
    type: fc.constant("price" as const),
    model: fc.constantFrom(...MODEL_IDS),
    resolution: fc.constantFrom(...RESOLUTIONS),
    quality: fc.constantFrom(...QUALITIES),
    credits: fc.option(fc.integer({ min: 0, max: 3000 })),
  }),
  fc.record({
    type: fc.constant("field" as const),
    model: fc.constantFrom(...MODEL_IDS),
    set: fc.oneof(
      fc.record({
        field: fc.constant("referenceSurchargeCredits"),
        value: fc.integer({ min: 0, max: 40 }),
      }),
      fc.record({
        field: fc.constantFrom("maxImageCount", "maxReferenceImages"),
        value: fc.integer({ min: 0, max: 14 }),
      }),
      fc.record({ field: fc.constant("aspectRatios"), value: subList(ASPECT_RATIOS) }),
      fc.record({ field: fc.constant("resolutions"), value: subList(RESOLUTIONS) }),
      fc.record({ field: fc.constant("qualities"), value: subList(QUALITIES) }),
      fc.record({ field: fc.constant("backgrounds"), value: subList(BACKGROUNDS) }),
      fc.record({
        field: fc.constant("defaultAspectRatio"),
        value: fc.constantFrom(...ASPECT_RATIOS),
      }),
      fc.record({
        field: fc.constant("defaultResolution"),
        value: fc.constantFrom(null, ...RESOLUTIONS),
      }),
      fc.record({
        field: fc.constant("outputFormat"),
        value: fc.constantFrom(null, "png", "jpeg", "webp"),
      }),
    ),
  }),
  fc.record({ type: fc.constant("remove" as const), model: fc.constantFrom(...MODEL_IDS) }),
  fc.record({
    type: fc.constant("add" as const),
    model: fc.constantFrom(...MODEL_IDS),
    id: fc.constantFrom("delta", "delta-2"),
  }),
  fc.record({ type: fc.constant("default" as const), model: fc.constantFrom(...MODEL_IDS) }),
);

/** The built-in catalog with random edits. */
const edited: fc.Arbitrary<Catalog> = fc.array(edit, { maxLength: 10 }).map((edits) => {
  const c = copy(catalog) as unknown as LooseCatalog;
  for (const e of edits) {
    const model = c.models[e.model];
    if (e.type === "default") {
      c.defaultModelId = e.model;
    } else if (!model) {
    } else if (e.type === "remove") {
      delete c.models[e.model];
    } else if (e.type === "add") {
      c.models[e.id] = { ...JSON.parse(JSON.stringify(model)), id: e.id };
    } else if (e.type === "field") {
      model[e.set.field] = e.set.value;
    } else if (e.credits === null) {
      delete model.prices[e.resolution]?.[e.quality];
      if (Object.keys(model.prices[e.resolution] ?? {}).length === 0) {
        delete model.prices[e.resolution];
      }
    } else {
      model.prices[e.resolution] ??= {};
      (model.prices[e.resolution] as Record<string, number>)[e.quality] = e.credits;
    }
  }
  return c as unknown as Catalog;
});

const KIND_RANK: Record<CatalogChange["kind"], number> = {
  default_model: -1,
  model_added: 0,
  model_removed: 0,
  price: 0,
  surcharge: 1,
  limit: 2,
  accepted_values: 3,
  default: 4,
  output_format: 5,
};
const FIELD_RANK = [
  "maxImageCount",
  "maxReferenceImages",
  "aspectRatios",
  "resolutions",
  "qualities",
  "backgrounds",
  "defaultAspectRatio",
  "defaultResolution",
];

/** Where a change sits in the documented order. */
function rank(change: CatalogChange, models: readonly string[]): number[] {
  const cell =
    change.kind === "price"
      ? RESOLUTIONS.indexOf(change.resolution) * 3 + QUALITIES.indexOf(change.quality)
      : 0;
  const field = change.field === null ? 0 : FIELD_RANK.indexOf(change.field);
  return [
    change.modelId === null ? -1 : models.indexOf(change.modelId),
    KIND_RANK[change.kind],
    cell,
    field,
  ];
}

const withBeta2 = (patch: Partial<ModelSpec>): Catalog =>
  ({
    ...catalog,
    version: "2027-01-01",
    models: { ...catalog.models, beta2: { ...catalog.models.beta2, ...patch } },
  }) as Catalog;

describe("diffCatalogs: what changed between two catalogs", () => {
  it("P8: equal catalogs have no changes, whatever the version", () => {
    expect(diffCatalogs(catalog, catalog)).toEqual([]);
    expect(diffCatalogs(catalog, { ...copy(catalog), version: "2030-01-01" })).toEqual([]);
  });

  it("P1: a price cell names its model, resolution and quality, the old and new credits and the exact percentage", () => {
    const after = withBeta2({
      prices: { "1K": { low: 60 }, "2K": { low: 90 }, "4K": { low: 144 } },
    });
    expect(diffCatalogs(catalog, after)).toEqual([
      {
        kind: "price",
        modelId: "beta2",
        field: "prices",
        resolution: "2K",
        quality: "low",
        before: 80,
        after: 90,
        percent: "+12.5%",
      },
      {
        kind: "price",
        modelId: "beta2",
        field: "prices",
        resolution: "4K",
        quality: "low",
        before: 120,
        after: 144,
        percent: "+20%",
      },
    ]);
    expect(diffCatalogs(after, catalog).map((c) => (c.kind === "price" ? c.percent : ""))).toEqual([
      "-11.11%",
      "-16.67%",
    ]);
    expect(diffCatalogs(catalog, after).map(describeCatalogChange)).toEqual([
      "beta2 price 2K low: 80 credits -> 90 credits (+12.5%)",
      "beta2 price 4K low: 120 credits -> 144 credits (+20%)",
    ]);
  });

  it("V1-V8, P3: limits, accepted values, defaults, surcharge, output format, models added and removed, the default model", () => {
    const gamma = catalog.models["gamma-image-1.5"];
    const after = {
      ...catalog,
      defaultModelId: "beta2",
      models: {
        ...Object.fromEntries(Object.entries(catalog.models).filter(([id]) => id !== "beta")),
        beta2: {
          ...catalog.models.beta2,
          maxImageCount: 6,
          aspectRatios: ["Auto", "1:1", "2:3", "3:2", "3:4", "9:16", "16:9", "21:9"],
          defaultResolution: "4K",
          referenceSurchargeCredits: 5,
          outputFormat: "webp",
        },
        delta: { ...gamma, id: "delta" },
      },
    } as Catalog;
    const changes = diffCatalogs(catalog, after);
    expect(changes).toEqual([
      {
        kind: "default_model",
        modelId: null,
        field: "defaultModelId",
        before: "alpha-img2-official",
        after: "beta2",
      },
      {
        kind: "surcharge",
        modelId: "beta2",
        field: "referenceSurchargeCredits",
        before: 0,
        after: 5,
        percent: null,
      },
      { kind: "limit", modelId: "beta2", field: "maxImageCount", before: 4, after: 6 },
      {
        kind: "accepted_values",
        modelId: "beta2",
        field: "aspectRatios",
        before: ["Auto", "1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9"],
        after: ["Auto", "1:1", "2:3", "3:2", "3:4", "9:16", "16:9", "21:9"],
        added: ["21:9"],
        removed: ["4:3"],
      },
      { kind: "default", modelId: "beta2", field: "defaultResolution", before: "2K", after: "4K" },
      {
        kind: "output_format",
        modelId: "beta2",
        field: "outputFormat",
        before: null,
        after: "webp",
      },
      {
        kind: "model_removed",
        modelId: "beta",
        field: null,
        before: catalog.models.beta,
        after: null,
      },
      {
        kind: "model_added",
        modelId: "delta",
        field: null,
        before: null,
        after: { ...gamma, id: "delta" },
      },
    ]);
    expect(changes.map(describeCatalogChange)).toEqual([
      "catalog default model: alpha-img2-official -> beta2",
      "beta2 reference surcharge: 0 credits -> 5 credits",
      "beta2 most output images: 4 -> 6",
      "beta2 aspect ratios: Auto,1:1,2:3,3:2,3:4,4:3,9:16,16:9 -> Auto,1:1,2:3,3:2,3:4,9:16,16:9,21:9 (+21:9 -4:3)",
      "beta2 default resolution: 2K -> 4K",
      "beta2 output format: not fixed -> webp",
      "beta model removed",
      "delta model added (1K,2K,4K x low)",
    ]);
  });

  it("V2, P1: a resolution added prices new cells (no percentage) and a reordered list has no values added or removed", () => {
    const alpha = catalog.models["alpha-img2"];
    const after = {
      ...catalog,
      models: {
        ...catalog.models,
        "alpha-img2": {
          ...alpha,
          resolutions: ["1K", "2K"],
          prices: { "1K": { low: 18 }, "2K": { low: 30 } },
        },
        beta: {
          ...catalog.models.beta,
          backgrounds: ["auto"],
          qualities: ["low"],
          aspectRatios: [...catalog.models.beta.aspectRatios].reverse(),
        },
      },
    } as Catalog;
    const changes = diffCatalogs(catalog, after);
    expect(changes[0]).toEqual({
      kind: "price",
      modelId: "alpha-img2",
      field: "prices",
      resolution: "2K",
      quality: "low",
      before: null,
      after: 30,
      percent: null,
    });
    expect(changes[1]).toMatchObject({
      kind: "accepted_values",
      field: "resolutions",
      added: ["2K"],
      removed: [],
    });
    expect(changes[2]).toMatchObject({
      kind: "accepted_values",
      modelId: "beta",
      field: "aspectRatios",
      added: [],
      removed: [],
    });
    expect(describeCatalogChange(changes[0] as CatalogChange)).toBe(
      "alpha-img2 price 2K low: no price -> 30 credits",
    );
    expect(describeCatalogChange(changes[2] as CatalogChange)).toContain("(reordered)");
    expect(changes).toHaveLength(3);
  });

  it("P1: the percentage is exact decimal arithmetic rounded half away from zero to two places", () => {
    expect(percentChange(100, 120)).toBe("+20%");
    expect(percentChange(80, 90)).toBe("+12.5%");
    expect(percentChange(18, 25)).toBe("+38.89%");
    expect(percentChange(3, 1)).toBe("-66.67%");
    expect(percentChange(8, 9)).toBe("+12.5%");
    expect(percentChange(200_000, 200_001)).toBe("+0%"); // 0.0005% rounds to 0, the sign still says up
    expect(percentChange(20_000, 20_001)).toBe("+0.01%"); // 0.005%: a tie, away from zero
    expect(percentChange(10, 0)).toBe("-100%");
    expect(percentChange(0, 10)).toBeNull();
    expect(percentChange(7, 7)).toBe("0%");
  });
});

describe("describeCatalogChange and the CLI's columns: each field named, each value shown", () => {
  it("V1-V6, P1, P3: every field has its words, a cell removed has no percentage, a surcharge has one, one credit is singular", () => {
    const { "4K": _removed, ...prices } = catalog.models.beta2.prices;
    const after = withBeta2({
      resolutions: ["1K", "2K"],
      prices,
      qualities: ["low", "medium"],
      backgrounds: ["auto", "opaque"],
      maxReferenceImages: 8,
      defaultAspectRatio: "1:1",
      defaultResolution: null,
      referenceSurchargeCredits: 1,
    } as unknown as Partial<ModelSpec>);
    expect(diffCatalogs(catalog, after).map(describeCatalogChange)).toEqual([
      "beta2 price 4K low: 120 credits -> no price",
      "beta2 reference surcharge: 0 credits -> 1 credit",
      "beta2 most reference images: 14 -> 8",
      "beta2 resolutions: 1K,2K,4K -> 1K,2K (-4K)",
      "beta2 qualities: low -> low,medium (+medium)",
      "beta2 backgrounds: auto -> auto,opaque (+opaque)",
      "beta2 default aspect ratio: 9:16 -> 1:1",
      "beta2 default resolution: 2K -> none (must be named)",
    ]);
    expect(diffCatalogs(catalog, after)[0]).toMatchObject({
      before: 120,
      after: null,
      percent: null,
    });
    const dearer = diffCatalogs(after, withBeta2({ referenceSurchargeCredits: 5 }));
    expect(dearer.filter((c) => c.kind === "surcharge").map(describeCatalogChange)).toEqual([
      "beta2 reference surcharge: 1 credit -> 5 credits (+400%)",
    ]);
  });

  it("V2, V5: a model added is summed up by its resolutions and qualities; the side a model lacks is shown as -", () => {
    const official = catalog.models["alpha-img2-official"];
    const after = {
      ...catalog,
      models: { ...catalog.models, omega: { ...official, id: "omega" } },
    } as Catalog;
    const [added] = diffCatalogs(catalog, after);
    expect(added && describeCatalogChange(added)).toBe(
      "omega model added (1K,2K,4K x low,medium,high)",
    );
    expect(added && [changeValue(added, "before"), changeValue(added, "after")]).toEqual([
      "-",
      "1K,2K,4K x low,medium,high",
    ]);
    const [removed] = diffCatalogs(after, catalog);
    expect(removed && [changeValue(removed, "before"), changeValue(removed, "after")]).toEqual([
      "1K,2K,4K x low,medium,high",
      "-",
    ]);
  });

  it("P1: the percentage follows the sign of the old amount too, and no change is 0% even from 0", () => {
    expect(percentChange(-50, -25)).toBe("-50%");
    expect(percentChange(-50, -100)).toBe("+100%");
    expect(percentChange(-3, 1)).toBe("-133.33%");
    expect(percentChange(0, 0)).toBe("0%");
  });
});

describe("diffCatalogs properties", () => {
  it("P8: property: a diff applied field by field turns `before` into `after`", () => {
    fc.assert(
      fc.property(edited, edited, (before, after) => {
        const changes = diffCatalogs(before, after);
        expect({ ...applyChanges(before, changes), version: after.version }).toEqual(after);
      }),
    );
  });

  it("P8: property: diffCatalogs(a, a) and diffCatalogs(a, copy of a) are empty", () => {
    fc.assert(
      fc.property(edited, (a) => {
        expect(diffCatalogs(a, a)).toEqual([]);
        expect(diffCatalogs(a, copy(a))).toEqual([]);
      }),
    );
  });

  it("P8: property: the order is the documented one: default model, then model by model, prices by cell, then the other fields", () => {
    fc.assert(
      fc.property(edited, edited, (before, after) => {
        const models = [
          ...Object.keys(before.models),
          ...Object.keys(after.models).filter((id) => !(id in before.models)),
        ];
        const ranks = diffCatalogs(before, after).map((c) => rank(c, models));
        const sorted = [...ranks].sort((x, y) =>
          x.reduce((d, v, i) => d || v - (y[i] as number), 0),
        );
        expect(ranks).toEqual(sorted);
        expect(diffCatalogs(before, after)).toEqual(diffCatalogs(copy(before), copy(after)));
      }),
    );
  });

  it("P1: property: the percentage equals decimal.js's, rounded half away from zero to two places", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (before, after) => {
          const exact = new Decimal(after - before)
            .times(100)
            .dividedBy(before)
            .toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
          const text = percentChange(before, after);
          if (before === after) {
            expect(text).toBe("0%");
          } else {
            expect(text).toBe(`${after > before ? "+" : "-"}${exact.abs().toString()}%`);
          }
        },
      ),
    );
  });
});
