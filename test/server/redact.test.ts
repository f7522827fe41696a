import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { serverMessages } from "../../src/server/errors.js";
import { createOpenApiDocument } from "../../src/server/index.js";
import { cutForEcho, redactSecrets } from "../../src/server/redact.js";

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const secretArb = fc
  .string({ unit: fc.constantFrom(...BASE64URL), minLength: 16, maxLength: 48 })
  .filter((s) => /[A-Za-z0-9]/.test(s[0] ?? ""));

/** Every 6-character piece of a secret: none may come back. */
const pieces = (secret: string) => Array.from({ length: secret.length - 5 }, (_, i) => secret.slice(i, i + 6));

const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, "0");
const DASHES = ["\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212", "\ufe63", "\uff0d"];

/** Ways one underscore of the prefix reaches the server. */
const separatorArb = fc.constantFrom(
  "_",
  "-",
  "%5F",
  "%5f",
  "%255F",
  "\\u005f",
  "\\u005F",
  "\\\\u005f",
  "\\x5f",
  "&#95;",
  "&#x5f;",
  "&lowbar;",
  "\u0000",
  "%00",
  "\\u0000",
  "\u00ad",
  "\u200b",
  "\ufeff",
  "\uff3f",
  "__",
  "_\u0000",
  ...DASHES,
);

/** Ways one letter of the prefix reaches the server. */
const letterArb = (letter: string) =>
  fc.constantFrom(
    letter,
    letter.toUpperCase(),
    `%${hex(letter)}`,
    `%${hex(letter.toUpperCase())}`,
    `%${hex(letter).toUpperCase()}`,
    `\\u00${hex(letter)}`,
    `&#${letter.charCodeAt(0)};`,
    String.fromCharCode(letter.charCodeAt(0) + 0xfee0), // fullwidth
    String.fromCharCode(letter.toUpperCase().charCodeAt(0) + 0xfee0),
  );

/** An optional separator slipped between two letters of a word of the prefix. */
const insideArb = fc.constantFrom("", "", "", "\u0000", "\u200b", "-", "%00", "\u2011", "_");

/** A prefix `ck_test_` / `ck_live_` in a random mix of cases, encodings and separators. */
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
      .map(([[c, i, k], s1, word, s2]) => ({ mode, text: c + i + k + s1 + word.map(([l, x]) => l + x).join("") + s2 })),
  );

