/**
 * Prices over time: a checked list of catalogs, oldest first, and the one in force at an instant
 * (P8).
 *
 * A catalog's `version` is the UTC date (`YYYY-MM-DD`) its prices take effect, at 00:00 UTC. The
 * catalog in force at an instant is the last one whose version date is not after it, so a change
 * applies from its first millisecond and every instant has exactly one catalog (or none, before the
 * first).
 */
import * as v from "valibot";
import { show } from "../messages.js";
import { SHIPPED_CATALOGS } from "./catalog.js";
import { type Catalog, CatalogSchema } from "./modelSpec.js";

/** One thing wrong with a catalog history, naming the entry (`index: null` for the list itself). */
export type CatalogHistoryProblem = {
  /** Position of the entry in the history, from 0; `null` when the history itself is wrong. */
  index: number | null;
  /** The entry's `version` as given (`null` when it has none). */
  version: unknown;
  /** What is wrong, for a person (the field path first when a catalog's schema refused it). */
  message: string;
};

/** A catalog history that is not a valid one: every problem found, each naming its entry. */
export class CatalogHistoryError extends TypeError {
  override readonly name = "CatalogHistoryError";
  /** Every problem, in entry order. */
  readonly problems: readonly CatalogHistoryProblem[];

  /**
   * Builds the error from its problems; the message lists them all.
   *
   * @param problems - At least one problem.
   */
  constructor(problems: readonly CatalogHistoryProblem[]) {
    super(`Invalid catalog history: ${problems.map(describeProblem).join("; ")}.`);
    this.problems = problems;
  }
}

/**
 * No catalog of the history is in force yet at the instant asked (it is before the first version).
 */
export class NoCatalogInForceError extends RangeError {
  override readonly name = "NoCatalogInForceError";
  /** The instant asked, as an ISO 8601 string (UTC). */
  readonly instant: string;
  /** The version of the history's first catalog. */
  readonly firstVersion: string;

  /**
   * Builds the error for an instant before the first catalog.
   *
   * @param instant - The instant asked, in epoch milliseconds.
   * @param firstVersion - The version of the history's first catalog.
   */
  constructor(instant: number, firstVersion: string) {
    super(
      `No catalog is in force at ${new Date(instant).toISOString()}: the first one takes ` +
        `effect at ${firstVersion}T00:00:00.000Z.`,
    );
    this.instant = new Date(instant).toISOString();
    this.firstVersion = firstVersion;
  }
}

/** The next catalog of a history after an instant: its version and when it takes effect. */
export type CatalogChangeTime = {
  /** The catalog's version, the UTC date it takes effect. */
  version: string;
  /** When it takes effect: the version date at 00:00 UTC, as an ISO 8601 string. */
  effectiveAt: string;
  /** The same instant in epoch milliseconds. */
  effectiveAtMs: number;
  /** The catalog itself. */
  catalog: Catalog;
};

/** An instant: a `Date`, epoch milliseconds or an ISO 8601 string. */
export type Instant = Date | number | string;

function describeProblem(p: CatalogHistoryProblem): string {
  const message = p.message.replace(/\.$/, "");
  if (p.index === null) {
    return message;
  }
  const version = typeof p.version === "string" ? p.version : show(p.version);
  return `entry ${p.index} (version ${version}): ${message}`;
}

const MAX_DATE_MS = 8.64e15;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
// A date, or a date and time with a UTC offset: local times without one would depend on the
// machine.
const DATE_TIME = new RegExp(
  [
    // The date,
    String.raw`^(\d{4})-(\d{2})-(\d{2})`,
    // the time (its seconds and their fraction optional),
    String.raw`[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?`,
    // Z or the offset.
    String.raw`(?:([Zz])|([+-])(\d{2}):(\d{2}))$`,
  ].join(""),
);

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch milliseconds of a calendar date at 00:00 UTC, or `undefined` when it is not one. */
function dateStart(year: number, month: number, day: number): number | undefined {
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return undefined;
  }
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // Date.UTC would read years 0-99 as 1900-1999
  return d.getTime();
}

/**
 * When a catalog version takes effect: its date at 00:00 UTC in epoch milliseconds, or `undefined`
 * when `version` is not a `YYYY-MM-DD` calendar date.
 *
 * @param version - A catalog's `version`.
 * @returns Epoch milliseconds, or `undefined`.
 * @internal
 */
export function versionStart(version: unknown): number | undefined {
  const m = typeof version === "string" ? DATE.exec(version) : null;
  return m ? dateStart(Number(m[1]), Number(m[2]), Number(m[3])) : undefined;
}

