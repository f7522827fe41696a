/**
 * String arbitraries for the property suite: surrounding whitespace, Unicode text with astral
 * characters and combining marks, and lengths at the edges of the rules' limits (in code points).
 */
import fc from "fast-check";

/** Every character `String.prototype.trim` removes (ECMAScript WhiteSpace and LineTerminator). */
export const WHITESPACE = [
  "\t",
  "\n",
  "\v",
  "\f",
  "\r",
  " ",
  "\u00a0",
  "\u1680",
  "\u2000",
  "\u2001",
  "\u2002",
  "\u2003",
  "\u2004",
  "\u2005",
  "\u2006",
  "\u2007",
  "\u2008",
  "\u2009",
  "\u200a",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
] as const;

const fromCodePoint = (cp: number) => String.fromCodePoint(cp);

/** One code point that is not whitespace: ASCII, Latin, combining marks, CJK, emoji and other astral planes. */
export const visibleChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map(fromCodePoint) },
  { weight: 1, arbitrary: fc.integer({ min: 0xa1, max: 0x24f }).map(fromCodePoint) },
  { weight: 1, arbitrary: fc.integer({ min: 0x300, max: 0x36f }).map(fromCodePoint) }, // combining marks
  { weight: 1, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }).map(fromCodePoint) },
  { weight: 2, arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }).map(fromCodePoint) }, // emoji (astral)
  { weight: 1, arbitrary: fc.integer({ min: 0x10000, max: 0x10ffff }).map(fromCodePoint) }, // any astral
  {
    weight: 1,
    arbitrary: fc.constantFrom("\u200b", "\u180e", "\u0301", "e\u0301", "\u{1f468}\u200d\u{1f469}"),
  },
);

/** A run of whitespace, often empty. */
export const whitespace: fc.Arbitrary<string> = fc.oneof(
  { weight: 1, arbitrary: fc.constant("") },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 4 })
      .map((a) => a.join("")),
  },
);

/** Whitespace only, possibly empty: what trims to "". */
export const blank: fc.Arbitrary<string> = fc
  .array(fc.constantFrom(...WHITESPACE), { maxLength: 6 })
  .map((a) => a.join(""));

/** `s` with whitespace before and after. */
export const padded = (s: string): fc.Arbitrary<string> =>
  fc.tuple(whitespace, whitespace).map(([a, b]) => `${a}${s}${b}`);

/** Text with no surrounding whitespace (but maybe some inside), 1 to `maxChars` code points. */
export function trimmedText(maxChars = 24): fc.Arbitrary<string> {
  const char = fc.oneof(
    { weight: 8, arbitrary: visibleChar },
    { weight: 1, arbitrary: fc.constantFrom(" ", "\n", "\u3000") },
  );
  return fc
    .array(char, { minLength: 1, maxLength: maxChars })
    .map((a) => a.join("").trim())
    .filter((s) => s.length > 0 && [...s].length <= maxChars);
}

/**
 * Text of exactly `n` code points with no surrounding whitespace, cheap for large `n`: a short
 * pattern repeated (astral characters and combining marks included).
 */
export const textOfLength = (n: number): fc.Arbitrary<string> =>
  fc.array(visibleChar, { minLength: 1, maxLength: 4 }).map((pattern) => {
    const units = pattern.flatMap((c) => [...c]);
    const out: string[] = [];
    for (let i = 0; out.length < n; i++) {
      out.push(units[i % units.length] as string);
    }
    return out.join("");
  });

/** A length near `max` (either side), or a small one. */
export const lengthAround = (max: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.integer({ min: 1, max: 8 }),
    fc.integer({ min: max - 3, max: max + 3 }),
    fc.integer({ min: 1, max: max + 10 }),
  );

/** Swaps the case of a value so that it differs from the original, when it has letters. */
export function caseVariants(value: string): string[] {
  const first = value.charAt(0);
  const swapFirst =
    (first === first.toUpperCase() ? first.toLowerCase() : first.toUpperCase()) + value.slice(1);
  return [...new Set([value.toUpperCase(), value.toLowerCase(), swapFirst])].filter(
    (v) => v !== value,
  );
}
