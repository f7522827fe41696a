/**
 * Arbitrary JSON values and price multipliers (as decimal strings and as numbers), valid and not.
 */
import fc from "fast-check";
import { padded, whitespace } from "./text.js";

/** Any JSON value, as `JSON.parse` would give it (objects are plain, `__proto__` may be an own key). */
export const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.json({ maxDepth: 2 }).map((text) => JSON.parse(text) as unknown),
  fc.constantFrom(
    null,
    true,
    false,
    0,
    -0,
    1,
    -1,
    1.5,
    "",
    " ",
    "x",
    [],
    {},
    1e21,
    Number.MAX_SAFE_INTEGER,
  ),
);

/** A plain object, the way the rules define it (N1). */
export const isPlainObject = (v: unknown): boolean => {
  if (typeof v !== "object" || v === null) {
    return false;
  }
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/** JSON values that are not objects, plus JavaScript values a caller might pass. */
export const notAnObject: fc.Arbitrary<unknown> = fc.oneof(
  jsonValue.filter((v) => !isPlainObject(v)),
  fc.array(fc.record({ prompt: fc.string() }), { maxLength: 2 }),
  fc.constantFrom(undefined, new Date(0), new Map(), new Set(), () => 1, 10n, Symbol("s")),
);

/** A valid multiplier as a plain decimal string: 0..1000 with up to 32 characters, leading zeros, padded. */
export const multiplierString: fc.Arbitrary<string> = fc
  .oneof(
    {
      weight: 6,
      arbitrary: fc
        .tuple(
          fc.integer({ min: 0, max: 999 }),
          fc.integer({ min: 0, max: 2 }),
          fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 26 }),
        )
        .map(([whole, zeros, frac]) => `${"0".repeat(zeros)}${whole}${frac ? `.${frac}` : ""}`),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 0, max: 6 })
        .map((n) => (n === 0 ? "1000" : `1000.${"0".repeat(n)}`)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "1",
        "1.15",
        "2.3",
        "0.5",
        "0.02",
        "0.019999",
        "0",
        "0.333",
        "1.005",
        "999.999999",
      ),
    },
  )
  .chain(padded);

/** A valid multiplier as a finite number 0..1000 whose shortest decimal form has at most 32 characters. */
export const multiplierNumber: fc.Arbitrary<number> = fc.oneof(
  fc.double({ min: 0, max: 1000, noNaN: true }).filter((n) => plainDecimal(n).length <= 32),
  fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100),
  fc.integer({ min: 0, max: 1_000_000 }).map((n) => n / 1000),
  fc.constantFrom(0, -0, 1, 2.3, 1.15, 0.1, 0.3, 1e-7, 1e-30, 1000, 0.005, 1.005),
);

/** Either kind of valid multiplier. */
export const multiplier: fc.Arbitrary<string | number> = fc.oneof(
  multiplierString,
  multiplierNumber,
);

const PLAIN = /^\d+(?:\.\d+)?$/;

/** Whether a string is a valid multiplier by the rule's text (P4), judged without decimal.js. */
export function isValidMultiplierString(s: string): boolean {
  const t = s.trim();
  if (!PLAIN.test(t) || t.length > 32) {
    return false;
  }
  const [whole = "", frac = ""] = t.split(".");
  const w = BigInt(whole);
  return w < 1000n || (w === 1000n && /^0*$/.test(frac));
}

/** Invalid multipliers: signs, exponents, bare points, out of range, over 32 characters, non-finite, other types. */
export const invalidMultiplier: fc.Arbitrary<unknown> = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 0, max: 999 }),
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 29, maxLength: 60 }),
    )
    .map(([w, f]) => `${String(w).padStart(3, "0")}.${f}`),
  fc.constantFrom(5e-324, 1e-31, 1.2345678901234567e-20),
  fc.constantFrom(
    "",
    " ",
    "-1",
    "+1",
    "-0.5",
    "1e3",
    "1E-2",
    ".5",
    "1.",
    "1,5",
    "0x10",
    "NaN",
    "Infinity",
    "1000.0001",
    "1001",
  ),
  fc.constantFrom("\u0661", "１", "1 000", "1..5", "--1", "1.2.3"),
  fc.string({ maxLength: 8 }).filter((s) => !isValidMultiplierString(s)),
  fc
    .tuple(
      fc.integer({ min: 1000, max: 1_000_000 }),
      fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 5 }),
    )
    .map(([w, f]) => `${w}.${f}1`),
  fc
    .tuple(whitespace, fc.double({ min: 1e-9, max: 1e6, noNaN: true }), whitespace)
    .map(([a, n, b]) => `${a}-${n}${b}`),
  fc.double({ noNaN: false }).filter((n) => !(Number.isFinite(n) && n >= 0 && n <= 1000)),
  fc.constantFrom(null, true, false, {}, [], [1], 10n, { valueOf: () => 1 }),
);

/**
 * The plain decimal text of a number's shortest form (`1e-7` -> `0.0000001`), by string shifting
 * only, so the oracle never touches decimal.js.
 */
export function plainDecimal(n: number): string {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(n)));
  if (!m) {
    throw new Error(`not a finite non-negative number: ${n}`);
  }
  const [, int = "", frac = "", exp = "0"] = m;
  const digits = int + frac;
  const point = int.length + Number(exp);
  if (point <= 0) {
    return `0.${"0".repeat(-point)}${digits}`;
  }
  if (point >= digits.length) {
    return digits + "0".repeat(point - digits.length);
  }
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** A valid multiplier as the plain decimal string the BigInt oracle reads. */
export const multiplierText = (m: string | number): string =>
  typeof m === "number" ? plainDecimal(m) : m.trim();
