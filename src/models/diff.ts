/**
 * What changed between two catalogs, cell by cell and field by field, for a reviewer of a price
 * change.
 */
import type { AspectRatio, OutputFormat, Quality, Resolution } from "../types.js";
import { QUALITIES, RESOLUTIONS } from "./lists.js";
import type { Catalog, ModelSpec } from "./modelSpec.js";

/** A model field holding a list of accepted values. */
export type AcceptedValuesField = "aspectRatios" | "resolutions" | "qualities" | "backgrounds";

/**
 * One difference between two catalogs: what changed (`kind`), its old value (`before`) and its new
 * one (`after`).
 *
 * The kinds:
 *
 * - `price`: the base price of one resolution x quality cell (`null` where the cell has no price),
 *   with `percent`, the exact change rounded to two decimals (`"+20%"`, `"-12.5%"`, `null` from 0);
 * - `surcharge`: the credits added per reference image (with `percent`, as for a price);
 * - `limit`: `maxImageCount` or `maxReferenceImages`;
 * - `accepted_values`: a list of accepted ratios, resolutions, qualities or backgrounds, with the
 *   values `added` and `removed` (both empty when only the order changed);
 * - `default`: the default aspect ratio or resolution (`null`: the request must name it);
 * - `output_format`: the format every output has (`null`: not fixed);
 * - `model_added` / `model_removed`: a whole model (`before` or `after` is `null`);
 * - `default_model`: the model used when a request names none (`modelId` is `null`: it is the
 *   catalog's).
 */
export type CatalogChange =
  | {
      kind: "price";
      modelId: string;
      field: "prices";
      resolution: Resolution;
      quality: Quality;
      before: number | null;
      after: number | null;
      percent: string | null;
    }
  | {
      kind: "surcharge";
      modelId: string;
      field: "referenceSurchargeCredits";
      before: number;
      after: number;
      percent: string | null;
    }
  | {
      kind: "limit";
      modelId: string;
      field: "maxImageCount" | "maxReferenceImages";
      before: number;
      after: number;
    }
  | {
      kind: "accepted_values";
      modelId: string;
      field: AcceptedValuesField;
      before: readonly string[];
      after: readonly string[];
      added: readonly string[];
      removed: readonly string[];
    }
  | {
      kind: "default";
      modelId: string;
      field: "defaultAspectRatio" | "defaultResolution";
      before: AspectRatio | Resolution | null;
      after: AspectRatio | Resolution | null;
    }
  | {
      kind: "output_format";
      modelId: string;
      field: "outputFormat";
      before: OutputFormat | null;
      after: OutputFormat | null;
    }
  | { kind: "model_added"; modelId: string; field: null; before: null; after: ModelSpec }
  | { kind: "model_removed"; modelId: string; field: null; before: ModelSpec; after: null }
  | {
      kind: "default_model";
      modelId: null;
      field: "defaultModelId";
      before: string;
      after: string;
    };

/** The kinds of {@link CatalogChange}. */
export type CatalogChangeKind = CatalogChange["kind"];

const ACCEPTED: readonly AcceptedValuesField[] = [
  "aspectRatios",
  "resolutions",
  "qualities",
  "backgrounds",
];

/**
 * The change from `before` to `after` in percent, exact: `10000 x (after - before) / before`
 * hundredths of a percent in integer arithmetic, rounded half away from zero, trailing zeros
 * dropped.
 *
 * @param before - The old amount, whole credits.
 * @param after - The new amount, whole credits.
 * @returns Such as `"+20%"`, `"-12.5%"`, `"+33.33%"`; `null` from 0 (no finite percentage).
 * @internal
 */
export function percentChange(before: number, after: number): string | null {
  if (before === after) {
    return "0%";
  }
  if (before === 0) {
    return null;
  }
  const numerator = BigInt(after - before) * 10_000n;
  const denominator = BigInt(before);
  // Stryker disable next-line EqualityOperator: neither is 0 here (both cases returned above)
  const negative = numerator < 0n !== denominator < 0n;
  const n = abs(numerator);
  const d = abs(denominator);
  const hundredths = n / d + (2n * (n % d) >= d ? 1n : 0n);
  const whole = hundredths / 100n;
  const fraction = (hundredths % 100n).toString().padStart(2, "0").replace(/0+$/, "");
  return `${negative ? "-" : "+"}${whole}${fraction ? `.${fraction}` : ""}%`;
}

