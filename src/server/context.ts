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

/** One endpoint's handler. @internal */
export type Handler = (request: Request, ctx: ServerContext, caller: Caller, requestId: string) => Response | Promise<Response>;
