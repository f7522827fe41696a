/**
 * The types every part of the server shares (types only, no code): the settings and state a
 * handler is given ({@link ServerContext}), who called, and what an endpoint is.
 */
import type { Store } from "../store/store.js";
import type { ServerCatalogs } from "./catalogs.js";
import type { Incoming } from "./http/incoming.js";
import type { Outgoing } from "./http/respond.js";

/** A line the server logs. It never holds a key, a header or a body. */
export type LogEntry = {
  level: "error";
  message: string;
  requestId: string;
  error: { name: string; message: string; stack?: string };
};

/** What `onResponse` is told of one answered request: never a header or a body. */
export type ResponseEvent = {
  /** The request's method. */
  readonly method: string;
  /** The path as the client sent it, without query string: a client may put a key in it, so mask it before showing it. */
  readonly path: string;
  /** The answer's status. */
  readonly status: number;
  /** The answer's `Request-Id`. */
  readonly requestId: string;
  /** Milliseconds from the request's arrival at the server to its answer. */
  readonly ms: number;
};

/**
 * Hashes a whole API key to its SHA-256 as lowercase hex. A synchronous one (a string, not a
 * promise) saves the request a trip through the event loop; see `<package>/node`'s `sha256Hex`.
 */
export type ApiKeyHasher = (key: string) => string | Promise<string>;

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
 * controls freeze and move forward, never back (S17). @internal
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

/** The settings and state of one server: what every handler is given. @internal */
export type ServerContext = {
  readonly store: Store;
  /** The catalog in force at an instant (P8): read once per request, at `now()`. */
  readonly catalogs: ServerCatalogs;
  /** The clock's now ({@link ServerClock.now}): what every reader of the time calls. */
  readonly now: () => number;
  /** The test clock behind `now`. */
  readonly clock: ServerClock;
  /**
   * Empties the state and loads the start-up fixtures again, with the clock on real time (S17);
   * requests that arrive meanwhile wait for the fixtures.
   */
  readonly reset: () => Promise<void>;
  readonly maxBodyBytes: number;
  /** How long a client's idempotency key points at its task; `undefined`: as long as the task exists. */
  readonly idempotencyTtlMs: number | undefined;
  readonly serviceName: string;
  readonly log: (entry: LogEntry) => void;
  /** SHA-256 of a key as lowercase hex; Web Crypto unless the runtime binding gives a synchronous one. */
  readonly hashApiKey: ApiKeyHasher;
  /** The serialized OpenAPI document of the catalog in force now, made once per catalog. */
  readonly openApiText: () => string;
  /** The test-double step once a key is checked (faults, the request journal): only with an admin token. */
  readonly afterAuth?: AfterAuth;
};

/**
 * What runs an authenticated service request when the test-double controls are on: it may note
 * the caller, answer in the endpoint's place (a fault) or run the endpoint with `run`. @internal
 */
export type AfterAuth = (
  incoming: Incoming,
  caller: Caller,
  requestId: string,
  run: (incoming: Incoming) => Promise<Outgoing>,
) => Promise<Outgoing>;

/**
 * The caller an API key authenticated, with the user's multiplier read in the same lookup (what
 * pricing needs; the commit refuses it if it changed since). @internal
 */
export type Caller = { readonly userId: string; readonly apiKeyId: string; readonly multiplier: string };

/** One endpoint of the service, given an authenticated caller. @internal */
export type Handler = (incoming: Incoming, ctx: ServerContext, caller: Caller, requestId: string) => Promise<Outgoing>;

/**
 * What answers one method of a path: given the request, the server, this request's id and the
 * path's `:id` segments (decoded).
 * @internal
 */
export type Endpoint = {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  readonly answer: (incoming: Incoming, ctx: ServerContext, requestId: string, params: readonly string[]) => Promise<Outgoing>;
};

/** Endpoints by path pattern (a `:id` segment is one path segment); a path may have one per method. @internal */
export type RouteTable = readonly (readonly [pattern: string, endpoint: Endpoint])[];

/**
 * A part of the server mounted under a path prefix: its own check of every request under it (the
 * admin token), made before any route is looked up, and its routes.
 * @internal
 */
export type Mount = {
  readonly prefix: string;
  /** The answer that refuses the request, or `undefined` to go on to the routes. */
  readonly guard: (incoming: Incoming, ctx: ServerContext, requestId: string) => Promise<Outgoing | undefined>;
  readonly routes: RouteTable;
};