// Stryker disable next-line EqualityOperator: -0n is 0n
const abs = (x: bigint) => (x < 0n ? -x : x);

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

function modelChanges(modelId: string, a: ModelSpec, b: ModelSpec): CatalogChange[] {
  const out: CatalogChange[] = [];
  for (const resolution of RESOLUTIONS) {
    for (const quality of QUALITIES) {
      const before = a.prices[resolution]?.[quality] ?? null;
      const after = b.prices[resolution]?.[quality] ?? null;
      if (before === after) {
        continue;
      }
      const percent = before === null || after === null ? null : percentChange(before, after);
      out.push({
        kind: "price",
        modelId,
        field: "prices",
        resolution,
        quality,
        before,
        after,
        percent,
      });
    }
  }
  if (a.referenceSurchargeCredits !== b.referenceSurchargeCredits) {
    const [before, after] = [a.referenceSurchargeCredits, b.referenceSurchargeCredits];
    out.push({
      kind: "surcharge",
      modelId,
      field: "referenceSurchargeCredits",
      before,
      after,
      percent: percentChange(before, after),
    });
  }
  for (const field of ["maxImageCount", "maxReferenceImages"] as const) {
    if (a[field] !== b[field]) {
      out.push({ kind: "limit", modelId, field, before: a[field], after: b[field] });
    }
  }
  for (const field of ACCEPTED) {
    const before: readonly string[] = a[field];
    const after: readonly string[] = b[field];
    if (sameList(before, after)) {
      continue;
    }
    const added = after.filter((x) => !before.includes(x));
    const removed = before.filter((x) => !after.includes(x));
    out.push({
      kind: "accepted_values",
      modelId,
      field,
      before: [...before],
      after: [...after],
      added,
      removed,
    });
  }
  for (const field of ["defaultAspectRatio", "defaultResolution"] as const) {
    if (a[field] !== b[field]) {
      out.push({ kind: "default", modelId, field, before: a[field], after: b[field] });
    }
  }
  if (a.outputFormat !== b.outputFormat) {
    out.push({
      kind: "output_format",
      modelId,
      field: "outputFormat",
      before: a.outputFormat,
      after: b.outputFormat,
    });
  }
  return out;
}

const own = (c: Catalog, id: string): ModelSpec | undefined =>
  Object.hasOwn(c.models, id) ? c.models[id] : undefined;

/**
 * Lists every difference between two catalogs: each price cell, surcharge, limit, list of accepted
 * values, default and output format that moved, each model added or removed, and the default model.
 *
 * The order is fixed: the default model first, then model by model (those of `before` in its order,
 * then those only in `after`), and within a model prices (resolution x quality in the public
 * order), surcharge, limits, accepted values, defaults and output format.
 *
 * `version` is not compared (two entries of a history always differ there), nor the order of the
 * models; expects valid catalogs (see `defineCatalog`).
 *
 * @param before - The older catalog.
 * @param after - The newer catalog.
 * @returns The changes; `[]` when the catalogs price and accept exactly the same.
 * @example
 * ```ts
 * const beta2 = catalog.models.beta2;
 * const next = { ...catalog, version: "2027-01-01", models: { ...catalog.models, beta2: { ...beta2,
 * prices: { ...beta2.prices, "4K": { low: 144 } } } } }; diffCatalogs(catalog, next);
 * // [{ kind: "price", modelId: "beta2", field: "prices", resolution: "4K", quality: "low", before:
 * 120, after: 144, percent: "+20%" }]
 * ```
 */
