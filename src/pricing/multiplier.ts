/**
 * The price multiplier (P4): how one is read and checked, and the one place where credits are
 * multiplied and rounded. Everything else asks this module.
 *
 * A multiplier is kept as an exact fraction `num / 10^scale` of integers, so a product is exact and
 * the only rounding is the final half-up step. Integers are doubles while they are provably safe
 * and `bigint` beyond. The tests prove every result equal to decimal.js computing with unbounded
 * precision.
 */

/** The one rounding mode of every charge: half-up to a whole credit (P4). */
export const ROUNDING = "half-up" as const;

/** A multiplier string as P4 allows it (after trimming): digits, optionally a point and digits. */
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/**
 * What `String(n)` prints for a finite non-negative number: plain, or with an exponent (`1e-7`,
 * `1.5e+21`).
 */
const NUMBER_TEXT = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/;

/**
 * The most characters a multiplier has (P4): as written (a string, after trimming) and as its plain
 * decimal form. Enough for any price adjustment (`"1.15"`, `"0.000001"`), and it keeps what a task
 * stores of it, and the work of reading it, small.
 */
export const MAX_MULTIPLIER_CHARS = 32;

/** Only this module makes multipliers: the constructor refuses any other caller. */
const MINT = Symbol("Multiplier");

/**
 * A price multiplier read and checked once (P4): its exact decimal text and its exact fraction.
 *
 * Make one with {@link parseMultiplier} and pass it as `account.multiplier` to skip reading the
 * text on every quote and charge. Instances are frozen and cannot be made any other way.
 */
export class Multiplier {
  /** The exact value as a plain decimal string, no redundant zeros (`"1.15"`, `"1000"`, `"0"`). */
  readonly text: string;
  /** @internal the value is exactly `num / den` */
  readonly num: bigint;
  /** @internal a power of ten */
  readonly den: bigint;
  /**
   * @internal the same fraction as doubles, when both are small enough for exact integer arithmetic
   */
  readonly fraction: { readonly num: number; readonly den: number } | undefined;
  /** Brand: `#minted in value` is true only for instances made here, whatever their shape. */
  readonly #minted = true;

  /**
   * Not for callers: {@link parseMultiplier} makes every Multiplier.
   *
   * @param mint - This module's private token; anything else throws.
   * @param text - The exact value as a plain decimal string.
   * @param num - Numerator of the exact value.
   * @param den - Denominator, a power of ten.
   * @param fraction - The same fraction as doubles, when exact as doubles.
   * @internal
   */
  constructor(
    mint: symbol,
    text: string,
    num: bigint,
    den: bigint,
    fraction: { num: number; den: number } | undefined,
  ) {
    if (mint !== MINT) {
      throw new TypeError("Make a Multiplier with parseMultiplier().");
    }
    this.text = text;
    this.num = num;
    this.den = den;
    this.fraction = fraction && Object.freeze(fraction);
    Object.freeze(this);
  }

  /**
   * Tells a multiplier made by {@link parseMultiplier} from anything else (a look-alike object is
   * not one).
   *
   * @param value - Anything.
   * @returns Whether `value` is a Multiplier.
   */
  static is(value: unknown): value is Multiplier {
    return typeof value === "object" && value !== null && #minted in value;
  }
}

/** The default multiplier, 1. */
const ONE: Multiplier = new Multiplier(MINT, "1", 1n, 1n, { num: 1, den: 1 });
const ZERO: Multiplier = new Multiplier(MINT, "0", 0n, 1n, { num: 0, den: 1 });

/** `digits x 10^-scale` (digits only, scale >= 0) as a Multiplier with redundant zeros removed. */
function fromDigits(digits: string, scale: number): Multiplier {
  let end = digits.length;
  while (scale > 0 && end > 1 && digits[end - 1] === "0") {
    end--;
    scale--;
  }
  const significant = digits.slice(0, end).replace(/^0+(?=\d)/, "");
  const num = BigInt(significant);
  if (num === 0n) {
    return ZERO;
  }
  const padded = significant.padStart(scale + 1, "0");
  const text = scale === 0 ? padded : `${padded.slice(0, -scale)}.${padded.slice(-scale)}`;
  // At most 1000 with at most six places: num <= 10^9, den <= 10^6, exact as doubles.
  const fraction = scale <= 6 ? { num: Number(num), den: 10 ** scale } : undefined;
  return new Multiplier(MINT, text, num, 10n ** BigInt(scale), fraction);
}

