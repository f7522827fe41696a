/**
 * safeEcho, the one way a client's text goes back out (S1, S15): a secret is hidden by its shape,
 * however its prefix is spelled or encoded, and what is shown is plain printable ASCII.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HIDDEN, HIDDEN_RUN_CHARS, safeEcho } from "../src/echo.js";
import { serverMessages } from "../src/server/messages.js";

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const secretArb = fc
  .string({ unit: fc.constantFrom(...BASE64URL), minLength: 16, maxLength: 48 })
  .filter((s) => /[A-Za-z0-9]/.test(s[0] ?? ""));

/** Every 6-character piece of a secret: none may come back. */
const pieces = (secret: string) =>
  Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, "0");
const DASHES = [
  "\u2010",
  "\u2011",
  "\u2012",
  "\u2013",
  "\u2014",
  "\u2015",
  "\u2212",
  "\ufe63",
  "\uff0d",
];

/** Ways one separator of the prefix reaches the server. */
const separatorArb = fc.constantFrom(
  "_",
  "-",
  "",
  ".",
  "/",
  ":",
  " ",
  "\t",
  "\u2800",
  "%5F",
  "%255F",
  "\\u005f",
  "\\\\u005f",
  "\\x5f",
  "&#95;",
  "&lowbar;",
  "\u0000",
  "%00",
  "\u00ad",
  "\u200b",
  "\ufeff",
  "\uff3f",
  "_\u0301",
  ...DASHES,
);

/** Ways one letter of the prefix reaches the server, look-alikes from other scripts among them. */
const letterArb = (letter: string) =>
  fc.constantFrom(
    letter,
    letter.toUpperCase(),
    `%${hex(letter)}`,
    `%${hex(letter).toUpperCase()}`,
    `\\u00${hex(letter)}`,
    `&#${letter.charCodeAt(0)};`,
    String.fromCharCode(letter.charCodeAt(0) + 0xfee0), // fullwidth
    `${letter}\u0301`, // a combining mark
    ({ c: "с", k: "κ", t: "т", e: "е", s: "ѕ", l: "ӏ", i: "і", v: "ν" } as Record<string, string>)[
      letter
    ] ?? letter,
  );

/** Something slipped between two letters of a word of the prefix. */
const insideArb = fc.constantFrom(
  "",
  "",
  "",
  "\u0000",
  "\u200b",
  "-",
  "%00",
  "\u2011",
  "_",
  " ",
  "\t",
  "\u2800",
  ".",
);

/** A prefix `ck_test_` / `ck_live_` in a random mix of cases, scripts, encodings and separators. */
const prefixArb = fc
  .constantFrom("test", "live")
  .chain((mode) =>
    fc
      .tuple(
        fc.tuple(letterArb("c"), insideArb, letterArb("k")),
        separatorArb,
        fc.tuple(...[...mode].map((l) => fc.tuple(letterArb(l), insideArb))),
        separatorArb,
      )
      .map(
        ([[c, i, k], s1, word, s2]) => c + i + k + s1 + word.map(([l, x]) => l + x).join("") + s2,
      ),
  );

/** Text around a key: printable, with the characters the encodings use, never a piece of the secret by chance. */
const aroundArb = fc.string({
  unit: fc.constantFrom(...'ab xyz%\\&#;_-.:/?="{}[],0123c\u00e9\u4e2d\u{1f600}k'),
  maxLength: 30,
});

/** Any UTF-16 unit (lone surrogates too), or one of the characters that runs and escapes are made of. */
const anyUnit = fc.oneof(
  fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
  fc.constantFrom(...'aZ09_-%\\" ./?'),
);

