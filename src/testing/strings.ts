/**
 * String arbitraries the request and quote generators share: Unicode text, whitespace to pad with,
 * asset ids, lists of ids with repeats, and strings outside a list of allowed values.
 *
 * @module
 */
import type { Arbitrary } from "fast-check";
import { fc } from "./fastCheck.js";

/**
 * Whitespace that `String.prototype.trim` removes, ASCII and Unicode (the rules trim every string,
 * N3).
 */
const WHITESPACE = [" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff"];

/** One printable code point: mostly ASCII, sometimes Latin, combining marks, CJK or emoji. */
const char: Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCodePoint(c)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0xa1, max: 0x24f }).map((c) => String.fromCodePoint(c)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0x300, max: 0x36f }).map((c) => String.fromCodePoint(c)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCodePoint(c)),
  },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }).map((c) => String.fromCodePoint(c)),
  },
);

/** Usually nothing, sometimes one to three whitespace characters. */
const whitespace = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 3 })
      .map((a) => a.join("")),
  },
);

/** A string that is empty after trimming: nothing, or up to four whitespace characters. */
export const blank: Arbitrary<string> = fc
  .array(fc.constantFrom(...WHITESPACE), { maxLength: 4 })
  .map((a) => a.join(""));

/**
 * The string with whitespace around it now and then, which trimming removes again.
 *
 * @param s - The string to pad.
 * @returns An arbitrary of `s` with optional leading and trailing whitespace.
 */
export const pad = (s: string): Arbitrary<string> =>
  fc.tuple(whitespace, whitespace).map(([a, b]) => `${a}${s}${b}`);

/**
 * Non-empty trimmed text of at most `maxChars` code points.
 *
 * @param maxChars - The most code points before trimming.
 * @returns An arbitrary of non-empty strings without surrounding whitespace.
 */
export const text = (maxChars: number): Arbitrary<string> =>
  fc
    .array(fc.oneof({ weight: 8, arbitrary: char }, { weight: 1, arbitrary: fc.constant(" ") }), {
      minLength: 1,
      maxLength: maxChars,
    })
    .map((a) => a.join("").trim())
    .filter((s) => s.length > 0);

/**
 * Exactly `n` code points of text, a short pattern repeated, so that large `n` stays cheap.
 *
 * @param n - The number of code points.
 * @returns An arbitrary of strings of `n` code points.
 */
export const textOfLength = (n: number): Arbitrary<string> =>
  fc.array(char, { minLength: 1, maxLength: 3 }).map((pattern) => {
    const out: string[] = [];
    for (let i = 0; out.length < n; i++) {
      out.push(pattern[i % pattern.length] as string);
    }
    return out.join("");
  });

/** An asset id: usually `asset_...`, sometimes any short text. */
const assetId = fc.oneof(fc.stringMatching(/^asset_[a-z0-9]{1,8}$/), text(10));

/**
 * Lists of distinct asset ids.
 *
 * @param min - The fewest ids.
 * @param max - The most ids.
 * @returns An arbitrary of lists of distinct ids.
 */
export const distinctIds = (min: number, max: number): Arbitrary<string[]> =>
  fc.uniqueArray(assetId, { minLength: min, maxLength: max });

/**
 * Adds copies of ids after their first occurrence, some padded: de-duplicating after trimming gives
 * the list back (N12).
 *
 * @param ids - Distinct ids.
 * @returns An arbitrary of the list with up to three repeats inserted.
 */
export const withCopies = (ids: readonly string[]): Arbitrary<string[]> =>
  fc
    .array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: ids.length > 0 ? 3 : 0 })
    .map((copies) => {
      const out = [...ids];
      for (const [which, where, padIt] of copies) {
        const id = ids[which % ids.length] as string;
        const first = out.indexOf(id);
        out.splice(first + 1 + (where % (out.length - first)), 0, padIt ? ` ${id} ` : id);
      }
      return out;
    });

/**
 * Strings that, trimmed, are not in `allowed`: the given near misses or any short string, padded.
 *
 * @param allowed - The values to avoid (compared after trimming).
 * @param examples - Near misses to try often (`"1k"` for `"1K"`).
 * @returns An arbitrary of strings outside the list.
 */
export const notIn = (allowed: readonly string[], examples: readonly string[]): Arbitrary<string> =>
  fc
    .oneof(fc.constantFrom(...examples), fc.string({ maxLength: 10 }), text(10))
    .filter((s) => !allowed.includes(s.trim()))
    .chain(pad);
