/**
 * `createReferenceServer`: the whole service interface in memory, as a web-standard fetch handler
 * plus the operator's admin methods.
 */
import { catalog as builtIn } from "../models/catalog.js";
import type { Catalog } from "../models/modelSpec.js";
import { type Admin, createAdmin } from "./admin.js";
import { hashApiKey } from "./auth.js";
import { DEFAULT_MAX_BODY_BYTES } from "./body.js";
import { type ApiKeyHasher, type Incoming, type LogEntry, type Outgoing, RESPOND, type ServerContext } from "./context.js";
import { handle } from "./handle.js";
import { DEFAULT_IDEMPOTENCY_TTL_MS } from "./idempotency.js";
import { newId } from "./ids.js";
import { createMemoryStore } from "./memoryStore.js";
import { serverMessages as m } from "./messages.js";
import { createOpenApiDocument } from "./openapi.js";
import { fromRequest } from "./incoming.js";
import { failure, toResponse } from "./responses.js";
import type { Store } from "./store.js";

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
 * Creates a reference server: all of the service interface (RULES.md S1-S13) with its state in a
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
  const ctx: ServerContext = {
    store: options.store ?? createMemoryStore(),
    catalog,
    now: options.now ?? Date.now,
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    idempotencyTtlMs: positive("idempotencyTtlMs", options.idempotencyTtlMs, DEFAULT_IDEMPOTENCY_TTL_MS),
    serviceName: options.serviceName ?? "imagegen-pricing-reference",
    log: options.log ?? defaultLog,
    hashApiKey: options.hashApiKey ?? hashApiKey,
  };
  const { admin, keysSettled } = createAdmin(ctx);
  let openApiText: string | undefined;
  const openApi = () => {
    openApiText ??= JSON.stringify(createOpenApiDocument(catalog));
    return openApiText;
  };

  const respond = async (incoming: Incoming): Promise<Outgoing> => {
    const requestId = newId.request();
    try {
      const settling = keysSettled();
      if (settling) await settling;
      return await handle(incoming, ctx, requestId, openApi);
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
