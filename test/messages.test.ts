/** The sentences of the core: how a received value is shown, and cut, inside them. */
import { describe, expect, it } from "vitest";
import { cut, messages, show } from "../src/messages.js";

describe("show and cut", () => {
  it("N15: show() quotes strings up to 40 code points whole, cuts longer ones, and names other types", () => {
    expect(show("a".repeat(40))).toBe(JSON.stringify("a".repeat(40)));
    expect(show("a".repeat(41))).toBe(JSON.stringify(`${"a".repeat(40)}...`));
    expect(show("😀".repeat(41))).toBe(JSON.stringify(`${"😀".repeat(40)}...`));
    expect(show(null)).toBe("null");
    expect(show([1])).toBe("an array");
    expect(show(1.5)).toBe("1.5");
    expect(show({})).toBe("an object");
    expect(show(true)).toBe("boolean");
    expect(show(undefined)).toBe("undefined");
  });

  it("S15: cut() keeps 40 code points, never splits a surrogate pair, and keeps a string of 40 code points whole", () => {
    expect(cut("")).toBe("");
    expect(cut("a".repeat(40))).toBe("a".repeat(40));
    expect(cut("a".repeat(41))).toBe(`${"a".repeat(40)}...`);
    // 40 code points in 41 UTF-16 units: whole
    expect(cut(`${"a".repeat(39)}😀`)).toBe(`${"a".repeat(39)}😀`);
    // the 40th code point is a pair: kept whole, then cut
    expect(cut(`${"a".repeat(39)}😀b`)).toBe(`${"a".repeat(39)}😀...`);
    expect(cut(`${"a".repeat(38)}😀😀b`)).toBe(`${"a".repeat(38)}😀😀...`);
    // a lone surrogate counts as one code point, as [...s] counts it
    expect(cut(`${"\ud800".repeat(40)}x`)).toBe(`${"\ud800".repeat(40)}...`);
    expect(cut(`${"\udc00".repeat(41)}`)).toBe(`${"\udc00".repeat(40)}...`);
    // the ends of the surrogate ranges
    expect(cut(`${"a".repeat(39)}\udbff\udfffb`)).toBe(`${"a".repeat(39)}\udbff\udfff...`);
    expect(cut(`${"a".repeat(39)}\ud800\udc00b`)).toBe(`${"a".repeat(39)}\ud800\udc00...`);
    expect(cut(`${"a".repeat(39)}\udc00\udc00b`)).toBe(`${"a".repeat(39)}\udc00...`);
    expect(cut(`${"a".repeat(39)}\ud800\ue000b`)).toBe(`${"a".repeat(39)}\ud800...`);
    expect(cut(`${"a".repeat(39)}\ud7ff\udc00b`)).toBe(`${"a".repeat(39)}\ud7ff...`);
    expect(cut(`${"a".repeat(39)}\ud800\udbffb`)).toBe(`${"a".repeat(39)}\ud800...`);
    expect(cut("abcdef", 3)).toBe("abc...");
    expect(cut("abc", 3)).toBe("abc");
    const huge = "x".repeat(5_000_000);
    expect(show(huge)).toBe(JSON.stringify(`${"x".repeat(40)}...`));
  });

  it("S15: the issue-count sentence says how many were left out, in the singular or the plural", () => {
    expect(messages.tooManyIssues(1)).toBe("1 more issue was left out to keep the answer short; fix the ones listed first.");
    expect(messages.tooManyIssues(950)).toBe(
      "950 more issues were left out to keep the answer short; fix the ones listed first.",
    );
    expect(messages.tooManyEntries(14, 1000, 40000)).toBe(
      "inputAssetIds may list at most 14 distinct assets in at most 1000 entries; it has 40000 entries, which were not read.",
    );
  });
});
