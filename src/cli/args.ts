/**
 * Command-line values shared by the commands: their common options, whole numbers and the instant
 * to price at.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Catalog, catalog, catalogAt, catalogHistory, parseMultiplier } from "../index.js";
import { type CliIo, UsageError } from "./io.js";

/**
 * The edits (a letter added, removed, changed, or two swapped) that turn `a` into `b`: the optimal
 * string alignment distance, so that `modle` is one edit from `model`.
 */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, at(i - 2, j - 2) + 1);
      }
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The known names a mistyped one most likely meant: those it begins (`res` for `resolution`), else
 * those fewest edits away, at most two and fewer than half its letters; none when nothing is near.
 *
 * @param given - What was typed, without its dashes.
 * @param known - The names it may have meant.
 * @returns Up to three names, nearest first.
 */
export function nearestNames(given: string, known: readonly string[]): string[] {
  const begun = given.length >= 2 ? known.filter((name) => name.startsWith(given)) : [];
  if (begun.length > 0) {
    return begun.slice(0, 3);
  }
  const scored = known
    .map((name) => ({ name, distance: editDistance(given, name) }))
    .filter(({ distance }) => distance <= 2 && distance < given.length / 2);
  const least = Math.min(...scored.map(({ distance }) => distance));
  return scored.filter(({ distance }) => distance === least).map(({ name }) => name);
}

/** "did you mean --a?", "did you mean --a or --b?": the question for a list of suggestions. */
export function didYouMean(names: readonly string[]): string {
  const last = names.at(-1);
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${last}` : last;
  return `did you mean ${list}?`;
}

/**
 * Reads a command's arguments with `node:util` parseArgs; its errors become a {@link UsageError} in
 * one sentence, and an unknown option suggests the nearest known one (`--res`: did you mean
 * `--resolution`?) or lists them all.
 *
 * @param config - What parseArgs takes: the arguments and the options they may hold.
 * @returns What parseArgs returns: the values and the positionals.
 * @throws UsageError when the arguments do not fit the options.
 */
export function parseOptions<T extends ParseArgsConfig>(
  config: T,
): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== "string" || !code.startsWith("ERR_PARSE_ARGS")) {
      throw error;
    }
    const options = Object.keys(config.options ?? {}).map((name) => `--${name}`);
    const unknown = /^Unknown option '(-{1,2}[^'=]*)/.exec((error as Error).message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown !== undefined) {
      const near = unknown.startsWith("--")
        ? nearestNames(
            unknown.slice(2),
            options.map((o) => o.slice(2)),
          ).map((n) => `--${n}`)
        : [];
      const hint = near.length > 0 ? didYouMean(near) : `the options are ${options.join(", ")}.`;
      throw new UsageError(`Unknown option ${unknown}; ${hint}`);
    }
    // parseArgs goes on at length about passing a value that starts with "-": its first sentence is
    // the point.
    const first = ((error as Error).message.split(". To specify")[0] ?? "").replace(/\.$/, "");
    throw new UsageError(`${first}.`);
  }
}

/**
 * `--multiplier` as the account to price for (none without it): a bad command line unless P4
 * accepts it.
 */
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
