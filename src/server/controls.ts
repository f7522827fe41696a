/**
 * The test-double controls of a server with an admin token (S17): faults on the service's requests
 * once their key is checked, and the request journal of the last service requests; each as
 * middleware, as admin methods and as routes under `/admin/`. They live in the server instance,
 * never in the store, and never touch the admin API.
 */
import type { Context, MiddlewareHandler } from "hono";
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { LIMITS } from "../models/lists.js";
import type { Issue } from "../types.js";
import { readJson } from "./body.js";
import { isoInstant } from "./clock.js";
import type { AdminRoute, Caller, Env } from "./context.js";
import { AdminError, fail, invalidRequest, json, requestIdOf } from "./errors.js";
import { randomHex } from "./ids.js";
import { createMasker } from "./mask.js";
import { serverMessages as m } from "./messages.js";

/** What a fault does: 503 with `Retry-After`, 500, the normal answer late, or no answer at all. */
export type FaultKind = "unavailable" | "internal" | "delay" | "lose_answer";
/** Every {@link FaultKind}. @internal */
export const FAULT_KINDS: readonly FaultKind[] = [
  "unavailable",
  "internal",
  "delay",
  "lose_answer",
];

/**
 * The service paths a fault may name: the endpoints that take an API key (faults fire after it is
 * checked). @internal
 */
export const FAULT_PATHS = [
  "/api/generations",
  "/api/pricing/quote",
  "/api/ping",
  "/api/query/credits",
] as const;
/** The methods a fault may name (a `HEAD` counts as its `GET`). @internal */
export const FAULT_METHODS = ["GET", "POST"] as const;

/**
 * The bounds of a fault: how often it fires, how late it answers, what `Retry-After` asks (in
 * milliseconds, and in seconds for the deprecated `retryAfterS`), how many wait at once. @internal
 */
export const FAULT_LIMITS = {
  maxTimes: 1000,
  maxDelayMs: 60_000,
  maxRetryAfterMs: 3_600_000,
  maxRetryAfterS: 3600,
  maxFaults: 100,
} as const;

/**
 * A fault as asked for: what it matches (every field left out matches anything) and what it does.
 */
export type FaultInput = {
  /** `GET` or `POST`; a `HEAD` counts as its `GET`. */
  method?: "GET" | "POST";
  /** A service path that takes an API key, matched exactly (no query string, no trailing slash). */
  path?: string;
  /** Only requests made with this API key (its id, `apk_...`, never the key). */
  apiKeyId?: string;
  kind: FaultKind;
  /** How many matching requests it fires on, 1 to 1000 (default 1). */
  times?: number;
  /** `delay` only, and required there: how long the answer is held, 0 to 60000 ms. */
  delayMs?: number;
  /**
   * `unavailable` only: the wait the answer asks for, 1 to 3600000 ms (default 1000), sent as
   * `Retry-After` in whole seconds, rounded up. (Over HTTP, `retryAfterS` in seconds, 1 to 3600, is
   * still accepted in its place: deprecated.)
   */
  retryAfterMs?: number;
};

/**
 * A fault waiting to fire, as listed: its id, what it matches, what it does and how many times it
 * still fires.
 */
export type FaultView = {
  faultId: string;
  kind: FaultKind;
  method?: "GET" | "POST";
  path?: string;
  apiKeyId?: string;
  delayMs?: number;
  /** `unavailable` only: the wait its answers ask for, in milliseconds. */
  retryAfterMs?: number;
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
      `The answer to request ${requestId} was lost on purpose: a lose_answer fault fired ` +
        "after the request was carried out in full.",
    );
    this.requestId = requestId;
  }
}

const FAULT_FIELDS = ["method", "path", "apiKeyId", "kind", "times", "delayMs", "retryAfterMs"];
/** A field still accepted for 0.4 callers of the admin API: `retryAfterS`, in seconds. */
const DEPRECATED_FAULT_FIELDS = ["retryAfterS"];

/**
 * Checks a fault as asked for: every field known, each within its values; `delayMs` only with
 * `delay`, `retryAfterMs` (or the deprecated `retryAfterS`, in seconds) only with `unavailable`.
 */
