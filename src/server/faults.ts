/**
 * Faults a test suite asks the reference server for (S17): a service request, once its key is
 * checked, answered 503 or 500, answered late, or carried out in full with its answer lost. They
 * live in the server instance, never in the store, and never touch the admin API.
 */
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import type { Issue } from "../types.js";
import type { AfterAuth, Caller } from "./context.js";
import type { Incoming } from "./http/incoming.js";
import { failure, type Outgoing } from "./http/respond.js";
import { randomHex } from "./ids.js";
import { serverMessages as m } from "./messages.js";

/** What a fault does: 503 with `Retry-After`, 500, the normal answer late, or no answer at all. */
export const FAULT_KINDS = ["unavailable", "internal", "delay", "lose_answer"] as const;
/** One of {@link FAULT_KINDS}. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** The service paths a fault may name: the endpoints that take an API key (faults fire after it is checked). */
export const FAULT_PATHS = ["/api/generations", "/api/pricing/quote", "/api/ping", "/api/query/credits"] as const;
/** The methods a fault may name (a `HEAD` counts as its `GET`). */
export const FAULT_METHODS = ["GET", "POST"] as const;

/** The bounds of a fault: how often it fires, how late it answers, what `Retry-After` asks, how many wait at once. */
export const FAULT_LIMITS = { maxTimes: 1000, maxDelayMs: 60_000, maxRetryAfterS: 3600, maxFaults: 100 } as const;

/** A fault as asked for: what it matches (every field left out matches anything) and what it does. */
export type FaultInput = {
  /** `GET` or `POST`; a `HEAD` counts as its `GET`. */
  method?: "GET" | "POST";
  /** A service path, matched exactly (no query string, no trailing slash): one of {@link FAULT_PATHS}. */
  path?: string;
  /** Only requests made with this API key (its id, `apk_...`, never the key). */
  apiKeyId?: string;
  kind: FaultKind;
  /** How many matching requests it fires on, 1 to 1000 (default 1). */
  times?: number;
  /** `delay` only, and required there: how long the answer is held, 0 to 60000 ms. */
  delayMs?: number;
  /** `unavailable` only: the `Retry-After` seconds, 1 to 3600 (default 1). */
  retryAfterS?: number;
};

/** A fault waiting to fire, as listed: its id, what it matches, what it does and how many times it still fires. */
export type FaultView = {
  faultId: string;
  kind: FaultKind;
  method?: "GET" | "POST";
  path?: string;
  apiKeyId?: string;
  delayMs?: number;
  retryAfterS?: number;
  /** How many more matching requests it fires on; a fault is removed once this reaches 0. */
  timesLeft: number;
};

/**
 * What a `server.fetch` promise rejects with when a `lose_answer` fault fired: the request was
 * carried out in full (charged and committed) and its answer was dropped on purpose. Over a socket
 * the connection is closed without a response.
 */
export class AnswerLostError extends Error {
  override readonly name = "AnswerLostError";
  /** The `Request-Id` the answer would have had. */
  readonly requestId: string;

  /**
   * Makes the error of a lost answer.
   *
   * @param requestId - The request's id.
   */
  constructor(requestId: string) {
    super(
      `The answer to request ${requestId} was lost on purpose: a lose_answer fault fired after the request was carried out in full.`,
    );
    this.requestId = requestId;
  }
}

const isWhole = (value: unknown, min: number, max: number): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max;

/**
 * Checks a fault as asked for: every field known, each within its values; `delayMs` only with
 * `delay`, `retryAfterS` only with `unavailable`.
 *
 * @param input - The fault, as a client sent it.
 * @returns The fault, or every issue found (each naming its field and the allowed values).
 * @internal
 */
