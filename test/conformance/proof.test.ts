/**
 * The proof of the conformance kit on a second implementation of the interface: one that follows
 * everything the interface states and charges exactly, but chooses otherwise than the reference
 * server wherever the interface is silent. It passes the interface profile, within its budget and
 * with the multiplier inferred, and fails the reference profile on those choices alone: never on
 * a price or a charge.
 */
import { describe, expect, it } from "vitest";
import {
  bigIntHalfUp,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PRICES,
  ORACLE_SURCHARGE,
} from "../oracle/seed.js";
import { proveRun } from "./servers/runs.js";

/** The alternative implementation's account: a multiplier the kit is not told. */
const MULTIPLIER = "1.15";
const BUDGET = 2_000;

/** Every per-image amount of the interface's tables, before the multiplier. */
function everyUnscaledAmount(): number[] {
  const amounts: number[] = [];
  for (const model of ORACLE_MODEL_IDS) {
    const references = ORACLE_SURCHARGE[model] > 0 ? Math.min(14, ORACLE_MAX_REFS[model]) : 0;
    for (const cells of Object.values(ORACLE_PRICES[model])) {
      for (const base of Object.values(cells)) {
        for (let n = 0; n <= references; n++) {
          amounts.push(base + ORACLE_SURCHARGE[model] * n);
        }
      }
    }
  }
  return amounts;
}

describe("the alternative implementation", () => {
  it("P1-P7, S1-S13: passes the interface profile with admin, within its budget", async () => {
    const { report, spent, failed, leaked } = await proveRun({
      double: { multiplier: MULTIPLIER },
      inferMultiplier: true,
      admin: true,
      kit: { budget: BUDGET },
    });
    expect(failed).toEqual([]);
    expect(leaked).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.profile).toBe("interface");
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(BUDGET);
    expect(report.spentCredits).toBe(spent);
    // The money rules were checked, not skipped.
    const passed = report.checks.filter((c) => c.status === "passed").map((c) => c.rule);
    expect(passed).toEqual(
      expect.arrayContaining(["P1", "P3", "P4", "P5", "P6", "S3", "S4", "S5"]),
    );
    expect(passed).toEqual(expect.arrayContaining(["S2", "S6", "S7", "S8", "S13"]));
  });

  it("S4, S5: passes the interface profile when the answers of its first creates are lost", async () => {
    const { report, spent, failed, lostAnswers } = await proveRun({
      double: { multiplier: MULTIPLIER, loseAnswers: 3 },
      kit: { budget: BUDGET, timeoutMs: 5_000 },
    });
    expect(lostAnswers).toBe(3);
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(BUDGET);
    expect(report.spentCredits).toBe(spent);
  });

  it("P4: the inferred multiplier prices every cell as the account's own does", async () => {
    const { report } = await proveRun({
      double: { multiplier: MULTIPLIER },
      inferMultiplier: true,
      kit: { rules: ["P"] },
    });
    expect(report.multiplierSource).toBe("inferred");
    const inferred = report.multiplier ?? "";
    expect(inferred).toMatch(/^\d+(\.\d+)?$/);
    for (const amount of everyUnscaledAmount()) {
      expect(bigIntHalfUp(amount, inferred)).toBe(bigIntHalfUp(amount, MULTIPLIER));
    }
  });

  it("S4: passes the interface profile at budget 0, on another seed, and is charged nothing", async () => {
    const { report, spent, failed } = await proveRun({
      double: { multiplier: MULTIPLIER },
      kit: { seed: 20_261_201, runs: 60 },
    });
    expect(report.seed).toBe(20_261_201);
    expect(failed).toEqual([]);
    expect(report.ok).toBe(true);
    expect(spent).toBe(0);
    expect(report.spentCredits).toBe(0);
  });

  it("N12, S1, S11, S12: fails the reference profile on its own choices, never on money", async () => {
    const { report, spent, largestDebit, failed } = await proveRun({
      double: { multiplier: MULTIPLIER },
      admin: true,
      kit: { budget: BUDGET, profile: "reference" },
    });
    expect(report.ok).toBe(false);
    expect(report.profile).toBe("reference");
    // 422 rather than 400 with issues, 403 rather than 401, no codes, no Request-Id, quotes without
    // a reason, references on text-to-image ignored (accepted and charged: the run stops charging).
    expect(failed).toEqual(expect.arrayContaining(["N12", "S1", "S11", "S12"]));
    for (const rule of ["P1", "P3", "P4", "P5", "P7", "S3", "S4", "S6", "S13"]) {
      expect(failed).not.toContain(rule);
    }
    expect(spent).toBeLessThanOrEqual(BUDGET + largestDebit);
  });

  // Each on its own: the first of them that the alternative accepts stops the run's charging.
  const choices = [
    { rule: "N14", choice: "null for an optional field is the field left out" },
    { rule: "V3", choice: "a quality level is accepted where the price ignores it" },
  ];
  for (const { rule, choice } of choices) {
    it(`${rule}: the reference profile fails its choice that ${choice}`, async () => {
      const { report, spent, largestDebit, failed } = await proveRun({
        double: { multiplier: MULTIPLIER },
        kit: { profile: "reference", rules: [rule] },
      });
      expect(report.ok).toBe(false);
      expect(failed).toEqual([rule]);
      expect(spent).toBeLessThanOrEqual(largestDebit);
    });
  }

  it("S5: the reference profile fails its choices of no Idempotent-Replayed and 422 for a reused key", async () => {
    const { report, failed } = await proveRun({
      double: { multiplier: MULTIPLIER },
      kit: { budget: BUDGET, profile: "reference", rules: ["P4", "P5", "S5"] },
    });
    expect(failed).toEqual(["S5"]);
    const messages = report.checks.find((c) => c.rule === "S5")?.failures.map((f) => f.message);
    expect(messages).toEqual(
      expect.arrayContaining([expect.stringMatching(/409 idempotency_key_reused/)]),
    );
  });

  it("S2: the reference profile fails its choice that a foreign asset is refused 422", async () => {
    const { failed } = await proveRun({
      double: { multiplier: MULTIPLIER },
      admin: true,
      kit: { profile: "reference", rules: ["S2"] },
    });
    expect(failed).toEqual(["S2"]);
  });
});
