/** How findings become public issues: paths, codes and the bound on a list. */
import { describe, expect, it } from "vitest";
import { show } from "../../src/messages.js";
import { formatPath } from "../../src/request/issues.js";

describe("issues", () => {
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

  it("N15: a nested path uses dots and brackets", () => {
    expect(formatPath(undefined)).toBe("");
    expect(formatPath([])).toBe("");
    expect(formatPath([{ key: "inputAssetIds" }, { key: 2 }])).toBe("inputAssetIds[2]");
    expect(formatPath([{ key: "a" }, { key: "b" }, { key: 0 }, { key: "c" }])).toBe("a.b[0].c");
  });
});