export function checkFault(input: unknown): { ok: true; fault: FaultInput } | { ok: false; issues: Issue[] } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [{ path: "", code: "invalid_type", message: `A fault is a JSON object; received ${show(input)}.` }],
    };
  }
  const body = input as Record<string, unknown>;
  const issues: Issue[] = [];
  const fields = ["method", "path", "apiKeyId", "kind", "times", "delayMs", "retryAfterS"];
  for (const name of Object.keys(body)) {
    if (!fields.includes(name)) {
      issues.push({
        path: safeEcho(name),
        code: "unknown_field",
        message: `${show(name)} is not a field of a fault; use ${fields.join(", ")}.`,
      });
    }
  }
  const { method, path, apiKeyId, kind, times, delayMs, retryAfterS } = body;
  const oneOf = (name: string, value: unknown, allowed: readonly string[]) => {
    if (value !== undefined && !allowed.includes(value as string)) {
      issues.push({
        path: name,
        code: `invalid_${name}`,
        message: m.mustBeOneOf(name, allowed, value),
      });
    }
  };
  oneOf("method", method, FAULT_METHODS);
  oneOf("path", path, FAULT_PATHS);
  if (kind === undefined) {
    issues.push({ path: "kind", code: "required", message: `kind is required: one of ${FAULT_KINDS.join(", ")}.` });
  } else oneOf("kind", kind, FAULT_KINDS);
  if (apiKeyId !== undefined && (typeof apiKeyId !== "string" || !/^apk_[A-Za-z0-9_-]{1,64}$/.test(apiKeyId))) {
    issues.push({
      path: "apiKeyId",
      code: "invalid_apiKeyId",
      message: `apiKeyId must be an API key's id (apk_ and its letters and digits), never the key; received ${show(typeof apiKeyId === "string" && /^ck_/i.test(apiKeyId) ? "an API key" : apiKeyId)}.`,
    });
  }
  const whole = (name: string, value: unknown, min: number, max: number) => {
    if (value !== undefined && !isWhole(value, min, max)) {
      issues.push({
        path: name,
        code: `invalid_${name}`,
        message: `${name} must be a whole number from ${min} to ${max}; received ${show(value)}.`,
      });
    }
  };
  whole("times", times, 1, FAULT_LIMITS.maxTimes);
  whole("delayMs", delayMs, 0, FAULT_LIMITS.maxDelayMs);
  whole("retryAfterS", retryAfterS, 1, FAULT_LIMITS.maxRetryAfterS);
  if (kind === "delay" && delayMs === undefined) {
    issues.push({
      path: "delayMs",
      code: "required",
      message: `delayMs is required with kind delay: 0 to ${FAULT_LIMITS.maxDelayMs}.`,
    });
  }
  if (delayMs !== undefined && kind !== "delay" && FAULT_KINDS.includes(kind as FaultKind)) {
    issues.push({ path: "delayMs", code: "invalid_delayMs", message: "delayMs is only for kind delay." });
  }
  if (retryAfterS !== undefined && kind !== "unavailable" && FAULT_KINDS.includes(kind as FaultKind)) {
    issues.push({ path: "retryAfterS", code: "invalid_retryAfterS", message: "retryAfterS is only for kind unavailable." });
  }
  if (issues.length > 0) return { ok: false, issues };
  const fault: FaultInput = { kind: kind as FaultKind };
  if (method !== undefined) fault.method = method as "GET" | "POST";
  if (path !== undefined) fault.path = path as string;
  if (apiKeyId !== undefined) fault.apiKeyId = apiKeyId as string;
  if (times !== undefined) fault.times = times as number;
  if (delayMs !== undefined) fault.delayMs = delayMs as number;
  if (retryAfterS !== undefined) fault.retryAfterS = retryAfterS as number;
  return { ok: true, fault };
}

/** The faults of one server, oldest first. @internal */
export type FaultList = {
  /** Adds a checked fault; `undefined` when {@link FAULT_LIMITS}.maxFaults already wait. */
  add(fault: FaultInput): FaultView | undefined;
  /** Every fault still waiting, oldest first. */
  list(): FaultView[];
  /** Removes one; `false` when there is no such fault. */
  remove(faultId: string): boolean;
  /** Removes every fault; returns how many there were. */
  clear(): number;
  /** The first fault that matches a request, counted as fired (and removed when spent). */
  take(method: string, path: string, apiKeyId: string): FaultView | undefined;
};

