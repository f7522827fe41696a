/**
 * The test clock of a reference server (S17): the one time every part of a request reads, real time
 * until the test-double controls freeze it or move it forward, never back and never past the last
 * instant it shows.
 */
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { toEpochMs } from "../models/history.js";
import { serverMessages as m } from "./messages.js";

/**
 * How the test clock is moved: to an instant, forward by some milliseconds, or frozen or running.
 */
export type ClockChange =
  | { readonly now: string }
  | { readonly advanceMs: number }
  | { readonly frozen: boolean };

/** The test clock as the admin API shows it. */
export type ClockView = {
  /** The clock's now, ISO 8601 (UTC). */
  readonly now: string;
  /** Whether it stands still at `now`. */
  readonly frozen: boolean;
};

/**
 * The server's one clock, which the test-double controls freeze and move forward, never back (S17).
 * @internal
 */
export type ServerClock = {
  /**
   * Now, in epoch milliseconds: frozen, or real time plus what it was advanced; never past 9999.
   */
  readonly now: () => number;
  /**
   * Real time (the `now` option), never frozen: for what must end by itself whatever the test
   * clock does (the admin token's throttle window).
   */
  readonly realNow: () => number;
  readonly view: () => ClockView;
  /** Moves the clock; a refused change names its field and changes nothing. */
  readonly change: (
    change: unknown,
  ) => { ok: true; view: ClockView } | { ok: false; field: string; code: string; message: string };
  /** Back on real time, running (a reset). */
  readonly reset: () => void;
};

/**
 * The last instant the clock shows, 9999-12-31T23:59:59.999Z: the last with a four-digit year,
 * which every client's date type reads (Python's `datetime` stops there). A running clock is set at
 * most a year inside it (9999-01-01), and would stop at it rather than pass it.
 */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const LATEST_RUNNING_MS = Date.UTC(9999, 0, 1);
const CLOCK_FIELDS = ["now", "advanceMs", "frozen"] as const;
const ONE_OF =
  'one of now (an ISO 8601 instant with Z or an offset, such as "2027-01-01T00:00:00Z"), ' +
  "advanceMs (whole milliseconds, 0 or more) or frozen (true or false)";

/**
 * An instant as ISO 8601 (UTC) that never throws: one past the clock's last instant (only an older
 * version could store one) reads as that instant. @internal
 */
export function isoInstant(ms: number): string {
  return new Date(Math.min(ms, LATEST_MS)).toISOString();
}
const iso = isoInstant;
const LATEST = iso(LATEST_MS);
const LATEST_RUNNING = iso(LATEST_RUNNING_MS);

/**
 * Makes the clock of one server over real time (the server's `now` option). Frozen, it stands at
 * one instant; running, it is real time plus an offset, which `advanceMs` on a running clock adds
 * to. Every change keeps it at or after its current now; only {@link ServerClock.reset} puts it
 * back on real time. @internal
 */
export function createServerClock(real: () => number): ServerClock {
  let frozenAt: number | undefined;
  let offsetMs = 0;
  const now = () => frozenAt ?? Math.min(real() + offsetMs, LATEST_MS);
  const view = (): ClockView => ({ now: iso(now()), frozen: frozenAt !== undefined });
  const refuse = (field: string, code: string, message: string) => ({
    ok: false as const,
    field,
    code,
    message,
  });

  return {
    now,
    realNow: real,
    view,
    change(change) {
      if (typeof change !== "object" || change === null || Array.isArray(change)) {
        return refuse(
          "",
          "invalid_type",
          `The clock change must be a JSON object with ${ONE_OF}; received ${show(change)}.`,
        );
      }
      const fields = Object.keys(change);
      const unknown = fields.find((f) => !(CLOCK_FIELDS as readonly string[]).includes(f));
      if (unknown !== undefined) {
        return refuse(
          safeEcho(unknown),
          "unknown_field",
          `${show(unknown)} is not a field of a clock change; use ${ONE_OF}.`,
        );
      }
      const given = CLOCK_FIELDS.filter(
        (f) => (change as Record<string, unknown>)[f] !== undefined,
      );
      const field = given[0];
      if (field === undefined) {
        return refuse("", "required", `Give ${ONE_OF}.`);
      }
      if (given.length > 1) {
        return refuse(
          given[1] as string,
          "one_change",
          `Give only one of now, advanceMs and frozen; received ${given.join(" and ")}.`,
        );
      }
      const value = (change as Record<string, unknown>)[field];
      const current = now();
      if (field === "now") {
        let at: number;
        try {
          if (typeof value !== "string") {
            throw new RangeError("not a string");
          }
          at = toEpochMs(value);
        } catch {
          return refuse(
            "now",
            "invalid_instant",
            "now must be an ISO 8601 instant with Z or an offset, such as " +
              `"2027-01-01T00:00:00Z"; received ${show(value)}.`,
          );
        }
        if (at < current) {
          return refuse("now", "clock_backward", m.clockBackward(iso(at), iso(current)));
        }
        if (at > LATEST_MS) {
          return refuse(
            "now",
            "invalid_instant",
            `now must be at or before ${LATEST}, the clock's last instant; received ` +
              `${show(value)}.`,
          );
        }
        frozenAt = at;
      } else if (field === "advanceMs") {
        // A running clock keeps a year inside the bound, a frozen one may reach it.
        const room = Math.max(
          0,
          (frozenAt === undefined ? LATEST_RUNNING_MS : LATEST_MS) - current,
        );
        if (
          typeof value !== "number" ||
          !Number.isSafeInteger(value) ||
          value < 0 ||
          value > room
        ) {
          const until =
            frozenAt === undefined
              ? `${LATEST_RUNNING}, the latest a running clock may show`
              : LATEST;
          return refuse(
            "advanceMs",
            "invalid_advance",
            `advanceMs must be whole milliseconds from 0 to ${room} (the clock only ` +
              `moves forward, to ${until} at most); received ${show(value)}.`,
          );
        }
        if (frozenAt === undefined) {
          offsetMs += value;
        } else {
          frozenAt += value;
        }
      } else {
        if (typeof value !== "boolean") {
          return refuse(
            "frozen",
            "invalid_frozen",
            `frozen must be true or false; received ${show(value)}.`,
          );
        }
        if (value) {
          frozenAt = current;
        } else if (current > LATEST_RUNNING_MS) {
          return refuse(
            "frozen",
            "invalid_frozen",
            `frozen: false needs the clock at or before ${LATEST_RUNNING}, the latest a ` +
              `running clock may show; it stands at ${iso(current)} and stays frozen (a ` +
              "reset puts it on real time).",
          );
        } else {
          // Running again at real speed: on real time, unless that is behind the clock's now.
          offsetMs = Math.max(0, current - real());
          frozenAt = undefined;
        }
      }
      return { ok: true, view: view() };
    },
    reset() {
      frozenAt = undefined;
      offsetMs = 0;
    },
  };
}