/** What every echo is: printable ASCII without `"` or `\`. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

describe("safeEcho (S1, S15)", () => {
  it("S1, S15: property: a random key in random text with a random prefix disguise never leaves a 6-character piece of its secret", () => {
    fc.assert(
      fc.property(
        aroundArb,
        prefixArb,
        secretArb,
        aroundArb,
        fc.constantFrom("raw", "json", "uri"),
        fc.constantFrom(40, 100, 10_000),
        (before, prefix, secret, after, form, max) => {
          const plain = `${before}${prefix}${secret}${after}`;
          const text =
            form === "json"
              ? JSON.stringify({ field: plain })
              : form === "uri"
                ? `/api/${encodeURIComponent(plain)}`
                : plain;
          const out = safeEcho(text, max);
          const outside = `${before}\u0001${after}`;
          for (const piece of pieces(secret)) {
            if (!outside.includes(piece)) {
              expect(out).not.toContain(piece);
            }
          }
          expect(out).toMatch(PLAIN);
          expect(out.length).toBeLessThanOrEqual(max + 3);
          expect(safeEcho(out, max + 3)).toBe(out);
        },
      ),
    );
  });

  it("S1, S15: a secret is hidden however its prefix is disguised, and a secret encoded whole is hidden too", () => {
    const secret = "Qx7_-mN2pL9sT4vW8yZ1aB3cD5eF6gH0";
    const prefixes = [
      "ck_test_",
      "ск_test_", // Cyrillic
      "cκ_test_", // Greek
      "ck.test.",
      "ck/test/",
      "ck:test:",
      "cktest",
      "ck test ",
      "ck_te st_",
      "ck_te\tst_",
      "ck\u2800test_",
      "ck_te\u0301st_",
      "ck%5Ftest%5F",
      "ck\\u005ftest\\u005f",
    ];
    const encodedSecrets = [
      [...secret].map((c) => `%${hex(c)}`).join(""),
      [...secret].map((c) => `\\u00${hex(c)}`).join(""),
    ];
    for (const prefix of prefixes) {
      for (const body of [secret, ...encodedSecrets]) {
        for (const text of [
          `${prefix}${body}`,
          `x ${prefix}${body} y`,
          `/api/${prefix}${body}`,
          JSON.stringify({ v: prefix + body }),
        ]) {
          for (const max of [40, 10_000]) {
            const out = safeEcho(text, max);
            for (const piece of [...pieces(secret), ...pieces(body)]) {
              expect(out, text).not.toContain(piece);
            }
            expect(out).toContain(HIDDEN);
          }
        }
      }
    }
    expect(safeEcho(`ck_test_${secret}`)).toBe(HIDDEN);
    // The shortest secret a key may have is hidden on its own, the prefix apart.
    expect(safeEcho(`ck.test.${secret.slice(0, 16)}`)).toBe(`ck.test.${HIDDEN}`);
    expect(safeEcho(`ck.test.${secret}`)).toBe(`ck.test.${HIDDEN}`);
    expect(serverMessages.notFound(`/api/ск_test_${secret}`)).toBe(
      `There is no endpoint at "/api/${HIDDEN}".`,
    );
  });

  it("S15: short values come back readable: field names, words, paths of short segments", () => {
    for (const text of [
      "foo",
      "imageCount",
      "referenceImages",
      "negative_prompt",
      "1024x1024",
      "/api/generations",
      "a b",
      "",
    ]) {
      expect(safeEcho(text)).toBe(text);
    }
    expect(safeEcho("k".repeat(HIDDEN_RUN_CHARS - 1))).toBe("k".repeat(HIDDEN_RUN_CHARS - 1));
    expect(safeEcho("k".repeat(HIDDEN_RUN_CHARS))).toBe(HIDDEN);
    // Words of up to 15 characters, separated by shown punctuation, are never hidden.
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: fc.constantFrom(..."abcXYZ019_-"), maxLength: HIDDEN_RUN_CHARS - 1 }),
          { maxLength: 8 },
        ),
        fc.constantFrom(" ", ".", "/", ":", ", "),
        (words, separator) => {
          const text = words.join(separator);
          expect(safeEcho(text, 10_000)).toBe(text);
        },
      ),
    );
  });

  it("S15: property: any text comes back as at most max printable ASCII characters and ...", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: anyUnit, maxLength: 80 }),
        fc.integer({ min: 1, max: 60 }),
        (s, max) => {
          const out = safeEcho(s, max);
          expect(out).toMatch(PLAIN);
          expect(out.length).toBeLessThanOrEqual(max + 3);
          if (out.length > max) {
            expect(out.endsWith("...")).toBe(true);
          }
        },
      ),
    );
  });
});