function checkFault(
  input: unknown,
): { ok: true; fault: FaultInput } | { ok: false; issues: Issue<string>[] } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return {
      ok: false,
      issues: [
        {
          path: "",
          code: "invalid_type",
          message: `A fault is a JSON object; received ${show(input)}.`,
        },
      ],
    };
  }
  const body = input as Record<string, unknown>;
  const issues: Issue<string>[] = [];
  const issue = (path: string, code: string, message: string) =>
    issues.push({ path, code, message });
  for (const name of Object.keys(body)) {
    if (!FAULT_FIELDS.includes(name) && !DEPRECATED_FAULT_FIELDS.includes(name)) {
      issue(
        safeEcho(name),
        "unknown_field",
        `${show(name)} is not a field of a fault; use ${FAULT_FIELDS.join(", ")}.`,
      );
    }
  }
  const { method, path, apiKeyId, kind, times, delayMs, retryAfterMs, retryAfterS } = body;
  const oneOf = (name: string, value: unknown, allowed: readonly string[]) => {
    if (value !== undefined && !allowed.includes(value as string)) {
      issue(name, `invalid_${name}`, m.mustBeOneOf(name, allowed, value));
    }
  };
  oneOf("method", method, FAULT_METHODS);
  oneOf("path", path, FAULT_PATHS);
  if (kind === undefined) {
    issue("kind", "required", `kind is required: one of ${FAULT_KINDS.join(", ")}.`);
  } else {
    oneOf("kind", kind, FAULT_KINDS);
  }
  if (
    apiKeyId !== undefined &&
    (typeof apiKeyId !== "string" || !/^apk_[A-Za-z0-9_-]{1,64}$/.test(apiKeyId))
  ) {
    // A key given by mistake is named, never echoed.
    const received =
      typeof apiKeyId === "string" && /^ck_/i.test(apiKeyId) ? "an API key" : apiKeyId;
    issue(
      "apiKeyId",
      "invalid_api_key_id",
      "apiKeyId must be an API key's id (apk_ and its letters and digits), never the key; " +
        `received ${show(received)}.`,
    );
  }
  const whole = (name: string, value: unknown, min: number, max: number) => {
    if (
      value !== undefined &&
      !(typeof value === "number" && Number.isInteger(value) && value >= min && value <= max)
    ) {
      // The code is in snake_case, as every code.
      const code = `invalid_${name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}`;
      issue(
        name,
        code,
        `${name} must be a whole number from ${min} to ${max}; received ${show(value)}.`,
      );
    }
  };
  whole("times", times, 1, FAULT_LIMITS.maxTimes);
  whole("delayMs", delayMs, 0, FAULT_LIMITS.maxDelayMs);
  whole("retryAfterMs", retryAfterMs, 1, FAULT_LIMITS.maxRetryAfterMs);
  whole("retryAfterS", retryAfterS, 1, FAULT_LIMITS.maxRetryAfterS);
  if (retryAfterMs !== undefined && retryAfterS !== undefined) {
    issue(
      "retryAfterS",
      "invalid_retry_after_s",
      "Give retryAfterMs or the deprecated retryAfterS, not both.",
    );
  }
  if (kind === "delay" && delayMs === undefined) {
    issue(
      "delayMs",
      "required",
      `delayMs is required with kind delay: 0 to ${FAULT_LIMITS.maxDelayMs}.`,
    );
  }
  if (delayMs !== undefined && kind !== "delay" && FAULT_KINDS.includes(kind as FaultKind)) {
    issue("delayMs", "invalid_delay_ms", "delayMs is only for kind delay.");
  }
  const wait = retryAfterMs ?? retryAfterS;
  if (wait !== undefined && kind !== "unavailable" && FAULT_KINDS.includes(kind as FaultKind)) {
    const name = retryAfterMs === undefined ? "retryAfterS" : "retryAfterMs";
    issue(
      name,
      `invalid_${name === "retryAfterS" ? "retry_after_s" : "retry_after_ms"}`,
      `${name} is only for kind unavailable.`,
    );
  }
  if (issues.length > 0) {
    return { ok: false, issues };
  }
  const { retryAfterS: _seconds, ...fault } = body;
  if (typeof retryAfterS === "number") {
    fault.retryAfterMs = retryAfterS * 1000;
  }
  return { ok: true, fault: fault as FaultInput };
}

