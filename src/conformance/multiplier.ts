/**
 * The account's multiplier, inferred from quotes (P4) in exact rational arithmetic: a quote of `c`
 * credits on a subtotal `s` bounds the multiplier to `[(c - 0.5) / s, (c + 0.5) / s)`.
 */

/** An exact non-negative rational `n / d`, `d > 0`. */
type Rational = { n: bigint; d: bigint };

/** An interval of rationals, each end open or closed. */
type Interval = { lo: Rational; loClosed: boolean; hi: Rational; hiClosed: boolean };

/** The rounding rules a server may use, the right one first. */
export const ROUNDINGS = ["half-up", "half-down", "half-even", "floor", "ceil"] as const;
/** One rounding rule. */
export type Rounding = (typeof ROUNDINGS)[number];

/** One observation: `credits` quoted on `subtotal` base credits. */
export type Observation = { credits: number; subtotal: number };

const cmp = (a: Rational, b: Rational): number => {
  const left = a.n * b.d;
  const right = b.n * a.d;
  return left < right ? -1 : left > right ? 1 : 0;
};

const rational = (n: bigint, d: bigint): Rational => ({ n, d });

/**
 * The multipliers under which `rounding(subtotal x m)` is `credits`.
 *
 * @param o - The observation (subtotal above 0).
 * @param rounding - The rounding rule.
 * @returns The interval of multipliers.
 */
function bounds(o: Observation, rounding: Rounding): Interval {
  const c = BigInt(o.credits);
  const s = BigInt(o.subtotal);
  const halfLo = rational(2n * c - 1n, 2n * s);
  const halfHi = rational(2n * c + 1n, 2n * s);
  switch (rounding) {
    case "half-up":
      return { lo: halfLo, loClosed: true, hi: halfHi, hiClosed: false };
    case "half-down":
      return { lo: halfLo, loClosed: false, hi: halfHi, hiClosed: true };
    case "half-even": {
      const even = c % 2n === 0n;
      return { lo: halfLo, loClosed: even, hi: halfHi, hiClosed: even };
    }
    case "floor":
      return { lo: rational(c, s), loClosed: true, hi: rational(c + 1n, s), hiClosed: false };
    case "ceil":
      return { lo: rational(c - 1n, s), loClosed: false, hi: rational(c, s), hiClosed: true };
  }
}

/** The intersection of intervals, or `undefined` when it is empty. */
function intersect(intervals: readonly Interval[]): Interval | undefined {
  let lo = rational(0n, 1n);
  let loClosed = true;
  let hi = rational(1000n, 1n);
  let hiClosed = true;
  for (const i of intervals) {
    const l = cmp(i.lo, lo);
    if (l > 0) {
      lo = i.lo;
      loClosed = i.loClosed;
    } else if (l === 0) {
      loClosed = loClosed && i.loClosed;
    }
    const h = cmp(i.hi, hi);
    if (h < 0) {
      hi = i.hi;
      hiClosed = i.hiClosed;
    } else if (h === 0) {
      hiClosed = hiClosed && i.hiClosed;
    }
  }
  const c = cmp(lo, hi);
  return c < 0 || (c === 0 && loClosed && hiClosed) ? { lo, loClosed, hi, hiClosed } : undefined;
}

/** The decimal with the fewest digits in an interval, as a string. */
function simplest(interval: Interval): string {
  for (let k = 0; k <= 30; k += 1) {
    const scale = 10n ** BigInt(k);
    // The least n with n / scale at or above lo (above, when lo is open).
    const scaled = interval.lo.n * scale;
    let n = scaled / interval.lo.d;
    if (n * interval.lo.d < scaled || (!interval.loClosed && n * interval.lo.d === scaled)) {
      n += 1n;
    }
    const candidate = rational(n, scale);
    const h = cmp(candidate, interval.hi);
    if (h < 0 || (h === 0 && interval.hiClosed)) {
      return decimal(n, k);
    }
  }
  // Unreachable for a non-empty interval of rationals with bigint ends: 10^-30 is finer than any.
  return decimal((interval.lo.n * 10n ** 30n) / interval.lo.d, 30);
}

