/** Command-line values shared by the commands: their common options, whole numbers and the instant to price at. */
import { type Catalog, catalog, catalogAt, catalogHistory, parseMultiplier } from "../index.js";
import { type CliIo, UsageError } from "./io.js";

/** `--multiplier` as the account to price for (none without it): a bad command line unless P4 accepts it. */
export function accountOption(multiplier: string | undefined): { multiplier: string } | undefined {
  if (multiplier === undefined || parseMultiplier(multiplier)) {
    return multiplier === undefined ? undefined : { multiplier };
  }
  throw new UsageError(
    `--multiplier must be a plain decimal from 0 to 1000, such as 1.15; received "${multiplier}".`,
  );
}

/** `--json` and `--help`, which every command but `serve` takes. */
export const JSON_AND_HELP = {
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** {@link JSON_AND_HELP} and `--at`, for the commands that read the catalog. */
export const CATALOG_OPTIONS = { at: { type: "string" }, ...JSON_AND_HELP } as const;

/**
 * Reads a whole-number argument; anything that is not written as one is a usage error, so that
 * `--refs abc` is caught here while `--refs 99` reaches the pricing rules (and their reason code).
 */
export function wholeNumber(name: string, text: string, min: number): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < min || !Number.isSafeInteger(Number(trimmed))) {
    throw new UsageError(
      `${name} must be a whole number${min > 0 ? ` of at least ${min}` : ""}; received "${text}".`,
    );
  }
  return Number(trimmed);
}

/**
 * The catalog an `--at` option selects: the history's catalog in force at that instant (P8), or the
 * newest catalog without one. `io` may give the history and the clock of `--at now`.
 */
export function catalogForAt(at: string | undefined, io: Pick<CliIo, "history" | "now">): Catalog {
  const history = io.history ?? catalogHistory;
  if (at === undefined) {
    return io.history ? (history.at(-1) as Catalog) : catalog;
  }
  try {
    return catalogAt(history, at.trim() === "now" ? (io.now ?? Date.now)() : at);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new UsageError(`--at "${at}": ${error.message}`);
    }
    throw error;
  }
}
