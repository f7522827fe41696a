/**
 * What every handler is given: the server's settings and state, and who is calling.
 */
import type { Catalog } from "../models/modelSpec.js";
import type { Store } from "./store.js";

/** A line the server logs. It never holds a key, a header or a body. */
export type LogEntry = {
  level: "error";
  message: string;
  requestId: string;
  error: { name: string; message: string; stack?: string };
};

/** The settings and state of one server. @internal */
export type ServerContext = {
  readonly store: Store;
  readonly catalog: Catalog;
  readonly now: () => number;
  readonly maxBodyBytes: number;
  readonly idempotencyTtlMs: number;
  readonly serviceName: string;
  readonly log: (entry: LogEntry) => void;
  /** SHA-256 of a key as lowercase hex; Web Crypto unless the runtime binding gives a synchronous one. */
  readonly hashApiKey: ApiKeyHasher;
};

/**
 * Hashes a whole API key to its SHA-256 as lowercase hex. A synchronous one (a string, not a
 * promise) saves the request a trip through the event loop; see `<package>/node`'s `sha256Hex`.
 */
export type ApiKeyHasher = (key: string) => string | Promise<string>;

/** The authenticated caller. @internal */
export type Caller = { readonly userId: string; readonly apiKeyId: string };

/**
 * What the server reads of a request. Runtime-neutral and small, so that a binding can hand a
 * request over without building a web `Request` (see `<package>/node`); {@link fromRequest} makes
 * one from a `Request`. @internal
 */
export type Incoming = {
  readonly method: string;
  /** The path, without query string or fragment. */
  readonly path: string;
  /** A header by its lower-case name, repeated values joined by `", "`; `null` when absent. */
  header(name: string): string | null;
  /** Every byte of the body, or why there are none; never reads more than `maxBytes` and one chunk. */
  readBody(maxBytes: number): Promise<BodyBytes>;
};

/** What the body reader answers: every byte of the body, or why there are none. @internal */
export type BodyBytes = Uint8Array | "too_large" | "unreadable";

/** What the server answers: a status, headers (lower-case names) and a JSON text. @internal */
export type Outgoing = { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

/**
 * Where a reference server keeps its handler of {@link Incoming} requests, for runtime bindings
 * that can skip building web `Request` and `Response` objects (`<package>/node`). @internal
 */
export const RESPOND: unique symbol = Symbol.for("imagegen-pricing.respond");

/** One endpoint's handler. @internal */
export type Handler = (incoming: Incoming, ctx: ServerContext, caller: Caller, requestId: string) => Outgoing | Promise<Outgoing>;
