import * as v from "valibot";
import type { AspectRatio, Background, OutputFormat, Quality, Resolution } from "../types.js";
import { ASPECT_RATIOS, BACKGROUNDS, LIMITS, QUALITIES, RESOLUTIONS } from "./lists.js";

/** Credits per output image for each resolution and quality; a missing cell is not priceable. */
export type PriceGrid = { readonly [R in Resolution]?: { readonly [Q in Quality]?: number } };

/**
 * Everything the package knows about one model: what it accepts and what it costs.
 *
 * Validation and pricing read only this, so adding a model is adding an entry (V7).
 */
export interface ModelSpec {
  /** The model's id, as requests name it in `modelId` (and its key in the catalog's `models`). */
  readonly id: string;
  /** Accepted aspect ratios (V1). */
  readonly aspectRatios: readonly AspectRatio[];
  /** Ratio used when a request names none (N7). */
  readonly defaultAspectRatio: AspectRatio;
  /** Accepted resolutions (V2). */
  readonly resolutions: readonly Resolution[];
  /** Resolution used when a request names none; `null` means the request must name it (V2). */
  readonly defaultResolution: Resolution | null;
  /** Accepted qualities (V3). */
  readonly qualities: readonly Quality[];
  /** Accepted backgrounds (V4). */
  readonly backgrounds: readonly Background[];
  /** Largest `imageCount` (V5). */
  readonly maxImageCount: number;
  /** Most distinct reference images (V6). */
  readonly maxReferenceImages: number;
  /** Base credits added per reference image, per output image (P3). */
  readonly referenceSurchargeCredits: number;
  /** The format every output has, or `null` where the interface does not fix it (V8). */
  readonly outputFormat: OutputFormat | null;
  /** Base price per output image (P1): exactly the accepted resolution x quality cells. */
  readonly prices: PriceGrid;
}

/** A set of models with the date their prices took effect. */
export interface Catalog {
  /** ISO date (`YYYY-MM-DD`) the prices took effect. */
  readonly version: string;
  /** Model used when a request names none (N5). */
  readonly defaultModelId: string;
  /** Every model of the catalog, by its id. */
  readonly models: Readonly<Record<string, ModelSpec>>;
}

const credits = v.pipe(v.number(), v.safeInteger(), v.minValue(0));
const count = (max: number) => v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(max));
const nonEmptyUnique = <T extends string>(options: readonly T[]) =>
  v.pipe(
    v.array(v.picklist(options)),
    v.minLength(1),
    v.check((list) => new Set(list).size === list.length, "Each value may be listed once."),
  );
const gridRow = v.strictObject({
  low: v.optional(credits),
  medium: v.optional(credits),
  high: v.optional(credits),
});

function pricedExactlyWhereAccepted(spec: v.InferOutput<typeof modelShape>): boolean {
  for (const resolution of RESOLUTIONS) {
    for (const quality of QUALITIES) {
      const accepted = spec.resolutions.includes(resolution) && spec.qualities.includes(quality);
      const priced = spec.prices[resolution]?.[quality] !== undefined;
      if (accepted !== priced) {
        return false;
      }
    }
  }
  return true;
}

const modelShape = v.strictObject({
  id: v.pipe(
    v.string(),
    v.regex(/^[a-z0-9][a-z0-9.-]*$/, "A model id is lower-case letters, digits, dots and dashes."),
  ),
  aspectRatios: nonEmptyUnique(ASPECT_RATIOS),
  defaultAspectRatio: v.picklist(ASPECT_RATIOS),
  resolutions: nonEmptyUnique(RESOLUTIONS),
  defaultResolution: v.nullable(v.picklist(RESOLUTIONS)),
  qualities: nonEmptyUnique(QUALITIES),
  backgrounds: nonEmptyUnique(BACKGROUNDS),
  maxImageCount: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  maxReferenceImages: count(LIMITS.maxReferences),
  referenceSurchargeCredits: credits,
  outputFormat: v.nullable(v.picklist(["png", "jpeg", "webp"])),
  prices: v.strictObject({
    "1K": v.optional(gridRow),
    "2K": v.optional(gridRow),
    "4K": v.optional(gridRow),
  }),
});

/**
 * The valibot schema of a catalog entry. Beyond the field types it checks that the defaults are
 * accepted values and that the price grid prices exactly the accepted resolution x quality cells.
 */
export const ModelSpecSchema = v.pipe(
  modelShape,
  v.check(
    (s) => s.aspectRatios.includes(s.defaultAspectRatio),
    "The default aspect ratio must be an accepted one.",
  ),
  v.check(
    (s) => s.defaultResolution === null || s.resolutions.includes(s.defaultResolution),
    "The default resolution must be an accepted one.",
  ),
  v.check(
    pricedExactlyWhereAccepted,
    "Every accepted resolution x quality cell, and no other, must have a price.",
  ),
);

/**
 * The valibot schema of a whole catalog: valid entries, keyed by their own id, and a known default.
 */
export const CatalogSchema = v.pipe(
  v.strictObject({
    version: v.pipe(v.string(), v.isoDate()),
    defaultModelId: v.string(),
    models: v.record(v.string(), ModelSpecSchema),
  }),
  v.check(
    (c) => Object.entries(c.models).every(([key, spec]) => key === spec.id),
    "Each model is keyed by its own id.",
  ),
  v.check(
    (c) => Object.hasOwn(c.models, c.defaultModelId),
    "The default model must be in the catalog.",
  ),
);

/**
 * Checks a catalog (your own models, or a copy of the built-in one) and returns it unchanged.
 *
 * @param catalog - The catalog to check.
 * @returns The same catalog.
 * @throws TypeError naming every problem, when the catalog is not valid.
 */
export function defineCatalog<C extends Catalog>(catalog: C): C {
  const result = v.safeParse(CatalogSchema, catalog);
  if (!result.success) {
    const problems = result.issues.map((i) => `${v.getDotPath(i) ?? "(catalog)"}: ${i.message}`);
    throw new TypeError(`Invalid catalog: ${problems.join("; ")}`);
  }
  return catalog;
}

/**
 * Looks a model up by id, own entries only (`"__proto__"` is not a model).
 *
 * @internal
 */
export function findModel(catalog: Catalog, modelId: unknown): ModelSpec | undefined {
  return typeof modelId === "string" && Object.hasOwn(catalog.models, modelId)
    ? catalog.models[modelId]
    : undefined;
}
