import { describe, expect, it } from "vitest";
import { normalizeRequest } from "../../src/index.js";

/** Counterexamples the properties found, kept as plain examples. */
describe("regressions found by the properties", () => {
  it("N2/N15: an unknown field named '' or ' ' still gets a sentence that names it, quoted (found by the N2 property)", () => {
    const r = normalizeRequest({ prompt: "x", "": 1, " ": 2, ["z".repeat(500)]: 3 });
    expect(r.success).toBe(false);
    const issues = r.success ? [] : r.issues;
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ["", "unknown_field"],
      [" ", "unknown_field"],
      ["z".repeat(500), "unknown_field"],
    ]);
    expect(issues[0]?.message).toMatch(/^Field "" is not part of a generation request; remove it/);
    expect(issues[1]?.message).toMatch(/^Field " " is not part/);
    expect(issues[2]?.message.length).toBeLessThan(200); // a long key is cut short, like any received value
  });
});
