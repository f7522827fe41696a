import { catalog as builtIn } from "../models/catalog.js";
import { DEFAULTS, LIMITS } from "../models/lists.js";
import { type Catalog, findModel } from "../models/modelSpec.js";
import { messages, type QuoteReason } from "../messages.js";
import { type Multiplier, parseMultiplier } from "./decimal.js";
import { type PriceBreakdown, priceOutput } from "./priceOutput.js";

/** What to price: one output image of a model (the service's image specification). */
export type QuoteSpec = {
  kind: "image";
  modelId: string;
  /** Default: the model's default resolution (N8). */
  resolution?: string;
  /** Default: `"low"` (N9). */
  quality?: string;
  /** Distinct reference images; default 0. */
  referenceImageCount?: number;
};

/** An account's price adjustment. */
export type AccountPricing = {
  /**
   * Non-negative decimal up to 1000, default 1: a plain decimal string (`"1.15"`), a finite number,
   * or a {@link Multiplier} from `parseMultiplier` (read once, reused on every quote and charge).
   */
  multiplier?: string | number | Multiplier;
};

/** A priced spec: the per-image credits and how they were made. */
export type PricedQuote = {
  credits: number;
  breakdown: PriceBreakdown;
  catalogVersion: string;
};

/** A spec that cannot be priced: no credits, and why. Never a fallback price (P2). */
export type UnpricedQuote = { credits: null; reason: QuoteReason; message: string; catalogVersion: string };

/** The answer of {@link quote}. */
export type Quote = PricedQuote | UnpricedQuote;

const trimmed = (value: unknown) => (typeof value === "string" ? value.trim() : value);

/**
 * The member of `allowed` that `value` names after trimming (N3), or `undefined`. An accepted value
 * has no surrounding whitespace, so the common case is matched before anything is trimmed.
 */
function pick<T>(value: unknown, allowed: readonly T[]): T | undefined {
  if (allowed.includes(value as T)) return value as T;
  if (typeof value !== "string") return undefined;
  const t = value.trim() as T;
  return allowed.includes(t) ? t : undefined;
}

const KIND = ["image"] as const;

const unpriced = (reason: QuoteReason, message: string, catalogVersion: string): UnpricedQuote => ({
  credits: null,
  reason,
  message,
  catalogVersion,
});

/**
 * Prices one output image for an account (P1-P4), the way a generation would be charged (P7).
 * Never throws on a plain object: what cannot be priced is `{ credits: null, reason, message }`.
 * Strings are trimmed; fields other than the spec's are ignored.
 *
 * @param spec - Model, resolution, quality and reference count.
 * @param account - The account's multiplier (default 1).
 * @param catalog - The catalog to price from (default: the built-in one).
 * @returns The credits per output image with a breakdown, or `credits: null` with a reason code.
 * @example
 * ```ts
 * quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { multiplier: "1.15" }).credits; // 138
 * quote({ kind: "image", modelId: "alpha-img2", resolution: "2K" }); // { credits: null, reason: "unsupported_resolution", ... }
 * ```
 */
export function quote(spec: QuoteSpec, account?: AccountPricing, catalog: Catalog = builtIn): Quote {
  const catalogVersion = catalog.version;
  if (typeof spec !== "object" || spec === null) return unpriced("invalid_spec", messages.invalidSpec(spec), catalogVersion);
  if (pick(spec.kind, KIND) === undefined) return unpriced("invalid_kind", messages.invalidKind(spec.kind), catalogVersion);
  const model = findModel(catalog, spec.modelId) ?? findModel(catalog, trimmed(spec.modelId));
  if (!model) {
    return unpriced("unknown_model", messages.unknownModel(trimmed(spec.modelId), Object.keys(catalog.models)), catalogVersion);
  }

  // The catalog's lists are within the public ones (CatalogSchema checks it), so membership in the
  // model's list is the whole check.
  const resolution = spec.resolution === undefined ? model.defaultResolution : pick(spec.resolution, model.resolutions);
  if (resolution === null) {
    return unpriced("resolution_required", messages.resolutionRequired(model.id, model.resolutions), catalogVersion);
  }
  if (resolution === undefined) {
    const message = messages.unsupported("resolution", trimmed(spec.resolution), model.id, model.resolutions);
    return unpriced("unsupported_resolution", message, catalogVersion);
  }
  const quality = pick(spec.quality === undefined ? DEFAULTS.quality : spec.quality, model.qualities);
  if (quality === undefined) {
    const message = messages.unsupported(
      "quality",
      trimmed(spec.quality === undefined ? DEFAULTS.quality : spec.quality),
      model.id,
      model.qualities,
    );
    return unpriced("unsupported_quality", message, catalogVersion);
  }
  const references: unknown = spec.referenceImageCount ?? 0;
  if (typeof references !== "number" || !Number.isInteger(references) || references < 0 || references > LIMITS.maxReferences) {
    return unpriced(
      "invalid_reference_count",
      messages.invalidReferenceCount("referenceImageCount", LIMITS.maxReferences, spec.referenceImageCount),
      catalogVersion,
    );
  }
  if (references > model.maxReferenceImages) {
    return unpriced(
      "too_many_references",
      messages.tooManyReferences(model.maxReferenceImages, references, model.id),
      catalogVersion,
    );
  }
  const multiplier = parseMultiplier(account?.multiplier);
  if (!multiplier) return unpriced("invalid_multiplier", messages.invalidMultiplier(account?.multiplier), catalogVersion);

  const breakdown = priceOutput(model, resolution, quality, references, multiplier);
  if (!breakdown)
    return unpriced("not_priceable", messages.notPriceable(model.id, String(resolution), String(quality)), catalogVersion);
  return { credits: breakdown.credits, breakdown, catalogVersion };
}
