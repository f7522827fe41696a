/**
 * The test clock of a reference server (S17): the one time every part of a request reads, real time
 * until the test-double controls freeze it or move it forward, never back.
 */
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { toEpochMs } from "../models/history.js";
import { serverMessages as m } from "./messages.js";

/** How the test clock is moved: to an instant, forward by some milliseconds, or frozen or running. */
export type ClockChange = { readonly now: string } | { readonly advanceMs: number } | { readonly frozen: boolean };

/** The test clock as the admin API shows it. */
export type ClockView = {
  /** The clock's now, ISO 8601 (UTC). */
  readonly now: string;
  /** Whether it stands still at `now`. */
  readonly frozen: boolean;
};

/**
 * The server's one clock: the time every part of a request reads (`now`), which the test-double
 * controls freeze and move forward, never back (S17).
 *
 * @internal
 */
export type ServerClock = {
  /** Now, in epoch milliseconds: frozen, or real time plus what it was advanced. */
  readonly now: () => number;
  /**
   * Real time (the `now` option), never frozen: for what must end by itself whatever the test
   * clock does (the admin token's throttle window).
   */
  readonly realNow: () => number;
  /** The clock as the admin API shows it. */
  readonly view: () => ClockView;
  /** Moves the clock; a refused change names its field and changes nothing. */
  readonly change: (
    change: unknown,
  ) => { ok: true; view: ClockView } | { ok: false; field: string; code: string; message: string };
  /** Back on real time, running (a reset). */
  readonly reset: () => void;
};

/** The latest instant a `Date` holds: the clock is never moved past it. */
const MAX_INSTANT_MS = 8.64e15;
const CLOCK_FIELDS = ["now", "advanceMs", "frozen"] as const;
const ONE_OF =
  'one of now (an ISO 8601 instant with Z or an offset, such as "2027-01-01T00:00:00Z"), advanceMs (whole milliseconds, 0 or more) or frozen (true or false)';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Makes the clock of one server over real time. Frozen, it stands at one instant; running, it is real
 * time plus an offset, which `advanceMs` on a running clock adds to. Every change keeps it at or after
 * its current now; only {@link ServerClock.reset} puts it back on real time.
 *
 * @param real - Real time in epoch milliseconds (the server's `now` option, default `Date.now`).
 * @returns The clock.
 * @internal
 */
export function createServerClock(real: () => number): ServerClock {
  let frozenAt: number | undefined;
  let offsetMs = 0;
  const now = () => frozenAt ?? real() + offsetMs;
  const view = (): ClockView => ({ now: iso(now()), frozen: frozenAt !== undefined });
  const refuse = (field: string, code: string, message: string) => ({ ok: false as const, field, code, message });

  return {
    now,
    realNow: real,
    view,
    change(change) {
      if (typeof change !== "object" || change === null || Array.isArray(change)) {
        return refuse("", "invalid_type", `The clock change must be a JSON object with ${ONE_OF}; received ${show(change)}.`);
      }
      const fields = Object.keys(change);
      const unknown = fields.find((f) => !(CLOCK_FIELDS as readonly string[]).includes(f));
      if (unknown !== undefined) {
        return refuse(safeEcho(unknown), "unknown_field", `${show(unknown)} is not a field of a clock change; use ${ONE_OF}.`);
      }
      const given = CLOCK_FIELDS.filter((f) => (change as Record<string, unknown>)[f] !== undefined);
      const field = given[0];
      if (field === undefined) return refuse("", "required", `Give ${ONE_OF}.`);
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
          if (typeof value !== "string") throw new RangeError("not a string");
          at = toEpochMs(value);
        } catch {
          return refuse(
            "now",
            "invalid_instant",
            `now must be an ISO 8601 instant with Z or an offset, such as "2027-01-01T00:00:00Z"; received ${show(value)}.`,
          );
        }
        if (at < current) {
          return refuse("now", "clock_backward", m.clockBackward(iso(at), iso(current)));
        }
        frozenAt = at;
      } else if (field === "advanceMs") {
        const room = MAX_INSTANT_MS - current;
        if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0 || value > room) {
          return refuse(
            "advanceMs",
            "invalid_advance",
            `advanceMs must be whole milliseconds from 0 to ${room} (the clock only moves forward); received ${show(value)}.`,
          );
        }
        if (frozenAt === undefined) offsetMs += value;
        else frozenAt += value;
      } else {
        if (typeof value !== "boolean") {
          return refuse("frozen", "invalid_frozen", `frozen must be true or false; received ${show(value)}.`);
        }
        if (value) frozenAt = current;
        else {
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