/**
 * Multipliers already read, by their input: an account's multiplier is read on every quote and
 * charge, and reading it (a regex, `bigint`s, a frozen object) costs many times a memo lookup
 * (docs/benchmarks.md). Results are frozen, so sharing them is safe; the map is emptied when full,
 * so it stays small whatever it is fed.
 */
const known = new Map<string | number, Multiplier | undefined>();
const KNOWN_LIMIT = 256;
/** Longer strings are read each time rather than kept as keys. */
const KNOWN_MAX_LENGTH = 32;

/**
 * Reads a price multiplier (P4): a plain decimal string (trimmed; no sign, no exponent) or a finite
 * number read as its shortest decimal form (`2.3` is exactly 2.3), from 0 to 1000, of at most 32
 * characters as written and as a plain decimal.
 *
 * A {@link Multiplier} is returned as it is, so an account's multiplier can be read once and
 * reused.
 *
 * @param input - The multiplier; `undefined` means 1.
 * @returns The multiplier (frozen), or `undefined` when it is not valid.
 * @example
 * ```ts
 * const multiplier = parseMultiplier("1.15"); // read and checked once, per account
 * if (!multiplier) throw new Error("bad multiplier");
 * quote({ kind: "image", modelId: "beta2" }, { account: { multiplier } }).credits; // 92
 * ```
 */
export function parseMultiplier(input: unknown): Multiplier | undefined {
  if (input === undefined) {
    return ONE;
  }
  if (Multiplier.is(input)) {
    return input;
  }
  if (
    typeof input === "number" ||
    (typeof input === "string" && input.length <= KNOWN_MAX_LENGTH)
  ) {
    const found = known.get(input);
    if (found !== undefined || known.has(input)) {
      return found;
    }
    const parsed = readMultiplier(input);
    if (known.size >= KNOWN_LIMIT) {
      known.clear();
    }
    known.set(input, parsed);
    return parsed;
  }
  return readMultiplier(input);
}

/** {@link parseMultiplier} without the memo. @internal */
export function readMultiplier(input: unknown): Multiplier | undefined {
  if (input === undefined) {
    return ONE;
  }
  let parsed: Multiplier;
  if (typeof input === "string") {
    const trimmed = input.trim();
    if (trimmed.length > MAX_MULTIPLIER_CHARS) {
      return undefined;
    }
    const match = PLAIN_DECIMAL.exec(trimmed);
    if (!match) {
      return undefined;
    }
    const [, whole = "", part = ""] = match;
    parsed = fromDigits(whole + part, part.length);
  } else if (typeof input === "number" && Number.isFinite(input)) {
    // The shortest decimal form that reads back as this number; -0 prints as "0", a negative fails.
    const match = NUMBER_TEXT.exec(String(input));
    if (!match) {
      return undefined;
    }
    const [, whole = "", part = "", exponent = "0"] = match;
    const scale = part.length - Number(exponent);
    parsed =
      scale >= 0
        ? fromDigits(whole + part, scale)
        : fromDigits(whole + part + "0".repeat(-scale), 0);
  } else {
    return undefined;
  }
  return parsed.num <= 1000n * parsed.den && parsed.text.length <= MAX_MULTIPLIER_CHARS
    ? parsed
    : undefined;
}

/**
 * Multiplies whole credits by a multiplier and rounds half-up to a whole credit, exactly:
 * `floor((2 x credits x num + den) / (2 x den))`. Small fractions use doubles while every
 * intermediate stays below 2^53; anything else uses `bigint`.
 *
 * @param credits - A non-negative safe integer.
 * @param multiplier - A multiplier from {@link parseMultiplier}.
 * @returns The rounded product.
 */
export function multiplyAndRound(credits: number, multiplier: Multiplier): number {
  const f = multiplier.fraction;
  if (f !== undefined) {
    const top = 2 * credits * f.num + f.den;
    // Exact: for integers 0 <= top <= 2^53 and bottom >= 1, a non-integer top / bottom is at least
    // 1 / bottom below the next integer, more than the division's rounding error, so floor is
    // right.
    if (top <= Number.MAX_SAFE_INTEGER) {
      return Math.floor(top / (2 * f.den));
    }
  }
  return multiplyAndRoundExact(credits, multiplier);
}

/** The `bigint` path of {@link multiplyAndRound}, exact for every input. @internal */
export function multiplyAndRoundExact(credits: number, multiplier: Multiplier): number {
  const den = multiplier.den;
  return Number((2n * BigInt(credits) * multiplier.num + den) / (2n * den));
}
