/**
 * `quote`: the price of one output image for an account (P1-P4, P7), or why a spec has none (P2).
 */

import { messages, type QuoteReason } from "../messages.js";
import { type CatalogOptions, resolveCatalog } from "../models/catalogOptions.js";
import { DEFAULTS, LIMITS } from "../models/lists.js";
import { type Catalog, findModel } from "../models/modelSpec.js";
import { type Multiplier, parseMultiplier } from "./multiplier.js";
import { type PriceBreakdown, priceOutput } from "./priceOutput.js";
import { type QuoteSpec, type SpecFields, specFields } from "./quoteSpec.js";

export type { QuoteSpec } from "./quoteSpec.js";

/** An account's price adjustment. */
export type AccountPricing = {
  /**
   * Non-negative decimal up to 1000, default 1: a plain decimal string (`"1.15"`), a finite number,
   * or a {@link Multiplier} from `parseMultiplier` (read once, reused on every quote and charge).
   */
  multiplier?: string | number | Multiplier;
};

/**
 * Options of {@link quote}: the account, and which catalog applies (a catalog, or a history with
 * `at`).
 */
export type QuoteOptions = CatalogOptions & {
  /** The account's price adjustment (default: multiplier 1). */
  account?: AccountPricing | undefined;
};

/** A priced spec: the per-image credits and how they were made. */
export type PricedQuote = {
  credits: number;
  breakdown: PriceBreakdown;
  catalogVersion: string;
};

/**
 * A spec that cannot be priced: no credits, and why.
 *
 * Never a fallback price (P2).
 */
export type UnpricedQuote = {
  credits: null;
  reason: QuoteReason;
  message: string;
  catalogVersion: string;
};

/** The answer of {@link quote}. */
export type Quote = PricedQuote | UnpricedQuote;

/** Whether `value` is one of `allowed`. */
const among = <T>(value: unknown, allowed: readonly T[]): value is T =>
  allowed.includes(value as T);

const unpriced = (reason: QuoteReason, message: string, catalogVersion: string): UnpricedQuote => ({
  credits: null,
  reason,
  message,
  catalogVersion,
});

/**
 * Prices one output image for an account (P1-P4), the way a generation would be charged (P7).
 *
 * This is the price preview (a form showing a price as the user picks options); the amount to
 * debit for a request is {@link computeCharge}. Never throws on a plain object: what cannot be
 * priced is `{ credits: null, reason, message }`. Strings are trimmed; fields other than the spec's
 * are ignored.
 *
 * @param spec - Model, resolution, quality and reference count.
 * @param options - `account` (its multiplier, default 1); `catalog` (a catalog, or a price history)
 *   and `at` (the instant whose prices apply), as for every core function.
 * @returns The credits per output image with a breakdown, or `credits: null` with a reason code.
 * @throws `NoCatalogInForceError` (a RangeError) when `at` is before the history's first catalog;
 *   RangeError when `at` is not an instant; TypeError for the 0.2.0 argument forms. The spec
 *   itself never makes it throw.
 * @example
 * ```ts
 * quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { account: { multiplier: "1.15" }
 * }).credits; // 138 quote({ kind: "image", modelId: "alpha-img2", resolution: "2K" }); // {
 * credits: null, reason: "unsupported_resolution", ... } quote({ kind: "image", modelId: "beta2" },
 * { catalog: catalogHistory, at: "2027-01-15T09:30:00Z" }); // the prices then
 * ```
 */
export function quote(spec: QuoteSpec, options?: QuoteOptions): Quote {
  // 0.2.0 took (spec, account, catalog): refuse that form rather than price at multiplier 1.
  // biome-ignore lint/complexity/noArguments: the one way to see a third argument the type forbids
  if (arguments.length > 2 || (options !== undefined && "multiplier" in options)) {
    throw new TypeError(messages.oldQuoteArguments());
  }
  const catalog = resolveCatalog(options, "quote");
  const account = options?.account;
  if (typeof spec !== "object" || spec === null) {
    return unpriced("invalid_spec", messages.invalidSpec(spec), catalog.version);
  }
  // A spec that prices as it is has nothing to trim (every value it names is exact), so reading it
  // could change nothing: only a spec that does not price is read, then priced as read.
  const asGiven = priceQuoteSpec(spec, account, catalog);
  return asGiven.credits !== null ? asGiven : priceQuoteSpec(specFields(spec), account, catalog);
}

/**
 * Prices a spec already read (its strings trimmed), without reading it again: what {@link quote}
 * does after reading, and what a quote endpoint does with a spec `parseQuoteSpec` accepted.
 * Judges values of any type, so a malformed field gives its `credits: null` reason. @internal
 *
 * @param fields - The spec's fields as read.
 * @param account - The account's multiplier (default 1).
 * @param catalog - The catalog to price from.
 * @returns The quote.
 */
export function priceQuoteSpec(
  fields: SpecFields,
  account: AccountPricing | undefined,
  catalog: Catalog,
): Quote {
  const catalogVersion = catalog.version;
  if (fields.kind !== "image") {
    return unpriced("invalid_kind", messages.invalidKind(fields.kind), catalogVersion);
  }
  const model = findModel(catalog, fields.modelId);
  if (!model) {
    return unpriced(
      "unknown_model",
      messages.unknownModel(fields.modelId, Object.keys(catalog.models)),
      catalogVersion,
    );
  }

  // The catalog's lists are within the public ones (CatalogSchema checks it), so membership in the
  // model's list is the whole check.
  // An absent resolution is the model's default; `null` is a value, and not an accepted one (P2).
  if (fields.resolution === undefined && model.defaultResolution === null) {
    return unpriced(
      "resolution_required",
      messages.resolutionRequired(model.id, model.resolutions),
      catalogVersion,
    );
  }
  const resolution = fields.resolution === undefined ? model.defaultResolution : fields.resolution;
  if (!among(resolution, model.resolutions)) {
    const message = messages.unsupported("resolution", resolution, model.id, model.resolutions);
    return unpriced("unsupported_resolution", message, catalogVersion);
  }
  const quality = fields.quality === undefined ? DEFAULTS.quality : fields.quality;
  if (!among(quality, model.qualities)) {
    const message = messages.unsupported("quality", quality, model.id, model.qualities);
    return unpriced("unsupported_quality", message, catalogVersion);
  }
  const references = (fields.referenceImageCount ?? 0) as number;
  // Number.isInteger is false for anything that is not a number.
  if (!Number.isInteger(references) || references < 0 || references > LIMITS.maxReferences) {
    return unpriced(
      "invalid_reference_count",
      messages.invalidReferenceCount(
        "referenceImageCount",
        LIMITS.maxReferences,
        fields.referenceImageCount,
      ),
      catalogVersion,
    );
  }
  if (references > model.maxReferenceImages) {
    return unpriced(
      "too_many_references",
      messages.tooManyReferenceImages(model.maxReferenceImages, references, model.id),
      catalogVersion,
    );
  }
  const multiplier = parseMultiplier(account?.multiplier);
  if (!multiplier) {
    return unpriced(
      "invalid_multiplier",
      messages.invalidMultiplier(account?.multiplier),
      catalogVersion,
    );
  }

  const breakdown = priceOutput(model, resolution, quality, references, multiplier);
  if (!breakdown) {
    return unpriced(
      "not_priceable",
      messages.notPriceable(model.id, resolution, quality),
      catalogVersion,
    );
  }
  return { credits: breakdown.credits, breakdown, catalogVersion };
}
