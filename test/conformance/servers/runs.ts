/**
 * Runs the conformance kit against a listening service double, and reads what the run cost from the
 * double's own state (never from the kit's report).
 */
import { runConformance } from "../../../src/conformance/index.js";
import type { ConformanceOptions, ConformanceReport } from "../../../src/conformance/types.js";
import type { DoubleOptions } from "./double.js";
import { type ListeningDouble, listenDouble } from "./http.js";
import { ADMIN_TOKEN } from "./probes.js";

/** A run's report, and what it cost as the server's own state says. */
export type ProvedRun = {
  report: ConformanceReport;
  /** The balance at the start minus the balance at the end, from the server's state. */
  spent: number;
  /** The largest single debit of the run: the price of its most expensive request. */
  largestDebit: number;
  /** The rules that failed, in the report's order. */
  failed: string[];
  /** How many answers the server lost on purpose. */
  lostAnswers: number;
  /** The secrets of the run (the key, the admin token) that the JSON report holds: none, rightly. */
  leaked: string[];
};

/** What a proof run is given besides the server: the kit's options, and the double's. */
export type ProofRunOptions = {
  double?: DoubleOptions;
  kit?: Partial<ConformanceOptions>;
  /** Tell the kit the multiplier (default) or let it infer it. */
  inferMultiplier?: boolean;
  /** Give the kit the admin token and URL. */
  admin?: boolean;
};

/**
 * Starts a double over HTTP, runs the kit against it with the caller's key and assets, and stops it.
 *
 * @param options - The double's options, the kit's, and whether to pass the multiplier and admin.
 * @returns The report, the credits spent and the largest single debit, from the double's state.
 */
export async function proveRun(options: ProofRunOptions = {}): Promise<ProvedRun> {
  const double: ListeningDouble = await listenDouble({
    ...options.double,
    ...(options.admin && { adminToken: ADMIN_TOKEN }),
  });
  const start = double.balance();
  try {
    const report = await runConformance({
      baseUrl: double.baseUrl,
      key: double.key,
      assets: double.assets,
      ...(!options.inferMultiplier && { multiplier: double.multiplier }),
      ...(options.admin && { adminToken: ADMIN_TOKEN, adminUrl: double.baseUrl }),
      ...options.kit,
    });
    const text = JSON.stringify(report);
    return {
      report,
      leaked: [double.key, ADMIN_TOKEN].filter((secret) => text.includes(secret)),
      spent: start - double.balance(),
      largestDebit: double.largestDebit(),
      lostAnswers: double.lostAnswers(),
      failed: report.checks.filter((c) => c.status === "failed").map((c) => c.rule),
    };
  } finally {
    await double.close();
  }
}
