/** The sentences of the core and of the server: how a received value is shown, made safe and cut, inside them. */
import { readdirSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cut, HIDDEN, HIDDEN_RUN_CHARS, safeEcho } from "../src/echo.js";
import { messages, show } from "../src/messages.js";
import { serverMessages } from "../src/server/messages.js";

describe("show and safeEcho", () => {
  const words = (n: number) => "ab cd ".repeat(Math.ceil(n / 6)).slice(0, n);

  it("N15: show() quotes strings up to 40 characters whole, cuts longer ones, and names other types", () => {
    expect(show(words(40))).toBe(JSON.stringify(words(40)));
    expect(show(words(41))).toBe(JSON.stringify(`${words(40)}...`));
    expect(show("imageCount")).toBe('"imageCount"');
    expect(show(null)).toBe("null");
    expect(show([1])).toBe("an array");
    expect(show(1.5)).toBe("1.5");
    expect(show({})).toBe("an object");
    expect(show(true)).toBe("boolean");
    expect(show(undefined)).toBe("undefined");
  });

  it("S15: safeEcho() keeps 40 characters, each not shown as one ?, and never half a mask", () => {
    expect(safeEcho("")).toBe("");
    expect(safeEcho(words(40))).toBe(words(40));
    expect(safeEcho(words(41))).toBe(`${words(40)}...`);
    // one ? per code point outside printable ASCII, a surrogate pair or a lone surrogate alike
    expect(safeEcho('é 😀 \ud800 \udc00 \u0000 "q" \\')).toBe("? ? ? ? ? ?q? ?");
    expect(safeEcho(`${words(38)} 😀b`)).toBe(`${words(38)} ?...`);
    expect(safeEcho("abcdef", 3)).toBe("abc...");
    expect(safeEcho("abc", 3)).toBe("abc");
    // a run of 16 or more is hidden whole, never cut into the mask
    expect(safeEcho(`ab ${"k".repeat(HIDDEN_RUN_CHARS)} cd`)).toBe(`ab ${HIDDEN} cd`);
    expect(safeEcho(`ab ${"k".repeat(HIDDEN_RUN_CHARS - 1)} cd`)).toBe(
      `ab ${"k".repeat(HIDDEN_RUN_CHARS - 1)} cd`,
    );
    expect(safeEcho(`a b c ${"k".repeat(20)}`, 10)).toBe("a b c ...");
    const huge = "x".repeat(5_000_000);
    expect(show(huge)).toBe(JSON.stringify(HIDDEN));
    expect(show(`${huge} `)).toBe(JSON.stringify(`${HIDDEN} `));
    expect(show("x ".repeat(2_500_000))).toBe(JSON.stringify(`${"x ".repeat(20)}...`));
  });

  it("S15: the issue-count sentence says how many were left out, in the singular or the plural", () => {
    expect(messages.tooManyIssues(1)).toBe(
      "1 more issue was left out to keep the answer short; fix the ones listed first.",
    );
    expect(messages.tooManyIssues(950)).toBe(
      "950 more issues were left out to keep the answer short; fix the ones listed first.",
    );
    expect(messages.tooManyEntries(14, 1000, 40000)).toBe(
      "inputAssetIds may list at most 14 distinct assets in at most 1000 entries; it has 40000 entries, which were not read.",
    );
  });
});

describe("every sentence is said somewhere", () => {
  const src = new URL("../src/", import.meta.url);
  /** The source of every module but the two sentence files, where a sentence is used as `.name(` or `.name,`. */
  const code = readdirSync(src, { recursive: true, encoding: "utf8" })
    .filter(
      (file) => file.endsWith(".ts") && file !== "messages.ts" && file !== "server/messages.ts",
    )
    .map((file) => readFileSync(new URL(file, src), "utf8"))
    .join("\n");

  it("N15, S12: each sentence of messages and serverMessages is used by a module of src/ (no dead sentence to keep in step)", () => {
    const unused = [...Object.keys(messages), ...Object.keys(serverMessages)].filter(
      (name) => !new RegExp(`\\.${name}\\b`).test(code),
    );
    expect(unused).toEqual([]);
  });
});

describe("cut, the one cut of a client's text (S15)", () => {
  it("S15: a text of max units or fewer comes back whole; a longer one keeps max units and ends in ...", () => {
    expect(cut("abc", 3)).toBe("abc");
    expect(cut("", 0)).toBe("");
    expect(cut("abcd", 3)).toBe("abc...");
    expect(cut("abcdef", 0)).toBe("...");
  });

  it("S15: a cut never splits a surrogate pair: the pair goes whole or not at all", () => {
    expect(cut("ab\u{1F600}", 3)).toBe("ab...");
    expect(cut("ab\u{1F600}", 4)).toBe("ab\u{1F600}");
    expect(cut("a\u{1F600}b", 3)).toBe("a\u{1F600}...");
    // a lone high surrogate at the end of the cut goes too; a lone low one stays
    expect(cut("ab\ud800cd", 3)).toBe("ab...");
    expect(cut("ab\udc00cd", 3)).toBe("ab\udc00...");
  });

  it("S15: property: a cut is a prefix of the text, at most max units, with no split pair, and ... exactly when it is shorter", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)),
          maxLength: 40,
        }),
        fc.integer({ min: 0, max: 45 }),
        (text, max) => {
          const out = cut(text, max);
          if (text.length <= max) {
            expect(out).toBe(text);
            return;
          }
          expect(out.endsWith("...")).toBe(true);
          const kept = out.slice(0, -3);
          expect(text.startsWith(kept)).toBe(true);
          expect(
            kept.length === max ||
              (kept.length === max - 1 && /[\uD800-\uDBFF]/.test(text.charAt(max - 1))),
          ).toBe(true);
        },
      ),
    );
  });

  it("S15: safeEcho cuts with cut: an echo of max characters and more input ends in ..., one of max and no more does not", () => {
    expect(safeEcho("abc", 3)).toBe("abc");
    expect(safeEcho("abc d", 3)).toBe("abc...");
    expect(safeEcho("ab ", 3)).toBe("ab ");
    expect(safeEcho("ab cd", 3)).toBe("ab ...");
    expect(safeEcho("ab", 0)).toBe("...");
    expect(safeEcho("", 0)).toBe("");
  });
});
