/**
 * The types every part of the server shares (types only): what the server logs and tells
 * `onResponse`, the settings a route is given, the caller a key authenticated, and what a request
 * carries through the middleware.
 */

import type { Handler } from "hono";
import type { CatalogChangeTime } from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import type { Store } from "../store/store.js";
import type { Issue } from "../types.js";
import type { ClientInfo } from "./address.js";
import type { ServerClock } from "./clock.js";

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
  /**
   * The path without query string, masked like the request journal's: the admin token (even split
   * by separators), a run of 16 or more letters, digits, `_` or `-`, and whatever follows an API
   * key's prefix (`ck_test_`, in any case, even split) are `<hidden>`.
   */
  readonly path: string;
  /** The answer's status. */
  readonly status: number;
  /** The answer's `Request-Id`. */
  readonly requestId: string;
  /** Milliseconds from the request's arrival at the server to its answer. */
  readonly durationMs: number;
};

/**
 * The caller an API key authenticated, with the user's multiplier read in the same lookup (what
 * pricing needs; the commit refuses it if it changed since).
 *
 * @internal
 */
export type Caller = {
  readonly userId: string;
  readonly apiKeyId: string;
  readonly multiplier: string;
};

/** The catalog that prices a request, and the next change already known after it. @internal */
export type CatalogInForce = {
  /** The catalog in force at the request's instant. */
  readonly catalog: Catalog;
  /** The next catalog of the history and when it takes effect; `undefined` when none is known. */
  readonly next: CatalogChangeTime | undefined;
};

/** What a server knows of its catalogs. @internal */
export type ServerCatalogs = {
  /**
   * The catalog in force at `now` (P8), with the next change known after it.
   *
   * @throws `NoCatalogInForceError` when `now` is before the history's first entry: no price
   *   is known then, and the server answers 503 rather than price with another catalog (P2).
   */
  at(now: number): CatalogInForce;
  /**
   * The server's catalog with this version (the one a stored task was charged under), or
   * `undefined`.
   */
  byVersion(version: string): Catalog | undefined;
  /**
   * The serialized OpenAPI document of the catalog in force at `now` (of the first one, before it),
   * made once per catalog.
   */
  openApiText(now: number): string;
};

/**
 * The settings and state of one server: what every route is given.
 *
 * @internal
 */
export type ServerContext = {
  readonly store: Store;
  /** The catalog in force at an instant (P8): read once per request, at `clock.now()`. */
  readonly catalogs: ServerCatalogs;
  /** The test clock: what every reader of the time calls. */
  readonly clock: ServerClock;
  /**
   * Empties the state and loads the start-up fixtures again, with the clock on real time (S17),
   * once the requests in flight are answered; requests that arrive meanwhile wait for it.
   */
  readonly reset: () => Promise<void>;
  readonly maxBodyBytes: number;
  /**
   * How long a client's idempotency key points at its task; `undefined`: as long as the task
   * exists.
   */
  readonly idempotencyTtlMs: number | undefined;
  readonly serviceName: string;
  readonly log: (entry: LogEntry) => void;
};

/**
 * What a request carries through the hono middleware: the runtime's client info as its bindings,
 * and what the middleware learn of it (`c.get`).
 *
 * @internal
 */
export type Env = {
  /** The client's address. */
  Bindings: ClientInfo;
  Variables: {
    /** The request's id, made when first needed: read it with `requestIdOf(c)`. */
    requestId: string | undefined;
    /** Why the request is refused before any route: the fixtures failed to load. */
    loadFailure: { readonly error: unknown } | undefined;
    /** Who the key authenticated (the routes that take a key). */
    caller: Caller;
    /** The parsed JSON body (the routes that take one). */
    body: unknown;
    /** The issues of an error answer, as listed in it: what the request journal records. */
    issues: readonly Issue<string>[];
  };
};

/**
 * One admin route: its method, its path (`:id` is one segment), how it reads its body (`none` not
 * at all, `object` a JSON object, `{}` when there is none, `required` a JSON object, `json` any
 * JSON value) and its handler.
 *
 * @internal
 */
export type AdminRoute = readonly [
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  body: "none" | "object" | "required" | "json",
  handler: Handler<Env>,
];
