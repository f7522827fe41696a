/**
 * The kit against the package's own reference server over real HTTP, in memory and on PostgreSQL,
 * with and without the admin token, in both profiles: no rule fails, and the run spends within its
 * budget, as the server's own balance says.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runConformance } from "../../src/conformance/index.js";
import { ADMIN_TOKEN, type ListeningReference, startReference } from "./kit/reference.js";

const running: ListeningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** Rules no request can show: skipped in every run, with a reason. */
const UNOBSERVABLE = ["V7", "V8", "P8", "S14", "S15", "S16", "S17"];

describe.each(["memory", "postgres"] as const)("on the %s store", (store) => {
  for (const profile of ["interface", "reference"] as const) {
    for (const admin of [false, true]) {
      it(`P1-P7, N1-N15, V1-V6, S1-S13: the reference server passes the ${profile} profile ${admin ? "with" : "without"} the admin token, within its budget`, async () => {
        const ref = await startReference({ store, ...(admin ? { adminToken: ADMIN_TOKEN } : {}) });
        running.push(ref);
        const start = await ref.balance();
        const budget = 20_000;
        const report = await runConformance({
          baseUrl: ref.url,
          key: ref.key,
          assets: ref.assets,
          budget,
          profile,
          runs: 10,
          ...(admin ? { adminToken: ADMIN_TOKEN } : {}),
        });
        const failed = report.checks.filter((c) => c.status === "failed");
        expect(failed).toEqual([]);
        expect(report.ok).toBe(true);
        const spent = start - (await ref.balance());
        expect(report.spentCredits).toBe(spent);
        expect(spent).toBeGreaterThan(0);
        expect(spent).toBeLessThanOrEqual(budget);
        expect(report.multiplier).toBe("1.15");
        expect(report.multiplierSource).toBe("inferred");
        const status = Object.fromEntries(report.checks.map((c) => [c.rule, c.status]));
        for (const rule of ["S3", "S4", "S5", "P1", "P3", "P4", "P5", "P6", "P7", "N3", "V5"]) {
          expect(status[rule], rule).toBe("passed");
        }
        for (const rule of ["S2", "S6", "S7", "S8", "S13"]) {
          expect(status[rule], rule).toBe(admin ? "passed" : "skipped");
        }
        expect(status.N15).toBe(profile === "reference" ? "passed" : "skipped");
        for (const rule of UNOBSERVABLE) {
          const check = report.checks.find((c) => c.rule === rule);
          expect(check?.status, rule).toBe("skipped");
          expect(check?.reason, rule).toEqual(expect.any(String));
        }
        expect(report.checks).toHaveLength(48);
        expect(JSON.stringify(report)).not.toContain(ref.key);
      });
    }
  }

  it("S4: with budget 0 the reference server is charged nothing, and every charged check is skipped", async () => {
    const ref = await startReference({ store });
    running.push(ref);
    const start = await ref.balance();
    const report = await runConformance({ baseUrl: ref.url, key: ref.key, runs: 5 });
    expect(report.ok).toBe(true);
    expect(report.spentCredits).toBe(0);
    expect(await ref.balance()).toBe(start);
    const byRule = new Map(report.checks.map((c) => [c.rule, c]));
    for (const rule of ["S3", "S4", "P5", "P7"]) {
      expect(byRule.get(rule)?.status, rule).toBe("skipped");
      expect(byRule.get(rule)?.reason, rule).toMatch(/budget \(0\)/);
    }
    for (const rule of ["P1", "P2", "P3", "P4", "N2", "V5", "S1", "S9", "S10", "S11"]) {
      expect(byRule.get(rule)?.status, rule).toBe("passed");
    }
  });
});
