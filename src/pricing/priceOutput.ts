import type { ModelSpec } from "../models/modelSpec.js";
import type { Quality, Resolution } from "../types.js";
import { type Multiplier, multiplyAndRound, ROUNDING } from "./multiplier.js";

/** How one output image's price is made (P1, P3, P4). */
export type PriceBreakdown = {
  modelId: string;
  resolution: Resolution;
  quality: Quality;
  /** Table price of the model at this resolution and quality (P1). */
  baseCredits: number;
  /** Reference images counted for the surcharge. */
  referenceCount: number;
  /** `referenceCount x` the model's per-reference surcharge (P3). */
  referenceSurchargeCredits: number;
  /** `baseCredits + referenceSurchargeCredits`, before the multiplier. */
  subtotalCredits: number;
  /** The account's multiplier as an exact decimal string. */
  multiplier: string;
  /** Always `"half-up"`: the one rounding mode of every charge (P4). */
  rounding: "half-up";
  /** `round(subtotalCredits x multiplier)`, half-up: what one output image costs (P4). */
  credits: number;
};

/**
 * Prices one output image; the single place where a quote and a charge get their amount (P7).
 * Returns `undefined` when the grid has no price for the cell. Built as one object: a quote is
 * priced on every keystroke of a preview and every quote request.
 *
 * @internal
 */
export function priceOutput(
  model: ModelSpec,
  resolution: Resolution,
  quality: Quality,
  referenceCount: number,
  multiplier: Multiplier,
): PriceBreakdown | undefined {
  const baseCredits = model.prices[resolution]?.[quality];
  if (baseCredits === undefined) {
    return undefined;
  }
  const referenceSurchargeCredits = referenceCount * model.referenceSurchargeCredits;
  const subtotalCredits = baseCredits + referenceSurchargeCredits;
  return {
    modelId: model.id,
    resolution,
    quality,
    baseCredits,
    referenceCount,
    referenceSurchargeCredits,
    subtotalCredits,
    multiplier: multiplier.text,
    rounding: ROUNDING,
    credits: multiplyAndRound(subtotalCredits, multiplier),
  };
}
