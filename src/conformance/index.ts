/**
 * The conformance kit (`<package>/conformance`): holds any server of the service interface to the
 * rule book, with this package's core as the oracle of every price and every refusal, within a
 * spend
 * budget. `imagegen-pricing conformance <url>` runs it from the command line.
 *
 * @module imagegen-pricing/conformance
 */
import { parseMultiplier } from "../index.js";
import { checkAdmin } from "./admin.js";
import { checkCharged } from "./charged.js";
import { ConformanceError, checkIdentity } from "./identity.js";
import { checkQuotes } from "./quotes.js";
import { checkAuth, checkErrors, checkRefusals } from "./refusals.js";
import { selectRules } from "./rules.js";
import { Run, type Settings } from "./run.js";
import type { ConformanceOptions, ConformanceReport } from "./types.js";

export { ConformanceError } from "./identity.js";
export { formatReport, toJUnit } from "./report.js";
export type {
  CheckStatus,
  ConformanceFailure,
  ConformanceOptions,
  ConformanceProfile,
  ConformanceReport,
  MultiplierSource,
  ReportedRequest,
  RuleCheck,
} from "./types.js";

/** The rules no request can show, with why: skipped in every run. */
const UNOBSERVABLE: Record<string, string> = {
  V7: "that limits come from the model table is a property of the code, not of answers",
  V8: "the interface shows no output format before a job completes",
  P8: "prices over time need a catalog change the kit cannot make",
  S8: "a stored task is shown by no endpoint of the interface (the admin API shows it)",
  S14: "several instances on one store are not visible from one URL",
  S15: "bounded work and cut echoes need hostile loads the kit does not send",
  S16: "the database's time bound needs a database the kit cannot stop",
  S17: "the test-double controls are the reference server's own",
};

/**
 * Reads the options into settings, each default filled in.
 *
 * @throws {@link ConformanceError} naming the option that is wrong.
 */
function settle(options: ConformanceOptions): Settings {
  let url: URL;
  try {
    url = new URL(options.baseUrl);
  } catch {
    throw new ConformanceError(
      `baseUrl must be an http or https URL; received "${options.baseUrl}".`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConformanceError(
      `baseUrl must be an http or https URL; received "${options.baseUrl}".`,
    );
  }
  if (typeof options.key !== "string" || options.key.trim() === "") {
    throw new ConformanceError("key must be the API key of the account to check.");
  }
  const whole = (name: string, value: number | undefined, fallback: number, min: number) => {
    const n = value ?? fallback;
    if (!Number.isSafeInteger(n) || n < min) {
      throw new ConformanceError(
        `${name} must be a whole number of at least ${min}; received ${String(value)}.`,
      );
    }
    return n;
  };
  let multiplier: string | undefined;
  if (options.multiplier !== undefined) {
    const parsed = parseMultiplier(options.multiplier);
    if (!parsed) {
      throw new ConformanceError(
        "multiplier must be a plain decimal from 0 to 1000, such as 1.15; received " +
          `"${String(options.multiplier)}".`,
      );
    }
    multiplier = parsed.text;
  }
  const profile = options.profile ?? "interface";
  if (profile !== "interface" && profile !== "reference") {
    throw new ConformanceError(
      `profile must be "interface" or "reference"; received "${String(profile)}".`,
    );
  }
  let rules: Set<string>;
  try {
    rules = selectRules(options.rules);
  } catch (error) {
    throw new ConformanceError((error as Error).message);
  }
  const fetcher = options.fetch ?? globalThis.fetch;
  if (typeof fetcher !== "function") {
    throw new ConformanceError("No fetch: pass options.fetch on a runtime without a global fetch.");
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  return {
    baseUrl,
    key: options.key.trim(),
    budget: whole("budget", options.budget, 0, 0),
    multiplier,
    assets: [...new Set((options.assets ?? []).map((id) => id.trim()).filter((id) => id !== ""))],
    adminToken: options.adminToken,
    adminUrl: (options.adminUrl ?? baseUrl).replace(/\/+$/, ""),
    profile,
    rules,
    seed: whole("seed", options.seed, 1, 0),
    runs: whole("runs", options.runs, 25, 0),
    concurrency: whole("concurrency", options.concurrency, 4, 1),
    timeoutMs: whole("timeoutMs", options.timeoutMs, 10_000, 1),
    fetch: fetcher,
  };
}

/**
 * Runs the conformance kit against a server of the service: free checks always (quotes, refusals,
 * auth, ping and credits, error bodies; each verified to charge nothing), charged checks within the
 * budget, and refunds and the ledger with an admin token.
 *
 * @param options - The server, the key, the budget and what to check.
 * @returns The report: one verdict per rule, the credits spent (read from the balance), the
 *   multiplier used and where it came from. The key appears nowhere in it.
 * @throws {@link ConformanceError} when the run cannot start: an option is wrong, the server cannot
 *   be reached, or GET /api/ping refuses the key.
 * @example
 * ```ts
 * const report = await runConformance({ baseUrl: "http://127.0.0.1:8787", key, budget: 2000 });
 * report.checks.filter((c) => c.status === "failed").map((c) => c.rule); // [] for a conforming
 * server
 * ```
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const run = new Run(settle(options));
  await checkIdentity(run);
  const book = await checkQuotes(run);
  await checkRefusals(run);
  await checkAuth(run);
  await checkErrors(run);
  const state = await checkCharged(run, book);
  await checkAdmin(run, state);
  for (const [rule, reason] of Object.entries(UNOBSERVABLE)) {
    run.skip(rule, reason);
  }
  const end = await run.balance();
  if (end !== undefined) {
    run.lastBalance = end;
  }
  const checks = run.checks();
  const report: ConformanceReport = {
    ok: checks.every((check) => check.status !== "failed"),
    baseUrl: run.settings.baseUrl,
    profile: run.settings.profile,
    seed: run.settings.seed,
    budget: run.settings.budget,
    spentCredits: run.startBalance - run.lastBalance,
    multiplier: run.multiplier,
    multiplierSource: run.multiplierSource,
    requests: run.http.sent,
    checks,
  };
  // The key never reaches the report, wherever a server may have put it.
  return JSON.parse(run.http.mask(JSON.stringify(report))) as ConformanceReport;
}