/** `n / 10^k` written as a plain decimal. */
function decimal(n: bigint, k: number): string {
  if (k === 0) {
    return n.toString();
  }
  const digits = n.toString().padStart(k + 1, "0");
  const whole = digits.slice(0, -k);
  const fraction = digits.slice(-k).replace(/0+$/, "");
  return fraction === "" ? whole : `${whole}.${fraction}`;
}

/** What the quotes say of the multiplier. */
export type Inference =
  | { kind: "consistent"; multiplier: string }
  | { kind: "rounding"; rounding: Rounding; multiplier: string }
  | { kind: "inconsistent"; multiplier: string | null; agreeing: number };

/**
 * Infers the multiplier from quotes: the simplest decimal that rounds every subtotal half-up to its
 * quote; else one under which another rounding rule explains every quote; else the one that
 * explains the most quotes.
 *
 * @param observations - Quotes with their subtotals (subtotals above 0).
 * @returns What the quotes say.
 */
export function inferMultiplier(observations: readonly Observation[]): Inference {
  const usable = observations.filter((o) => o.subtotal > 0 && Number.isSafeInteger(o.credits));
  for (const rounding of ROUNDINGS) {
    const all = intersect(usable.map((o) => bounds(o, rounding)));
    if (all) {
      return rounding === "half-up"
        ? { kind: "consistent", multiplier: simplest(all) }
        : { kind: "rounding", rounding, multiplier: simplest(all) };
    }
  }
  // The point in the most half-up intervals: one of their lower ends.
  const intervals = usable.map((o) => bounds(o, "half-up"));
  let best: Interval[] = [];
  for (const candidate of intervals) {
    const holding = intervals.filter(
      (i) => cmp(i.lo, candidate.lo) <= 0 && cmp(candidate.lo, i.hi) < 0,
    );
    if (holding.length > best.length) {
      best = holding;
    }
  }
  const segment = intersect(best);
  return {
    kind: "inconsistent",
    multiplier: segment ? simplest(segment) : null,
    agreeing: best.length,
  };
}

/**
 * Rounds `subtotal x multiplier` by a rule, exactly.
 *
 * @param subtotal - Whole base credits.
 * @param multiplier - A plain decimal string.
 * @param rounding - The rule.
 * @returns The whole credits.
 */
export function roundBy(subtotal: number, multiplier: string, rounding: Rounding): number {
  const [whole = "0", fraction = ""] = multiplier.split(".");
  const scale = 10n ** BigInt(fraction.length);
  const product = BigInt(subtotal) * BigInt(whole + fraction);
  const floor = product / scale;
  const rest = product - floor * scale;
  let result: bigint;
  switch (rounding) {
    case "floor":
      result = floor;
      break;
    case "ceil":
      result = rest > 0n ? floor + 1n : floor;
      break;
    case "half-up":
      result = 2n * rest >= scale ? floor + 1n : floor;
      break;
    case "half-down":
      result = 2n * rest > scale ? floor + 1n : floor;
      break;
    case "half-even":
      result = 2n * rest > scale || (2n * rest === scale && floor % 2n === 1n) ? floor + 1n : floor;
      break;
  }
  return Number(result);
}

/**
 * How a per-image amount that is not the half-up one was most likely made: by another rounding
 * rule, or by rounding a binary float.
 *
 * @param credits - The amount the server gave.
 * @param subtotal - Whole base credits.
 * @param multiplier - The multiplier, a plain decimal string.
 * @returns The rules that give it, such as `"half-even or half-down"`, or `undefined` when none
 * does.
 */
export function explainRounding(
  credits: number,
  subtotal: number,
  multiplier: string,
): string | undefined {
  const fits: string[] = ROUNDINGS.slice(1).filter(
    (rounding) => roundBy(subtotal, multiplier, rounding) === credits,
  );
  if (Math.round(subtotal * Number(multiplier)) === credits) {
    fits.push("in binary floating point");
  }
  return fits.length === 0 ? undefined : fits.join(" or ");
}