/** The faults of one server, oldest first. */
function createFaultList() {
  let faults: FaultView[] = [];
  return {
    /** Adds a checked fault; `undefined` when {@link FAULT_LIMITS}.maxFaults already wait. */
    add(input: FaultInput): FaultView | undefined {
      if (faults.length >= FAULT_LIMITS.maxFaults) {
        return undefined;
      }
      const view: FaultView = {
        faultId: `flt_${randomHex(8)}`,
        kind: input.kind,
        timesLeft: input.times ?? 1,
      };
      if (input.method !== undefined) {
        view.method = input.method;
      }
      if (input.path !== undefined) {
        view.path = input.path;
      }
      if (input.apiKeyId !== undefined) {
        view.apiKeyId = input.apiKeyId;
      }
      if (input.kind === "delay") {
        view.delayMs = input.delayMs ?? 0;
      }
      if (input.kind === "unavailable") {
        view.retryAfterMs = input.retryAfterMs ?? 1000;
      }
      faults.push(view);
      return { ...view };
    },
    list: () => faults.map((f) => ({ ...f })),
    /** Removes one; `false` when there is no such fault. */
    remove(faultId: string): boolean {
      const before = faults.length;
      faults = faults.filter((f) => f.faultId !== faultId);
      return faults.length < before;
    },
    /** Removes every fault; returns how many there were. */
    clear(): number {
      const count = faults.length;
      faults = [];
      return count;
    },
    /** The first fault that matches a request, counted as fired (and removed when spent). */
    take(method: string, path: string, apiKeyId: string): FaultView | undefined {
      if (faults.length === 0) {
        return undefined;
      }
      const asked = method === "HEAD" ? "GET" : method;
      // Found and counted in one synchronous step: concurrent requests cannot fire a fault more
      // times than asked.
      const fault = faults.find(
        (f) =>
          (f.method === undefined || f.method === asked) &&
          (f.path === undefined || f.path === path) &&
          (f.apiKeyId === undefined || f.apiKeyId === apiKeyId),
      );
      if (!fault) {
        return undefined;
      }
      fault.timesLeft -= 1;
      if (fault.timesLeft === 0) {
        faults = faults.filter((f) => f !== fault);
      }
      return { ...fault };
    },
  };
}

/** How many requests the journal keeps: older ones are dropped. @internal */
export const JOURNAL_CAPACITY = 1000;
/** How many requests `admin.requests()` returns when not told. @internal */
export const DEFAULT_JOURNAL_LIMIT = 100;

/** One request as the journal keeps it: what `admin.requests()` and `GET /admin/requests` list. */
export type RequestRecord = {
  requestId: string;
  method: string;
  /**
   * The path without query string, cut at 200 characters, masked like `onResponse`'s: the admin
   * token (even split by separators), a run of 16 or more letters, digits, `_` or `-`, and
   * whatever follows an API key's prefix (`ck_test_`, in any case, even split) are `<hidden>`.
   */
  path: string;
  /** The answer's status; 0 when the answer was lost on purpose (a `lose_answer` fault). */
  status: number;
  /** When the request arrived, ISO 8601, by the server's clock. */
  at: string;
  /** Milliseconds from its arrival to its answer (or to the moment its answer was dropped). */
  durationMs: number;
  /** The id (never the key) of the API key the request authenticated with. */
  apiKeyId?: string;
  /**
   * The idempotency key the client sent (header, else body field), trimmed: a UUID as sent, any
   * other masked like the path and then cut at 128 characters followed by `...`, so that it never
   * carries a key or a token, nor a piece of one; `order-1042` stays as it is.
   */
  idempotencyKey?: string;
  /** The issue codes of a 400, in the answer's order. */
  issueCodes?: string[];
};

/**
 * A UUID, the usual idempotency key: never an API key (ck_...) and shown as sent unless it is the
 * admin token.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The idempotency key a request carried: its header's, else its body's field, as the journal may
 * show it: masked, then cut (`safeEcho`), so a valid key (at most 128 characters) is never cut.
 */
function idempotencyKeyOf(
  c: Context<Env>,
  adminToken: string,
  mask: (value: string, max?: number) => string,
): string | undefined {
  let key: unknown = c.req.header("idempotency-key");
  const body: unknown = c.get("body");
  if (key === undefined && typeof body === "object" && body !== null) {
    key = (body as Record<string, unknown>).idempotencyKey;
  }
  if (typeof key !== "string" || key.trim() === "") {
    return undefined;
  }
  const trimmed = key.trim();
  // Hex digits read the same in either case: a UUID-shaped token in the other case is the token.
  if (UUID.test(trimmed) && !trimmed.toLowerCase().includes(adminToken.toLowerCase())) {
    return trimmed;
  }
  return mask(trimmed, LIMITS.idempotencyKeyMaxChars);
}

