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
};

/** The authenticated caller. @internal */
export type Caller = { readonly userId: string; readonly apiKeyId: string };

/** One endpoint's handler. @internal */
export type Handler = (request: Request, ctx: ServerContext, caller: Caller, requestId: string) => Response | Promise<Response>;
