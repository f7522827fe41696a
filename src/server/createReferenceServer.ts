/**
 * `createReferenceServer`: a whole reference server (the fetch handler of the four endpoints and
 * the operator's admin methods) over a store, with its options and the settings every handler is
 * given.
 */
import { catalog as builtIn } from "../models/catalog.js";
import type { Catalog } from "../models/modelSpec.js";
import { type Admin, createAdmin } from "./admin.js";
import { type ApiKeyHasher, hashApiKey } from "./auth.js";
import { serverMessages as m } from "./errors.js";
import { DEFAULT_IDEMPOTENCY_TTL_MS } from "./generations.js";
import {
  DEFAULT_MAX_BODY_BYTES,
  dispatch,
  failure,
  fromRequest,
  type Incoming,
  type Outgoing,
  RESPOND,
  toResponse,
} from "./http.js";
import { newId } from "./ids.js";
import { createMemoryStore } from "./memoryStore.js";
import { createOpenApiDocument } from "./openapi.js";
import type { Store } from "./store.js";

/** A line the server logs. It never holds a key, a header or a body. */
export type LogEntry = {
  level: "error";
  message: string;
  requestId: string;
  error: { name: string; message: string; stack?: string };
};

/** The settings and state of one server: what every handler is given. @internal */
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
  /** The serialized OpenAPI document, made on first use. */
  readonly openApiText: () => string;
};

/** Options of {@link createReferenceServer}; every one has a default. */
export type ReferenceServerOptions = {
  /** Largest request body in bytes (default 1 MiB); a larger one is 413. */
  maxBodyBytes?: number;
  /** How long an idempotency record lives, in milliseconds (default 24 hours). */
  idempotencyTtlMs?: number;
  /** The clock, in epoch milliseconds (default `Date.now`); tests pass their own. */
  now?: () => number;
  /** The models and prices (default: the built-in catalog). */
  catalog?: Catalog;
  /** Where the state lives (default: a new in-memory store). */
  store?: Store;
  /** The `service` of `GET /api/ping` (default `"imagegen-pricing-reference"`). */
  serviceName?: string;
  /** Where an unexpected error is reported (default: one JSON line on `console.error`). Never sees a key or a body. */
  log?: (entry: LogEntry) => void;
  /**
   * How an API key is hashed to the SHA-256 lowercase hex under which it is stored (default: Web
   * Crypto's `crypto.subtle.digest`, asynchronous, on every runtime). `<package>/node` passes
   * `sha256Hex`, a synchronous `node:crypto` hash, which makes key checks several times cheaper.
   * It must return exactly the SHA-256 hex of the key; keys are never kept in any other form.
   */
  hashApiKey?: ApiKeyHasher;
};

/** A reference server: the fetch handler of the four endpoints and the admin methods. */
export type ReferenceServer = {
  /** Answers a request; never rejects, never answers without a `Request-Id` header. */
  fetch: (request: Request) => Promise<Response>;
  /** The operator's methods (not reachable over HTTP). */
  admin: Admin;
  /** @internal The same handler without web `Request`/`Response` objects, for runtime bindings. */
  readonly [RESPOND]: (incoming: Incoming) => Promise<Outgoing>;
};

const defaultLog = (entry: LogEntry) => console.error(JSON.stringify(entry));

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number.`);
  return value;
}

/**
 * Creates a reference server: all of the service interface (S1-S13) with its state in a
 * store (in memory by default).
 *
 * @param options - Limits, clock, catalog, store and logger; all optional.
 * @returns `{ fetch, admin }`.
 * @example
 * ```ts
 * const server = createReferenceServer();
 * const { userId } = server.admin.createUser({ credits: 1000 });
 * const { key } = server.admin.createApiKey(userId);
 * const res = await server.fetch(
 *   new Request("http://local/api/ping", { headers: { authorization: `Bearer ${key}` } }),
 * );
 * await res.json(); // { ok: true, service, authProvider: "api_key", userId, apiKeyId }
 * ```
 */
export function createReferenceServer(options: ReferenceServerOptions = {}): ReferenceServer {
  const catalog = options.catalog ?? builtIn;
  let openApiText: string | undefined;
  const ctx: ServerContext = {
    store: options.store ?? createMemoryStore(),
    catalog,
    now: options.now ?? Date.now,
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    idempotencyTtlMs: positive("idempotencyTtlMs", options.idempotencyTtlMs, DEFAULT_IDEMPOTENCY_TTL_MS),
    serviceName: options.serviceName ?? "imagegen-pricing-reference",
    log: options.log ?? defaultLog,
    hashApiKey: options.hashApiKey ?? hashApiKey,
    openApiText: () => {
      openApiText ??= JSON.stringify(createOpenApiDocument(catalog));
      return openApiText;
    },
  };
  const { admin, keysSettled } = createAdmin(ctx);

  const respond = async (incoming: Incoming): Promise<Outgoing> => {
    const requestId = newId.request();
    try {
      const settling = keysSettled();
      if (settling) await settling;
      return await dispatch(incoming, ctx, requestId);
    } catch (error) {
      // A bug, not an input: log what went wrong (never the request's headers or body) and answer JSON.
      try {
        const e = error instanceof Error ? error : new Error(String(error));
        ctx.log({
          level: "error",
          message: "unexpected error while handling a request",
          requestId,
          error: { name: e.name, message: e.message, ...(e.stack === undefined ? {} : { stack: e.stack }) },
        });
      } catch {
        // a failing logger must not turn a 500 into a rejected promise
      }
      return failure(requestId, { code: "internal_error", message: m.internalError() });
    }
  };
  const fetch = async (request: Request): Promise<Response> => toResponse(await respond(fromRequest(request)));
  return { fetch, admin, [RESPOND]: respond };
}