/** The last {@link JOURNAL_CAPACITY} service requests of one server, listed newest first. */
function createJournal(adminToken: string, now: () => number) {
  /** Oldest first. */
  let entries: RequestRecord[] = [];
  const mask = createMasker(adminToken);
  const record = (c: Context<Env>, status: number, arrivedAt: number, start: number) => {
    const entry: RequestRecord = {
      requestId: requestIdOf(c),
      method: mask(c.req.method, 16),
      path: mask(c.req.path, 200),
      status,
      at: isoInstant(arrivedAt),
      durationMs: Math.round((performance.now() - start) * 10) / 10,
    };
    const caller = c.get("caller") as Caller | undefined;
    if (caller !== undefined) {
      entry.apiKeyId = caller.apiKeyId;
    }
    const key = idempotencyKeyOf(c, adminToken, mask);
    if (key !== undefined) {
      entry.idempotencyKey = key;
    }
    if (status === 400) {
      entry.issueCodes = ((c.get("issues") as Issue<string>[] | undefined) ?? []).map(
        (i) => i.code,
      );
    }
    entries.push(entry);
    if (entries.length > JOURNAL_CAPACITY) {
      entries.shift();
    }
  };
  /**
   * Records every request to the service (not under `/admin`) once answered; a lost answer with
   * status 0.
   */
  const middleware: MiddlewareHandler<Env> = async (c, next) => {
    const path = c.req.path;
    if (path === "/admin" || path.startsWith("/admin/")) {
      return next();
    }
    const arrivedAt = now();
    const start = performance.now();
    try {
      await next();
    } catch (error) {
      if (error instanceof AnswerLostError) {
        record(c, 0, arrivedAt, start);
      }
      throw error;
    }
    record(c, c.res.status, arrivedAt, start);
  };
  return {
    middleware,
    list: (limit: number) => structuredClone(entries.slice(-limit).reverse()),
    clear() {
      entries = [];
    },
  };
}

/** Why the answer says what it says: a fault a test asked for, not a real outage. */
const INJECTED = "(a fault injected through the admin API)";

/** Checks a journal limit: a whole number from 1 to {@link JOURNAL_CAPACITY}. */
function limitIssue(limit: unknown): Issue<string> | undefined {
  if (
    typeof limit === "number" &&
    Number.isInteger(limit) &&
    limit >= 1 &&
    limit <= JOURNAL_CAPACITY
  ) {
    return undefined;
  }
  const shownLimit =
    typeof limit === "string" ? `"${safeEcho(limit, 20)}"` : safeEcho(String(limit), 20);
  return {
    path: "limit",
    code: "invalid_limit",
    message: m.journalLimit(JOURNAL_CAPACITY, DEFAULT_JOURNAL_LIMIT, shownLimit),
  };
}

const tooManyFaults = () =>
  `At most ${FAULT_LIMITS.maxFaults} faults wait at once; remove some first ` +
  "(DELETE /admin/faults, admin.clearFaults()).";

/**
 * Makes the controls of a server with an admin token, an empty fault list and journal: the
 * middleware, the admin methods and routes, and what a reset empties. @internal
 */