export function diffCatalogs(before: Catalog, after: Catalog): CatalogChange[] {
  const out: CatalogChange[] = [];
  if (before.defaultModelId !== after.defaultModelId) {
    out.push({
      kind: "default_model",
      modelId: null,
      field: "defaultModelId",
      before: before.defaultModelId,
      after: after.defaultModelId,
    });
  }
  const ids = [
    ...Object.keys(before.models),
    ...Object.keys(after.models).filter((id) => !Object.hasOwn(before.models, id)),
  ];
  for (const modelId of ids) {
    const [a, b] = [own(before, modelId), own(after, modelId)];
    // Every id is a model of one catalog or both.
    if (a === undefined) {
      out.push({ kind: "model_added", modelId, field: null, before: null, after: b as ModelSpec });
    } else if (b === undefined) {
      out.push({ kind: "model_removed", modelId, field: null, before: a, after: null });
    } else {
      out.push(...modelChanges(modelId, a, b));
    }
  }
  return out;
}

const FIELD_NAMES: Record<string, string> = {
  referenceSurchargeCredits: "reference surcharge",
  maxImageCount: "most output images",
  maxReferenceImages: "most reference images",
  aspectRatios: "aspect ratios",
  resolutions: "resolutions",
  qualities: "qualities",
  backgrounds: "backgrounds",
  defaultAspectRatio: "default aspect ratio",
  defaultResolution: "default resolution",
  outputFormat: "output format",
  defaultModelId: "default model",
};

/**
 * Names what a change is about, in words: `"price 4K low"`, `"most output images"`,
 * `"model added"`.
 *
 * @param change - One change from {@link diffCatalogs}.
 * @returns A short label.
 * @internal
 */
export function changeLabel(change: CatalogChange): string {
  if (change.kind === "price") {
    return `price ${change.resolution} ${change.quality}`;
  }
  if (change.kind === "model_added") {
    return "model added";
  }
  if (change.kind === "model_removed") {
    return "model removed";
  }
  return FIELD_NAMES[change.field] ?? change.field;
}

/**
 * Shows one side of a change as text: credits, a list, `none` for `null`, a model's summary.
 *
 * @param change - One change.
 * @param side - Which value.
 * @returns The value as text.
 * @internal
 */
export function changeValue(change: CatalogChange, side: "before" | "after"): string {
  const value = change[side];
  if (value === null) {
    if (change.kind === "price") {
      return "no price";
    }
    if (change.kind === "default") {
      return "none (must be named)";
    }
    if (change.kind === "output_format") {
      return "not fixed";
    }
    return "-";
  }
  if (typeof value === "number") {
    return change.kind === "limit" ? String(value) : `${value} credit${value === 1 ? "" : "s"}`;
  }
  if (typeof value === "string") {
    return value;
  }
  if (Array.isArray(value)) {
    return value.join(",");
  }
  const spec = value as ModelSpec;
  return `${spec.resolutions.join(",")} x ${spec.qualities.join(",")}`;
}

/**
 * Describes one change in a sentence-like line:
 * `beta2 price 4K low: 120 credits -> 144 credits (+20%)`.
 *
 * @param change - One change from {@link diffCatalogs}.
 * @returns One line of text.
 * @example
 * ```ts
 * diffCatalogs(before, after).map(describeCatalogChange).join("\n");
 * ```
 */
export function describeCatalogChange(change: CatalogChange): string {
  const subject = `${change.modelId ?? "catalog"} ${changeLabel(change)}`;
  if (change.kind === "model_added") {
    return `${subject} (${changeValue(change, "after")})`;
  }
  if (change.kind === "model_removed") {
    return subject;
  }
  let detail = "";
  if ((change.kind === "price" || change.kind === "surcharge") && change.percent !== null) {
    detail = ` (${change.percent})`;
  }
  if (change.kind === "accepted_values") {
    const parts = [...change.added.map((x) => `+${x}`), ...change.removed.map((x) => `-${x}`)];
    detail = ` (${parts.length > 0 ? parts.join(" ") : "reordered"})`;
  }
  return `${subject}: ${changeValue(change, "before")} -> ${changeValue(change, "after")}${detail}`;
}