/**
 * Makes an empty fault list.
 *
 * @returns The list.
 * @internal
 */
export function createFaultList(): FaultList {
  let faults: FaultView[] = [];
  return {
    add(input) {
      if (faults.length >= FAULT_LIMITS.maxFaults) return undefined;
      const view: FaultView = { faultId: `flt_${randomHex(8)}`, kind: input.kind, timesLeft: input.times ?? 1 };
      if (input.method !== undefined) view.method = input.method;
      if (input.path !== undefined) view.path = input.path;
      if (input.apiKeyId !== undefined) view.apiKeyId = input.apiKeyId;
      if (input.kind === "delay") view.delayMs = input.delayMs ?? 0;
      if (input.kind === "unavailable") view.retryAfterS = input.retryAfterS ?? 1;
      faults.push(view);
      return { ...view };
    },
    list: () => faults.map((f) => ({ ...f })),
    remove(faultId) {
      const before = faults.length;
      faults = faults.filter((f) => f.faultId !== faultId);
      return faults.length < before;
    },
    clear() {
      const count = faults.length;
      faults = [];
      return count;
    },
    take(method, path, apiKeyId) {
      if (faults.length === 0) return undefined;
      const asked = method === "HEAD" ? "GET" : method;
      // Found and counted in one synchronous step: concurrent requests cannot fire a fault more times than asked.
      const fault = faults.find(
        (f) =>
          (f.method === undefined || f.method === asked) &&
          (f.path === undefined || f.path === path) &&
          (f.apiKeyId === undefined || f.apiKeyId === apiKeyId),
      );
      if (!fault) return undefined;
      fault.timesLeft -= 1;
      if (fault.timesLeft === 0) faults = faults.filter((f) => f !== fault);
      return { ...fault };
    },
  };
}

/** Why the answer says what it says: a fault a test asked for, not a real outage. */
const INJECTED = "(a fault injected through the admin API)";

/**
 * Answers a request under a fault that fired: 503 or 500 without running it, or runs it in full
 * and then answers late or not at all.
 */
async function fire(fault: FaultView, requestId: string, run: () => Promise<Outgoing>): Promise<Outgoing> {
  switch (fault.kind) {
    case "unavailable": {
      const seconds = fault.retryAfterS ?? 1;
      return failure(requestId, {
        code: "service_unavailable",
        message: `The service is unavailable ${INJECTED}; nothing was charged. Retry after ${seconds} s.`,
        headers: { "retry-after": String(seconds) },
      });
    }
    case "internal":
      return failure(requestId, {
        code: "internal_error",
        message: `Something went wrong on our side ${INJECTED}; nothing was charged.`,
      });
    case "delay": {
      // The request is carried out first and its answer held, as on a slow network: a client that
      // gives up meanwhile finds the task done when it retries with the same key.
      const out = await run();
      await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 0));
      return out;
    }
    case "lose_answer":
      await run();
      throw new AnswerLostError(requestId);
  }
}

/**
 * The test-double step of every authenticated service request: the journal notes the caller,
 * then the first matching fault fires, or the request runs as usual.
 *
 * @param faults - The server's faults.
 * @param note - The journal's note of the caller, which gives back the request to run.
 * @returns The step the router takes once a key is checked.
 * @internal
 */
export function afterAuthentication(faults: FaultList, note: (incoming: Incoming, caller: Caller) => Incoming): AfterAuth {
  return (incoming: Incoming, caller: Caller, requestId: string, run: (incoming: Incoming) => Promise<Outgoing>) => {
    const noted = note(incoming, caller);
    const fault = faults.take(incoming.method, incoming.path, caller.apiKeyId);
    if (!fault) return run(noted);
    return fire(fault, requestId, () => run(noted));
  };
}
