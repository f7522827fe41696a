/** Small helpers shared by the property files. */
import fc from "fast-check";
import { expect, vi } from "vitest";
import {
  type GenerationRequest,
  type Issue,
  normalizeRequest,
  type Result,
  validateForModel,
} from "../../src/index.js";

// FC_RUNS raises the runs per property; give each test time in proportion, never less than the
// suite's one minute (100 runs take well under a second): a bound against a hang, not a speed check,
// also on a busy machine. Under mutation testing every run is instrumented and Stryker times each
// mutant itself, so the limit there is only a backstop.
const perRun = process.env.STRYKER === "1" ? 600 : 60;
vi.setConfig({ testTimeout: Math.max(60_000, (fc.readConfigureGlobal().numRuns ?? 100) * perRun) });

/** The whole verdict on a body: shape rules, then the model's own limits. */
export function verdict(body: unknown): Result<GenerationRequest> {
  const normalized = normalizeRequest(body);
  return normalized.success ? validateForModel(normalized.output) : normalized;
}

/** The issues of a verdict (empty when accepted). */
export const issuesOf = (r: Result<unknown>): Issue[] => (r.success ? [] : r.issues);

/** Asserts that a body is rejected, only at `path`, only with one of `codes`. */
export function expectOnly(body: unknown, path: string, codes: readonly string[]): void {
  const found = issuesOf(verdict(body));
  expect(found.length, "rejected").toBeGreaterThan(0);
  for (const issue of found) {
    expect(issue.path).toBe(path);
    expect(codes).toContain(issue.code);
  }
}

/** Asserts that every issue is `{ path, code, message }` with an actionable sentence. */
export function expectWellFormed(issues: readonly Issue[]): void {
  for (const issue of issues) {
    expect(Object.keys(issue).sort()).toEqual(["code", "message", "path"]);
    expect(issue.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
    expect(typeof issue.path).toBe("string");
    expect(issue.message).toMatch(/^[A-Za-z].*\.$/s);
  }
}
