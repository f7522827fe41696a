/**
 * The kit's cases, checked offline on the core: every refusal is one, the generator is seeded,
 * shrinking keeps the rule.
 */
import { describe, expect, it } from "vitest";
import {
  generatedCases,
  oracleIssues,
  refusalCases,
  shrink,
} from "../../../src/conformance/cases.js";
import { RULES, selectRules } from "../../../src/conformance/rules.js";
import { checkRequest } from "../../../src/index.js";

describe("refusal cases", () => {
  it("N1-N15, V1-V6: every fixed case is refused by the oracle, and each rule of N and V1-V6 has one", () => {
    const cases = refusalCases(["asset_a", "asset_b"]);
    for (const c of cases) {
      expect(checkRequest(c.body).success, c.what).toBe(false);
    }
    const rules = new Set(cases.map((c) => c.rule));
    for (const [id] of RULES) {
      if (/^N\d+$/.test(id) || /^V[1-6]$/.test(id)) {
        expect(rules.has(id), id).toBe(true);
      }
    }
  });

  it("V1-V5: every value a model does not accept is a case of its rule", () => {
    const cases = refusalCases([]);
    const v1 = cases.filter((c) => c.rule === "V1").map((c) => c.what);
    expect(v1).toContain("Auto on alpha-img2-5-flare");
    expect(v1).toContain("4:3 on gamma-image-1.5");
    expect(v1).toContain("21:9 on beta2");
    const v4 = cases.filter((c) => c.rule === "V4").map((c) => c.what);
    expect(v4).toEqual(expect.arrayContaining(["opaque on beta2", "transparent on beta2"]));
  });

  it("N2-N14, V5: the same seed generates the same cases, each refused for the rule it names", () => {
    const a = generatedCases(7, 40);
    expect(generatedCases(7, 40)).toEqual(a);
    expect(generatedCases(8, 40)).not.toEqual(a);
    expect(a).toHaveLength(40);
    for (const c of a) {
      expect(
        oracleIssues(c.body).some((issue) => issue.startsWith(`${c.path} `)),
        c.what,
      ).toBe(true);
    }
  });
});

describe("shrink", () => {
  it("N9: a failing body shrinks to the fields that still show its issue, and nothing of another rule", () => {
    const body = {
      prompt: "  a red fox  ",
      modelId: "beta2",
      resolution: "2K",
      aspectRatio: "16:9",
      imageCount: 3,
      idempotencyKey: "k-1",
      quality: "xhigh",
    };
    const small = shrink(body, "quality");
    expect(small).toEqual({ prompt: "a red fox", quality: "xhigh" });
    expect(oracleIssues(small)).toEqual(["quality invalid_option"]);
  });

  it("V5: a limit of the model keeps its model when shrunk", () => {
    const body = {
      prompt: "a fox",
      modelId: "gamma-image-1.5",
      imageCount: 11,
      background: "auto",
    };
    expect(shrink(body, "imageCount", ["modelId"])).toEqual({
      prompt: "a fox",
      modelId: "gamma-image-1.5",
      imageCount: 11,
    });
    // Without it, 11 images break the default model's limit instead: another limit.
    expect(shrink(body, "imageCount")).toEqual({ prompt: "a fox", imageCount: 11 });
  });
});

describe("selectRules", () => {
  it("selects ids and families, and names a wrong entry", () => {
    expect([...selectRules(["N2", "p4"])]).toEqual(["N2", "P4"]);
    expect(selectRules(["S"]).size).toBe(17);
    expect(selectRules(undefined).size).toBe(48);
    expect(() => selectRules(["Q1"])).toThrow(/"Q1" is not a rule id/);
  });
});