export function createControls(adminToken: string, now: () => number, maxBodyBytes: number) {
  const faults = createFaultList();
  const journal = createJournal(adminToken, now);
  /**
   * The ends of the answers `delay` faults hold: each at its time, or all at once by `endFaults`.
   */
  const holds = new Set<() => void>();
  let ended = 0;
  const hold = (ms: number) =>
    new Promise<void>((resolve) => {
      const end = () => {
        clearTimeout(timer);
        holds.delete(end);
        resolve();
      };
      const timer = setTimeout(end, ms);
      holds.add(end);
    });

  /**
   * The step after the key is checked: the first matching fault fires, or the request runs as
   * usual.
   */
  const afterAuth: MiddlewareHandler<Env> = async (c, next) => {
    const fault = faults.take(c.req.method, c.req.path, c.get("caller").apiKeyId);
    if (!fault) {
      return next();
    }
    if (fault.kind === "delay" || fault.kind === "lose_answer") {
      const firedIn = ended;
      // Carried out first, then answered late (as on a slow network: a client that gives up
      // meanwhile finds the task done when it retries with the same key), or not at all.
      await next();
      if (fault.kind === "lose_answer") {
        throw new AnswerLostError(requestIdOf(c));
      }
      // Not held once the faults were ended meanwhile (a reset): it would wait for nothing.
      if (ended === firedIn) {
        await hold(fault.delayMs ?? 0);
      }
      return;
    }
    // Answered without running it; its body is read all the same, for the journal's idempotency
    // key.
    if (c.req.method === "POST") {
      const read = await readJson(c, maxBodyBytes);
      if (read.ok) {
        c.set("body", read.value);
      }
    }
    if (fault.kind === "internal") {
      return fail(c, {
        code: "internal_error",
        message: `Something went wrong on our side ${INJECTED}; nothing was charged.`,
      });
    }
    const seconds = Math.ceil((fault.retryAfterMs ?? 1000) / 1000);
    return fail(c, {
      code: "service_unavailable",
      message:
        `The service is unavailable ${INJECTED}; nothing was charged. Retry after ` +
        `${seconds} s.`,
      headers: { "retry-after": String(seconds) },
    });
  };

  /** The admin methods of the controls (see `Admin`). */
  const methods = {
    async addFault(input: FaultInput): Promise<{ faultId: string }> {
      const checked = checkFault(input);
      if (!checked.ok) {
        throw new AdminError("invalid_fault", checked.issues.map((i) => i.message).join(" "));
      }
      const view = faults.add(checked.fault);
      if (!view) {
        throw new AdminError("invalid_fault", tooManyFaults());
      }
      return { faultId: view.faultId };
    },
    faults: async (): Promise<FaultView[]> => faults.list(),
    async removeFault(faultId: string): Promise<void> {
      if (!faults.remove(faultId)) {
        throw new AdminError("unknown_fault", m.unknown("fault", faultId));
      }
    },
    clearFaults: async (): Promise<{ removed: number }> => ({ removed: faults.clear() }),
    async requests(options?: { limit?: number }): Promise<RequestRecord[]> {
      // Only a limit left out is the default: null, like any other non-integer, is refused.
      const limit = options?.limit === undefined ? DEFAULT_JOURNAL_LIMIT : options.limit;
      const issue = limitIssue(limit);
      if (issue) {
        throw new AdminError("invalid_limit", issue.message);
      }
      return journal.list(limit);
    },
  };

  /**
   * `POST`, `GET` and `DELETE /admin/faults`, `DELETE /admin/faults/{faultId}` and
   * `GET /admin/requests?limit=N`.
   */
  const routes: AdminRoute[] = [
    [
      "POST",
      "/admin/faults",
      "json",
      async (c) => {
        const checked = checkFault(c.get("body"));
        if (!checked.ok) {
          return invalidRequest(c, checked.issues);
        }
        const view = faults.add(checked.fault);
        if (!view) {
          return invalidRequest(c, [
            { path: "", code: "too_many_faults", message: tooManyFaults() },
          ]);
        }
        return json(c, 201, JSON.stringify({ faultId: view.faultId }));
      },
    ],
    [
      "GET",
      "/admin/faults",
      "none",
      (c) => json(c, 200, JSON.stringify({ faults: faults.list() })),
    ],
    [
      "DELETE",
      "/admin/faults",
      "none",
      (c) => json(c, 200, JSON.stringify({ removed: faults.clear() })),
    ],
    [
      "DELETE",
      "/admin/faults/:id",
      "none",
      async (c) => {
        const faultId = c.req.param("id") ?? "";
        if (!faults.remove(faultId)) {
          return fail(c, { code: "unknown_fault", message: m.unknown("fault", faultId) });
        }
        return json(c, 200, JSON.stringify({ faultId }));
      },
    ],
    [
      "GET",
      "/admin/requests",
      "none",
      async (c) => {
        const given = c.req.queries("limit") ?? [];
        let limit: number = DEFAULT_JOURNAL_LIMIT;
        if (given.length > 0) {
          const text = given.join(",");
          const issue = limitIssue(/^[0-9]{1,7}$/.test(text) ? Number(text) : text);
          if (issue) {
            return invalidRequest(c, [issue]);
          }
          limit = Number(text);
        }
        return json(c, 200, JSON.stringify({ requests: journal.list(limit) }));
      },
    ],
  ];

  return {
    afterAuth,
    journal: journal.middleware,
    methods,
    routes,
    /**
     * Removes every fault and lets every held answer go at once: a reset's first step, so that it
     * waits for no fault.
     */
    endFaults() {
      ended++;
      faults.clear();
      for (const end of holds) {
        end();
      }
    },
    /**
     * Empties the journal: a reset's last step, once the requests of the state before it are
     * answered.
     */
    clearJournal: () => journal.clear(),
  };
}

/**
 * The control methods of a server without an admin token: each rejects with `controls_off`.
 * @internal
 */
export function controlsOff(): ReturnType<typeof createControls>["methods"] {
  const off = async (): Promise<never> => {
    throw new AdminError(
      "controls_off",
      "Faults and the request journal need an admin token: " +
        "createReferenceServer({ adminToken }) or serve --admin-token.",
    );
  };
  return { addFault: off, faults: off, removeFault: off, clearFaults: off, requests: off };
}
