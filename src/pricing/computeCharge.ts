/**
 * `computeCharge`: the exact charge of a generation request (P4-P6), one rounded line per output
 * image and their sum.
 */

import { messages } from "../messages.js";
import { type CatalogOptions, resolveCatalog } from "../models/catalogOptions.js";
import { findModel } from "../models/modelSpec.js";
import { distinctReferences, validateForModel } from "../request/validateForModel.js";
import type { GenerationRequest, Issue, Quality, Resolution } from "../types.js";
import { InvalidRequestError } from "./errors.js";
import { parseMultiplier } from "./multiplier.js";
import { type PriceBreakdown, priceOutput } from "./priceOutput.js";
import type { AccountPricing } from "./quote.js";

/** One output image of a charge. */
export type ChargeLine = { index: number; credits: number };

/** The exact charge of a generation request. */
export type Charge = {
  modelId: string;
  resolution: Resolution;
  quality: Quality;
  imageCount: number;
  /** Credits of one output image, rounded (P4). */
  perOutputCredits: number;
  /** The sum of the lines (P5). */
  totalCreditCost: number;
  /** One line per output image, each rounded on its own. */
  lines: ChargeLine[];
  /** How one output image's price is made. */
  breakdown: PriceBreakdown;
  catalogVersion: string;
};

/**
 * Options of {@link computeCharge}: the account, the authorized references, and which catalog
 * applies.
 */
export type ChargeOptions = CatalogOptions & {
  /** The account's multiplier (default 1). */
  account?: AccountPricing | undefined;
  /**
   * References the caller is authorized to use (P6); default: the distinct `inputAssetIds`.
   * At most that number: a charge never counts references the request does not list.
   */
  referenceCount?: number | undefined;
};

/**
 * Computes the exact charge of a generation request (P4-P6): one line per output image, each
 * rounded on its own, and their sum.
 *
 * This is the amount to debit; {@link quote} is for a preview of one image. Pass a request that
 * {@link checkRequest} accepted: this checks its model's limits again and throws rather than price
 * a request the service would refuse. No number from the client is read.
 *
 * @param request - A normalized request (see {@link normalizeRequest}).
 * @param options - `account`, `referenceCount` (authorized references), and `catalog` / `at` as
 *   for every core function.
 * @returns The per-output amount, one line per output image, the total and the breakdown.
 * @throws {@link InvalidRequestError} when {@link validateForModel} rejects the request, or the
 *   multiplier or reference count is invalid; it carries every issue. `NoCatalogInForceError` when
 *   `at` is before the history's first catalog.
 * @example
 * ```ts
 * const charge = computeCharge(request, { account: { multiplier: "1.15" }, referenceCount: 2 });
 * charge.totalCreditCost; // = charge.lines.reduce((sum, line) => sum + line.credits, 0)
 * ```
 */
export function computeCharge(request: GenerationRequest, options: ChargeOptions = {}): Charge {
  const catalog = resolveCatalog(options, "computeCharge");
  const checked = validateForModel(request, { catalog });
  if (!checked.success) {
    throw new InvalidRequestError(checked.issues);
  }
  return priceValidated(checked.output, options);
}

/**
 * {@link computeCharge} for a request that `validateForModel` (or `checkRequest`) has already
 * accepted, so that a request is validated once: the request's limits are not checked again; the
 * account's multiplier and the reference count still are. @internal
 *
 * @param valid - A request the model's limits accept, with its resolution.
 * @param options - The account, the authorized reference count, and the catalog (and `at`) the
 *   request was checked against.
 * @returns The charge.
 * @throws {@link InvalidRequestError} for an invalid multiplier or reference count, or a cell with
 * no price.
 */
export function priceValidated(valid: GenerationRequest, options: ChargeOptions = {}): Charge {
  const catalog = resolveCatalog(options, "computeCharge");
  const model = findModel(catalog, valid.modelId);
  const listed = distinctReferences(valid.inputAssetIds);
  const referenceCount: unknown = options.referenceCount ?? listed;
  const multiplier = parseMultiplier(options.account?.multiplier);
  const problems: Issue[] = [];
  if (
    !Number.isInteger(referenceCount) ||
    (referenceCount as number) < 0 ||
    (referenceCount as number) > listed
  ) {
    problems.push({
      path: "referenceCount",
      code: "invalid_reference_count",
      message: messages.invalidReferenceCount("referenceCount", listed, options.referenceCount),
    });
  }
  if (!multiplier) {
    problems.push({
      path: "account.multiplier",
      code: "invalid_multiplier",
      message: messages.invalidMultiplier(options.account?.multiplier),
    });
  }
  if (problems.length > 0 || !multiplier) {
    throw new InvalidRequestError(problems);
  }
  const price =
    model &&
    priceOutput(model, valid.resolution, valid.quality, referenceCount as number, multiplier);
  if (!price) {
    const message = messages.notPriceable(valid.modelId, valid.resolution, valid.quality);
    throw new InvalidRequestError([{ path: "", code: "not_priceable", message }]);
  }

  const lines: ChargeLine[] = [];
  let totalCreditCost = 0;
  for (let index = 0; index < valid.imageCount; index++) {
    lines.push({ index, credits: price.credits });
    totalCreditCost += price.credits;
  }
  return {
    modelId: valid.modelId,
    resolution: valid.resolution,
    quality: valid.quality,
    imageCount: valid.imageCount,
    perOutputCredits: price.credits,
    totalCreditCost,
    lines,
    breakdown: price,
    catalogVersion: catalog.version,
  };
}
