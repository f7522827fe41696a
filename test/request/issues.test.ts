/** How findings become public issues: paths, codes, unknown fields and the bound on a list. */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { HIDDEN } from "../../src/echo.js";
import type { Issue } from "../../src/index.js";
import { BOUNDS } from "../../src/request/bounds.js";
import { bounded, coded, formatPath, toIssue, unknownFields } from "../../src/request/issues.js";

const many = (n: number): Issue[] =>
  Array.from({ length: n }, (_, i) => ({ path: `f${i}`, code: "invalid_type", message: "m." }));

describe("issues", () => {
  it("N15: a nested path uses dots and brackets", () => {
    expect(formatPath(undefined)).toBe("");
    expect(formatPath([])).toBe("");
    expect(formatPath([{ key: "inputAssetIds" }, { key: 2 }])).toBe("inputAssetIds[2]");
    expect(formatPath([{ key: "a" }, { key: "b" }, { key: 0 }, { key: "c" }])).toBe("a.b[0].c");
  });

  it("S15: a list of at most 50 issues is kept as it is; past 50, the first 50 and one too_many_issues issue with the count", () => {
    expect(BOUNDS.maxIssues).toBe(50);
    const fifty = many(50);
    expect(bounded(fifty)).toBe(fifty);
    expect(bounded(many(49), 1)).toHaveLength(49);
    const over = bounded(many(51));
    expect(over).toHaveLength(51);
    expect(over.slice(0, 50)).toEqual(many(50));
    expect(over[50]).toEqual({
      path: "",
      code: "too_many_issues",
      message: "1 more issue was left out to keep the answer short; fix the ones listed first.",
    });
    expect(bounded(many(3), 90).at(-1)?.message).toMatch(/^43 more issues were left out/);
    expect(bounded(many(3), 90)).toHaveLength(4);
  });

  it("S15: unknown fields make at most 50 issues, each at the field's name made safe and cut to 40 characters; the rest are counted", () => {
    const known = new Set(["prompt"]);
    const keys = ["prompt", ...Array.from({ length: 60 }, (_, i) => `k${i}`)];
    const found = unknownFields(keys, known, (f) => `Field ${f}.`);
    expect(found.issues).toHaveLength(50);
    expect(found.omitted).toBe(10);
    expect(found.issues[0]).toEqual({ path: "k0", code: "unknown_field", message: "Field k0." });
    const long = unknownFields(["y ".repeat(150_000), "y".repeat(300_000)], known, () => "m.");
    expect(long.issues.map((i) => i.path)).toEqual([`${"y ".repeat(20)}...`, HIDDEN]);
    expect(unknownFields(["prompt"], known, () => "m.")).toEqual({ issues: [], omitted: 0 });
  });

  it("N15: coded() gives a check's issues their code, and the path of the field it names; toIssue keeps both", () => {
    const schema = v.pipe(
      v.object({
        a: v.string(),
        b: v.pipe(v.string(), v.minLength(2, coded("too_short", "b is short."))),
      }),
      v.check(
        (o) => o.a === o.b,
        coded("references_required", (i) => `not equal: ${typeof i.input}.`, "b"),
      ),
    );
    const short = v.safeParse(schema, { a: "y", b: "y" });
    expect((short.issues ?? []).map(toIssue)).toEqual([
      { path: "b", code: "too_short", message: "b is short." },
    ]);
    const unequal = v.safeParse(schema, { a: "xx", b: "yy" });
    expect((unequal.issues ?? []).map(toIssue)).toEqual([
      { path: "b", code: "references_required", message: "not equal: object." },
    ]);
  });

  it("N14/N4: without a code, a missing key is required and any other issue invalid_type", () => {
    const schema = v.object(
      { a: v.string("a must be a string."), b: v.number("b must be a number.") },
      "an object.",
    );
    const found = (v.safeParse(schema, { a: 1 }).issues ?? []).map(toIssue);
    expect(found).toEqual([
      { path: "a", code: "invalid_type", message: "a must be a string." },
      { path: "b", code: "required", message: "an object." },
    ]);
    expect((v.safeParse(schema, 7).issues ?? []).map(toIssue)).toEqual([
      { path: "", code: "invalid_type", message: "an object." },
    ]);
  });
});