/** Text around a key: printable, with the characters the encodings use, never a piece of the secret by chance. */
const aroundArb = fc.string({ unit: fc.constantFrom(...'ab xyz%\\&#;_-.:/?="{}[],0123c\u00e9\u4e2d\u{1f600}k'), maxLength: 30 });

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe("redactSecrets (S1, S15)", () => {
  it("S1, S15: masks the exact prefixes and keeps JSON valid", () => {
    const key = "ck_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    expect(redactSecrets(key)).toBe("ck_test_...");
    expect(redactSecrets(`model ${key}!`)).toBe("model ck_test_...!");
    expect(redactSecrets(JSON.stringify({ a: `zzz${key.replace("test", "live")}` }))).toBe('{"a":"zzzck_live_..."}');
    expect(redactSecrets(`/api/${key}/x?k=${key}&y=1`)).toBe("/api/ck_test_.../x?k=ck_test_...&y=1");
  });

  it("S1, S15: every named variant of the prefix is masked whole", () => {
    const secret = "Qx7_-mN2pL9sT4vW8yZ1aB3cD5eF6gH0";
    const variants = [
      `CK_TEST_${secret}`,
      `Ck_TeSt_${secret}`,
      `ck%5Ftest%5F${secret}`,
      `ck%5ftest%5f${secret}`,
      `ck%255Ftest%255F${secret}`,
      `ck\u0000test_${secret}`,
      `ck_te\u0000st_${secret}`,
      `c\u0000k_test_${secret}`,
      `ck\u2010test\u2011${secret}`,
      `ck\u2212live\ufe63${secret}`,
      `ck\uff0dtest\u2015${secret}`,
      `ck\\u005ftest\\u005f${secret}`,
      `\\u0063\\u006b_test_${secret}`,
      `ck&#95;test&lowbar;${secret}`,
      `\uff43\uff4b\uff3f\uff54\uff45\uff53\uff54\uff3f${secret}`,
      `ck_\u200btest_${secret}`,
      `%63%6B%5F%74%65%73%74%5F${secret}`,
    ];
    for (const variant of variants) {
      for (const text of [variant, `x${variant}y`, JSON.stringify({ v: variant }), encodeURIComponent(variant)]) {
        const out = redactSecrets(text);
        for (const piece of pieces(secret)) expect(out, text).not.toContain(piece);
        expect(out).toMatch(/ck_(test|live)_\.\.\./);
      }
    }
    // Text just before a key that reads as an escape ending in its `c` (`%4c` is "L").
    for (const before of ["%a", "%4", "%0", "\\u00a", "\\x4", "%E2%80%8", "%25a"]) {
      for (const key of [`ck_test_${secret}`, `ck%5Flive%5F${secret}`, `ck_\\u006cive_${secret}`]) {
        const out = redactSecrets(before + key);
        for (const piece of pieces(secret)) expect(out, before + key).not.toContain(piece);
      }
    }
    // A JSON escape in a JSON text: the text holds `\u005f` where the key had `_`.
    const escaped = JSON.stringify({ v: `ck_test_${secret}` }).replaceAll("_", "\\u005f");
    expect(JSON.parse(escaped).v).toBe(`ck_test_${secret}`);
    const out = redactSecrets(escaped);
    expect(JSON.parse(out)).toEqual({ v: "ck_test_..." });
  });

  it("S15: a key cut short is masked too, and a 404 path carries none of its secret", () => {
    const key = "ck_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    for (let n = 11; n <= key.length; n++) {
      const out = redactSecrets(`There is no endpoint at "/api/${key.slice(0, n)}…".`);
      expect(out).toBe('There is no endpoint at "/api/ck_test_...…".');
    }
    const message = serverMessages.notFound(`/api/CK%5FTEST%5F${key.slice(8)}`);
    expect(redactSecrets(message)).not.toContain(key.slice(8, 14));
    expect(redactSecrets("ck_test_A")).toBe("ck_test_...");
    expect(redactSecrets("ck_test_")).toBe("ck_test_");
  });

  it("S1, S15: property: a random key in random text with random prefix variants never leaves a 6-character piece of its secret", () => {
    fc.assert(
      fc.property(
        aroundArb,
        prefixArb,
        secretArb,
        aroundArb,
        fc.constantFrom("raw", "json", "uri"),
        (before, prefix, secret, after, form) => {
          const plain = `${before}${prefix.text}${secret}${after}`;
          const text =
            form === "json" ? JSON.stringify({ field: plain }) : form === "uri" ? `/api/${encodeURIComponent(plain)}` : plain;
          const out = redactSecrets(text);
          const outside = `${before}\u0001${after}`;
          for (const piece of pieces(secret)) {
            if (!outside.includes(piece)) expect(out).not.toContain(piece);
          }
          expect(out).toContain(`ck_${prefix.mode}_...`);
          if (form === "json") expect(() => JSON.parse(out)).not.toThrow();
          expect(redactSecrets(out)).toBe(out);
        },
      ),
    );
  });

  it("S15: property: a JSON text stays valid JSON, whatever it holds", () => {
    fc.assert(
      fc.property(fc.jsonValue(), prefixArb, secretArb, (value, prefix, secret) => {
        const text = JSON.stringify({ value, key: prefix.text + secret, both: [value, `${prefix.text}${secret}`] });
        const out = redactSecrets(text);
        expect(() => JSON.parse(out)).not.toThrow();
        for (const piece of pieces(secret))
          if (!text.replace(secret, "").replace(secret, "").includes(piece)) expect(out).not.toContain(piece);
      }),
    );
  });

  it("S15: property: text without a key comes back unchanged", () => {
    // No "k" anywhere, so nothing can read as `ck`: arbitrary strings and JSON texts, any encoding.
    const noK = (s: string) => !/[kK\uff2b\uff4b]|%[46]b|\\u006b|\\u004b|&#(107|75|x6b|x4b);/i.test(s);
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        if (noK(s)) expect(redactSecrets(s)).toBe(s);
      }),
    );
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? "";
        if (noK(text)) expect(redactSecrets(text)).toBe(text);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(..."ckCK_-tesliv% \\0123\u0000\u2010") }), (s) => {
        // Without a letter or digit after the mode, there is no secret to mask.
        if (!/[a-z0-9]/i.test(s.replace(/ck|test|live/gi, ""))) expect(redactSecrets(s)).toBe(s);
      }),
    );
  });

  it("S15: the server's own texts are left alone: messages, the OpenAPI document, a ping body", () => {
    const texts = [
      JSON.stringify(createOpenApiDocument()),
      JSON.stringify({
        ok: true,
        service: "imagegen-pricing-reference",
        authProvider: "api_key",
        userId: "usr_1",
        apiKeyId: "apk_1",
      }),
      serverMessages.missingApiKey(),
      serverMessages.notFound("/api/checks/test_run"),
      "Check the test: back test, stuck-test.",
      "ck_test_... and ck_live_...",
    ];
    for (const text of texts) expect(redactSecrets(text)).toBe(text);
  });

  it("S15: cutForEcho masks, then cuts to at most max code points", () => {
    expect(cutForEcho("short", 10)).toBe("short");
    expect(cutForEcho("x".repeat(100), 10)).toBe(`${"x".repeat(9)}…`);
    expect(cutForEcho("\u{1f600}".repeat(20), 5)).toBe(`${"\u{1f600}".repeat(4)}…`);
    expect(cutForEcho("\u{1f600}".repeat(5), 5)).toBe("\u{1f600}".repeat(5));
    const key = "ck_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345";
    const cut = cutForEcho(`CK%5Ftest_${key.slice(8)}`, 40);
    expect(cut).toBe("ck_test_...");
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.integer({ min: 1, max: 50 }), (s, max) => {
        const out = cutForEcho(s, max);
        expect(Array.from(out).length).toBeLessThanOrEqual(max);
        expect(LONE_SURROGATE.test(out)).toBe(LONE_SURROGATE.test(s));
      }),
    );
  });
});
