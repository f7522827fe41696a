/**
 * The request journal of a reference server (S17): the last requests to the service's endpoints,
 * newest first, for a test suite to read what its client sent. A ring buffer, so it stays the same
 * size whatever the traffic; it never holds a key, a token, a header other than the idempotency
 * key, or a body.
 */
import { safeEcho } from "../echo.js";
import { LIMITS } from "../models/lists.js";
import type { Caller } from "./context.js";
import { AnswerLostError } from "./faults.js";
import type { Incoming } from "./http/incoming.js";
import type { Outgoing } from "./http/respond.js";

/** How many requests the journal keeps: older ones are dropped. */
export const JOURNAL_CAPACITY = 1000;
/** How many requests `admin.requests()` returns when not told. */
export const DEFAULT_JOURNAL_LIMIT = 100;

/** One request as the journal keeps it. */
export type JournalEntry = {
  requestId: string;
  method: string;
  /** The path without query string, a key- or token-shaped run in it hidden (like `serve --log`'s). */
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
   * The idempotency key the client sent (header, else body field), trimmed and cut to its allowed
   * length: a UUID as sent, any other masked like an echo (a run of 16 or more letters, digits, `_`
   * or `-` is `<hidden>`), so that it never carries a key or a token.
   */
  idempotencyKey?: string;
  /** The issue codes of a 400, in the answer's order. */
  issueCodes?: string[];
};

/** What the journal learned of a request while it ran. */
type Note = { apiKeyId?: string; body?: Uint8Array };

/** The journal of one server. @internal */
export type Journal = {
  /** Notes who a request authenticated as, and returns the request with its body kept for the journal. */
  note(incoming: Incoming, caller: Caller): Incoming;
  /** Records a request once it is answered (`undefined`: its answer was lost on purpose). */
  record(incoming: Incoming, requestId: string, out: Outgoing | undefined, arrivedAt: number, durationMs: number): void;
  /** The newest `limit` requests, newest first. */
  list(limit: number): JournalEntry[];
  /** Forgets every request. */
  clear(): void;
};

/** A text as the journal may show it: at most `max` code points, a key- or token-shaped run hidden. */
function shown(text: string, max: number): string {
  const points = Array.from(text);
  return safeEcho(points.length > max ? points.slice(0, max).join("") : text, max + 16);
}

/** A UUID, the usual idempotency key: never an API key (ck_...) and shown as sent unless it is the admin token. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The idempotency key of a request: the header's, else the body's field, when either is a string. */
function idempotencyKeyOf(incoming: Incoming, body: Uint8Array | undefined, adminToken: string): string | undefined {
  const header = incoming.header("idempotency-key");
  let key: unknown = header === null ? undefined : header;
  if (key === undefined && body !== undefined && body.byteLength > 0) {
    try {
      const value: unknown = JSON.parse(new TextDecoder().decode(body));
      if (typeof value === "object" && value !== null) key = (value as Record<string, unknown>).idempotencyKey;
    } catch {
      // not JSON: no key to show
    }
  }
  if (typeof key !== "string" || key.trim() === "") return undefined;
  const trimmed = key.trim();
  if (UUID.test(trimmed) && !trimmed.includes(adminToken)) return trimmed;
  return shown(trimmed, LIMITS.idempotencyKeyMaxChars);
}

/** The issue codes of a 400 answer, as the client read them. */
function issueCodesOf(out: Outgoing): string[] | undefined {
  if (out.status !== 400) return undefined;
  try {
    const issues = (JSON.parse(out.body) as { error?: { issues?: { code?: unknown }[] } }).error?.issues;
    if (!Array.isArray(issues)) return [];
    return issues.map((issue) => (typeof issue?.code === "string" ? issue.code : "")).filter((code) => code !== "");
  } catch {
    return [];
  }
}

/**
 * Makes an empty journal.
 *
 * @param adminToken - The server's admin token, never shown even where a UUID would be.
 * @returns The journal.
 * @internal
 */
export function createJournal(adminToken: string): Journal {
  const ring: (JournalEntry | undefined)[] = new Array(JOURNAL_CAPACITY);
  let next = 0;
  let size = 0;
  // Keyed by the request object: a note is dropped with its request, whatever becomes of it.
  let notes = new WeakMap<Incoming, Note>();
  return {
    note(incoming, caller) {
      const note: Note = { apiKeyId: caller.apiKeyId };
      notes.set(incoming, note);
      // The body is kept (already read, so no copy) for its idempotency key, read only when recorded.
      return {
        method: incoming.method,
        path: incoming.path,
        header: (name) => incoming.header(name),
        readBody: async (maxBytes) => {
          const bytes = await incoming.readBody(maxBytes);
          if (bytes instanceof Uint8Array) note.body = bytes;
          return bytes;
        },
        clientAddress: incoming.clientAddress,
      };
    },
    record(incoming, requestId, out, arrivedAt, durationMs) {
      const note = notes.get(incoming);
      notes.delete(incoming);
      const entry: JournalEntry = {
        requestId,
        method: shown(incoming.method, 16),
        path: safeEcho(incoming.path, 200),
        status: out?.status ?? 0,
        at: new Date(arrivedAt).toISOString(),
        durationMs: Math.round(durationMs * 10) / 10,
      };
      if (note?.apiKeyId !== undefined) entry.apiKeyId = note.apiKeyId;
      const key = idempotencyKeyOf(incoming, note?.body, adminToken);
      if (key !== undefined) entry.idempotencyKey = key;
      const codes = out && issueCodesOf(out);
      if (codes !== undefined) entry.issueCodes = codes;
      ring[next] = entry;
      next = (next + 1) % JOURNAL_CAPACITY;
      size = Math.min(size + 1, JOURNAL_CAPACITY);
    },
    list(limit) {
      const out: JournalEntry[] = [];
      for (let i = 1; i <= Math.min(limit, size); i++) {
        const entry = ring[(next - i + JOURNAL_CAPACITY) % JOURNAL_CAPACITY];
        if (entry) out.push(structuredClone(entry));
      }
      return out;
    },
    clear() {
      ring.fill(undefined);
      next = 0;
      size = 0;
      notes = new WeakMap();
    },
  };
}

/**
 * Wraps a server's handler so that every request to the service (not under `/admin`) is recorded
 * once answered, a lost answer (an {@link AnswerLostError}) with status 0.
 *
 * @param respond - The server's handler.
 * @param journal - The server's journal.
 * @param now - The server's clock, for `at`.
 * @returns The handler that records.
 * @internal
 */
export function withJournal(
  respond: (incoming: Incoming) => Promise<Outgoing>,
  journal: Journal,
  now: () => number,
): (incoming: Incoming) => Promise<Outgoing> {
  return async (incoming) => {
    const path = incoming.path;
    if (path === "/admin" || path.startsWith("/admin/")) return respond(incoming);
    const arrivedAt = now();
    const start = performance.now();
    try {
      const out = await respond(incoming);
      journal.record(incoming, out.headers["request-id"] ?? "", out, arrivedAt, performance.now() - start);
      return out;
    } catch (error) {
      if (error instanceof AnswerLostError)
        journal.record(incoming, error.requestId, undefined, arrivedAt, performance.now() - start);
      throw error;
    }
  };
}
