/**
 * The one door to decimal arithmetic: the only module that imports decimal.js. Everything else asks
 * it to read a multiplier or to multiply-and-round.
 */
import { Decimal } from "decimal.js";

/** The one rounding mode of every charge: half-up to a whole credit (P4). */
export const ROUNDING = "half-up" as const;

/** Enough significant digits that no product is ever rounded before the final whole-credit step. */
const Exact = Decimal.clone({ precision: 1_000_000_000, rounding: Decimal.ROUND_HALF_UP });

const PLAIN_DECIMAL = /^\d+(?:\.\d+)?$/;
const MAX_MULTIPLIER = new Exact(1000);

/** A price multiplier read and checked once: its exact decimal text and, when small, a fraction. */
export type Multiplier = {
  /** The exact value as a plain decimal string (`"1.15"`). */
  readonly text: string;
  /** @internal exact value */
  readonly value: Decimal;
  /** @internal `value = num / den` when both are small enough for exact integer arithmetic */
  readonly fraction: { num: number; den: number } | undefined;
};

/** The default multiplier, 1. */
export const ONE: Multiplier = { text: "1", value: new Exact(1), fraction: { num: 1, den: 1 } };

/**
 * Reads a price multiplier (P4): a plain decimal string (trimmed; no sign, no exponent) or a finite
 * number read as its shortest decimal form (`2.3` is exactly 2.3), from 0 to 1000.
 *
 * @param input - The multiplier; `undefined` means 1.
 * @returns The multiplier, or `undefined` when it is not valid.
 */
export function parseMultiplier(input: unknown): Multiplier | undefined {
  if (input === undefined) return ONE;
  let text: string;
  if (typeof input === "string") {
    text = input.trim();
    if (!PLAIN_DECIMAL.test(text)) return undefined;
  } else if (typeof input === "number" && Number.isFinite(input)) {
    text = String(input); // the shortest decimal form that reads back as this number
  } else {
    return undefined;
  }
  const value = new Exact(text);
  if (value.isNegative() && !value.isZero()) return undefined;
  if (value.greaterThan(MAX_MULTIPLIER)) return undefined;
  const abs = value.abs(); // -0 reads as 0
  const places = abs.decimalPlaces();
  const fraction = places <= 6 ? { num: abs.times(10 ** places).toNumber(), den: 10 ** places } : undefined;
  return { text: abs.toFixed(), value: abs, fraction };
}

/**
 * Multiplies whole credits by a multiplier and rounds half-up to a whole credit, exactly.
 * Small fractions take an integer path (`floor((2 * credits * num + den) / (2 * den))`), which the
 * test suite proves equal to decimal.js over the full price grid; anything else goes through decimal.js.
 *
 * @param credits - A non-negative safe integer.
 * @param multiplier - A multiplier from {@link parseMultiplier}.
 * @returns The rounded product.
 */
export function multiplyAndRound(credits: number, multiplier: Multiplier): number {
  const f = multiplier.fraction;
  if (f !== undefined) {
    const top = 2 * credits * f.num + f.den;
    if (top <= Number.MAX_SAFE_INTEGER) {
      const bottom = 2 * f.den;
      return (top - (top % bottom)) / bottom;
    }
  }
  return multiplyAndRoundDecimal(credits, multiplier);
}

/** The decimal.js path of {@link multiplyAndRound}, the authority the integer path is proven against. @internal */
export function multiplyAndRoundDecimal(credits: number, multiplier: Multiplier): number {
  return multiplier.value.times(credits).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}
