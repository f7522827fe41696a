/**
 * The integer baseline of the pricing benchmark: the price cell read from the same catalog, the
 * reference surcharge, and `floor((2 x subtotal x num + den) / (2 x den))` with the multiplier
 * already as the integers num / den. No checks, no breakdown: the least work that gives the number.
 */
import { catalog as builtIn } from "../../src/models/catalog.js";
import type { Quality, Resolution } from "../../src/types.js";

/** A multiplier as an exact fraction of safe integers. */
export type Fraction = { num: number; den: number };

/** Per-output credits, or null where the grid has no price. */
export function integerQuote(
  modelId: string,
  resolution: Resolution,
  quality: Quality,
  references: number,
  m: Fraction,
): number | null {
  const model = builtIn.models[modelId];
  const base = model?.prices[resolution]?.[quality];
  if (model === undefined || base === undefined) {
    return null;
  }
  const subtotal = base + references * model.referenceSurchargeCredits;
  return Math.floor((2 * subtotal * m.num + m.den) / (2 * m.den));
}

/** A whole charge: one line per output image and their sum. */
export function integerCharge(
  modelId: string,
  resolution: Resolution,
  quality: Quality,
  references: number,
  imageCount: number,
  m: Fraction,
): { perOutputCredits: number; totalCreditCost: number; lines: number[] } | null {
  const per = integerQuote(modelId, resolution, quality, references, m);
  if (per === null) {
    return null;
  }
  const lines: number[] = [];
  let total = 0;
  for (let i = 0; i < imageCount; i++) {
    lines.push(per);
    total += per;
  }
  return { perOutputCredits: per, totalCreditCost: total, lines };
}
