/**
 * The test-double controls (S17): reset to the start-up fixtures, and the test clock that every
 * reader of the time reads, frozen or moved forward, never back. Each is an admin method and an
 * admin route (`POST /admin/reset`, `GET` and `POST /admin/clock`), behind the admin token.
 */
import { safeEcho } from "../../echo.js";
import { show } from "../../messages.js";
import { toEpochMs } from "../../models/history.js";
import type { ClockChange, ClockView, Endpoint, RouteTable, ServerClock, ServerContext } from "../context.js";
import { json } from "../http/respond.js";
import { serverMessages as m } from "../messages.js";
import { invalidAdminRequest, readAdminObject } from "./body.js";

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

/** The test-double controls among the admin methods (S17). */
export type AdminControls = {
  /**
   * Empties the state (users, keys, assets, tasks, jobs, ledger) and loads the fixtures the server
   * was started with again, with the clock back on real time (S17).
   */
  reset(): Promise<void>;
  /** The test clock: its now and whether it is frozen. */
  clock(): Promise<ClockView>;
  /**
   * Freezes the test clock at an instant (`{ now }`, not before its now), moves it forward
   * (`{ advanceMs }`), or freezes it where it is or sets it running (`{ frozen }`); rejects with an
   * `AdminError` (`invalid_clock`) naming the field, and then the clock is unchanged.
   */
  setClock(change: ClockChange): Promise<ClockView>;
};

/**
 * The test-double controls as admin methods.
 *
 * @param ctx - The server.
 * @param toError - Makes the `AdminError` of a refused clock change.
 * @returns The methods.
 * @internal
 */
export function controlMethods(ctx: ServerContext, toError: (code: "invalid_clock", message: string) => Error): AdminControls {
  return {
    reset: () => ctx.reset(),
    clock: async () => ctx.clock.view(),
    async setClock(change) {
      const result = ctx.clock.change(change);
      if (!result.ok) throw toError("invalid_clock", result.message);
      return result.view;
    },
  };
}

const reset: Endpoint = {
  method: "POST",
  answer: async (incoming, ctx, requestId) => {
    const read = await readAdminObject(incoming, ctx, requestId, true);
    if (!read.ok) return read.out;
    const extra = Object.keys(read.body);
    if (extra.length > 0) {
      return invalidAdminRequest(
        requestId,
        extra.map((field) => ({
          path: safeEcho(field),
          code: "unknown_field",
          message: m.resetTakesNoFields(field),
        })),
      );
    }
    await ctx.reset();
    return json(200, { reset: true, clock: ctx.clock.view() }, requestId);
  },
};

/**
 * The routes of the controls under `/admin/`, mounted beside the admin API's own, behind the same
 * admin token.
 * @internal
 */
export const CONTROL_ROUTES: RouteTable = [
  ["/admin/reset", reset],
  ["/admin/clock", { method: "GET", answer: async (_incoming, ctx, requestId) => json(200, ctx.clock.view(), requestId) }],
  [
    "/admin/clock",
    {
      method: "POST",
      answer: async (incoming, ctx, requestId) => {
        const read = await readAdminObject(incoming, ctx, requestId, true);
        if (!read.ok) return read.out;
        const result = ctx.clock.change(read.body);
        if (!result.ok)
          return invalidAdminRequest(requestId, [{ path: result.field, code: result.code, message: result.message }]);
        return json(200, result.view, requestId);
      },
    },
  ],
];