function parseIsoInstant(text: string): number | undefined {
  const trimmed = text.trim();
  const date = versionStart(trimmed);
  if (date !== undefined) {
    return date;
  }
  const m = DATE_TIME.exec(trimmed);
  if (!m) {
    return undefined;
  }
  const start = dateStart(Number(m[1]), Number(m[2]), Number(m[3]));
  // Stryker disable next-line StringLiteral: Number("") is 0 as well
  const [hours, minutes, seconds] = [Number(m[4]), Number(m[5]), Number(m[6] ?? "0")];
  // Stryker disable next-line ConditionalExpression: without it the sum below is NaN, which
  // toEpochMs refuses too
  if (start === undefined) {
    return undefined;
  }
  if (hours > 23 || minutes > 59 || seconds > 59) {
    return undefined;
  }
  // Digits past the millisecond are dropped: version boundaries are whole milliseconds, so
  // flooring never moves an instant across one.
  const millis = Number((m[7] ?? "").padEnd(3, "0").slice(0, 3));
  let offset = 0;
  if (m[9] !== undefined) {
    const [oh, om] = [Number(m[10]), Number(m[11])];
    if (oh > 23 || om > 59) {
      return undefined;
    }
    offset = (m[9] === "-" ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  // A four-digit year is well inside the Date range, so the sum needs no bound here.
  return start + ((hours * 60 + minutes) * 60 + seconds) * 1000 + millis - offset;
}

/**
 * Reads an instant: a valid `Date`, finite epoch milliseconds within the `Date` range, or an ISO
 * 8601 string: a date (`"2027-01-15"`, meaning 00:00 UTC) or a date and time with `Z` or an offset
 * (`"2027-01-15T09:30:00Z"`, `"2027-01-15T10:30:00.250+01:00"`).
 *
 * @param when - The instant.
 * @returns Epoch milliseconds.
 * @throws RangeError naming the value, for anything else (a time without an offset included).
 */
export function toEpochMs(when: Instant): number {
  let ms = Number.NaN; // any other value is not an instant
  if (Object.prototype.toString.call(when) === "[object Date]") {
    ms = (when as Date).getTime();
  } else if (typeof when === "number") {
    ms = when;
  } else if (typeof when === "string") {
    ms = parseIsoInstant(when) ?? Number.NaN;
  }
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) {
    const got =
      Object.prototype.toString.call(when) === "[object Date]" ? "an invalid Date" : show(when);
    throw new RangeError(
      "An instant must be a valid Date, epoch milliseconds or an ISO 8601 date or " +
        `date-time with a UTC offset (such as "2027-01-15" or "2027-01-15T09:30:00Z"); ` +
        `received ${got}.`,
    );
  }
  return ms;
}

/**
 * The start of each entry (epoch ms) and what keeps the history from choosing an entry: not a
 * non-empty list (one problem, `index: null`), a version that is not a calendar date, or versions
 * not strictly increasing (at most one problem per entry).
 */
function readStarts(history: readonly Catalog[]): {
  starts: number[];
  problems: CatalogHistoryProblem[];
} {
  if (!Array.isArray(history) || history.length === 0) {
    const message = "a catalog history must be a non-empty array of catalogs, oldest first";
    // Stryker disable next-line ArrayDeclaration: the starts of a history with a problem are never
    // read
    return { starts: [], problems: [{ index: null, version: null, message }] };
  }
  const out: number[] = [];
  const problems: CatalogHistoryProblem[] = [];
  // The latest entry with a valid version.
  let last: { index: number; start: number; version: unknown } | undefined;
  history.forEach((entry, index) => {
    const version: unknown =
      typeof entry === "object" && entry !== null ? entry.version : undefined;
    const start = versionStart(version);
    if (start === undefined) {
      problems.push({
        index,
        version,
        message:
          "version must be a calendar date written YYYY-MM-DD (the UTC day it takes effect).",
      });
    } else {
      if (last !== undefined && start <= last.start) {
        problems.push({
          index,
          version,
          message:
            `versions must be strictly increasing, oldest first, and entry ${last.index} ` +
            `has version ${String(last.version)}`,
        });
      }
      last = { index, start, version };
    }
    out.push(start ?? Number.NaN);
  });
  return { starts: out, problems };
}

/** The start of each entry (epoch ms), for choosing one; throws when the history cannot choose. */
function starts(history: readonly Catalog[]): number[] {
  const { starts: out, problems } = readStarts(history);
  if (problems.length > 0) {
    throw new CatalogHistoryError(problems);
  }
  return out;
}

/**
 * Checks a catalog history and returns it unchanged: a non-empty list, oldest first, of valid
 * catalogs (as `defineCatalog` checks one) whose versions are calendar dates, strictly
 * increasing.
 *
 * @param history - The catalogs, oldest first.
 * @returns The same list.
 * @throws {@link CatalogHistoryError} listing every problem, each naming its entry by index and
 * version.
 * @example
 * ```ts
 * const prices = defineCatalogHistory([catalog, { ...catalog, version: "2027-01-01", models: { ...
 * } }]);
 * ```
 */
export function defineCatalogHistory<const H extends readonly Catalog[]>(history: H): H {
  const problems: CatalogHistoryProblem[] = [];
  if (Array.isArray(history)) {
    history.forEach((entry, index) => {
      const result = v.safeParse(CatalogSchema, entry);
      if (!result.success) {
        const version: unknown =
          typeof entry === "object" && entry !== null ? entry.version : undefined;
        for (const issue of result.issues) {
          problems.push({
            index,
            version,
            message: `${v.getDotPath(issue) ?? "(catalog)"}: ${issue.message}`,
          });
        }
      }
    });
  }
  // A version the schema already refused is named once: a version the schema accepts as a date but
  // that is no calendar date is named here, and an entry has an ordering problem only when its
  // version is a calendar date, which the schema accepts.
  const refused = new Set(
    problems.filter((p) => p.message.startsWith("version:")).map((p) => p.index),
  );
  problems.push(...readStarts(history).problems.filter((p) => !refused.has(p.index)));
  if (problems.length > 0) {
    // Entry order; a stable sort keeps each entry's problems in order. The list's own problem
    // (`index: null`) comes only from a value that is no list or an empty one, and so comes alone.
    throw new CatalogHistoryError(problems.sort((a, b) => Number(a.index) - Number(b.index)));
  }
  return history;
}

/**
 * Every catalog the package ships, oldest first (P8); the last is `catalog`.
 *
 * The test suite checks it with {@link defineCatalogHistory}; it is not checked again at each
 * import.
 *
 * @example
 * ```ts
 * catalogHistory.map((c) => c.version); // ["2026-11-20"]
 * ```
 */
export const catalogHistory: readonly Catalog[] = /* @__PURE__ */ Object.freeze([
  ...SHIPPED_CATALOGS,
]);

/**
 * The index of the entry in force at `ms`, or -1 before the first (binary search over the starts).
 */
function indexAt(startsMs: readonly number[], ms: number): number {
  let lo = 0;
  // Invariant: entries before lo start at or before ms, entries from hi after it.
  let hi = startsMs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((startsMs[mid] as number) <= ms) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo - 1;
}

/**
 * The catalog in force at an instant (P8): the last entry of `history` whose version date
 * (00:00 UTC) is not after `when`.
 *
 * To price at an instant, give the core functions the history and
 * the instant: `quote(spec, { account, catalog: catalogHistory, at: when })`,
 * `computeCharge(request, { account, catalog: catalogHistory, at: when })`.
 *
 * Each call checks the versions (dates, strictly increasing) but not the catalogs themselves: check
 * a history of your own once with {@link defineCatalogHistory}.
 *
 * @param history - Catalogs, oldest first, such as {@link catalogHistory}.
 * @param when - A `Date`, epoch milliseconds, or an ISO 8601 date (`"2027-01-15"`, 00:00 UTC) or
 *   date-time with `Z` or an offset.
 * @returns The catalog in force then.
 * @throws RangeError naming `when` when it is not an instant; {@link NoCatalogInForceError} (a
 *   RangeError) when it is before the first entry, since no price is known then (P2: never a
 *   fallback); {@link CatalogHistoryError} when the history is empty or its versions are not
 *   increasing dates.
 * @example
 * ```ts
 * const then = catalogAt(catalogHistory, "2027-01-15T09:30:00Z");
 * then.version; // the catalog's version, the UTC date its prices took effect
 * ```
 */
export function catalogAt(history: readonly Catalog[], when: Instant): Catalog {
  const ms = toEpochMs(when);
  const startsMs = starts(history);
  const index = indexAt(startsMs, ms);
  // starts() refuses an empty history, so the first entry exists, and indexAt returns an entry's
  // index or -1.
  if (index < 0) {
    throw new NoCatalogInForceError(ms, (history[0] as Catalog).version);
  }
  return history[index] as Catalog;
}

/**
 * The next change of a history after an instant, so that a price preview can say "prices change
 * on ...".
 *
 * It is the first catalog whose version date is after `when`; before the first entry, that is the
 * first entry.
 *
 * @param history - Catalogs, oldest first.
 * @param when - A `Date`, epoch milliseconds or an ISO 8601 string, as for {@link catalogAt}.
 * @returns The next catalog's version, when it takes effect and the catalog, or `undefined` when
 *   the catalog in force at `when` is the last one known.
 * @throws RangeError naming `when` when it is not an instant; {@link CatalogHistoryError} as for
 *   {@link catalogAt}.
 */
export function nextCatalogChange(
  history: readonly Catalog[],
  when: Instant,
): CatalogChangeTime | undefined {
  const ms = toEpochMs(when);
  const startsMs = starts(history);
  const index = indexAt(startsMs, ms) + 1;
  if (index >= history.length) {
    return undefined;
  }
  const next = history[index] as Catalog;
  const at = startsMs[index] as number;
  return {
    version: next.version,
    effectiveAt: new Date(at).toISOString(),
    effectiveAtMs: at,
    catalog: next,
  };
}
