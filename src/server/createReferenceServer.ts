/**
 * `createReferenceServer`: a whole reference server over a store, with its options: it builds the
 * settings every handler is given and the router, and turns what goes wrong into 503 or 500.
 */
import { NoCatalogInForceError } from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import { createMemoryStore } from "../store/memory.js";
import { type Store, StoreUnavailableError } from "../store/store.js";
import { createServerClock } from "./admin/controls.js";
import { faultMethods } from "./admin/faults.js";
import { type Admin, createAdmin } from "./admin/methods.js";
import { adminMount } from "./admin/routes.js";
import { checkAdminToken } from "./admin/token.js";
import { hashApiKey } from "./auth.js";
import { firstCatalogStart, serverCatalogs } from "./catalogs.js";
import type { ApiKeyHasher, LogEntry, ResponseEvent, ServerContext } from "./context.js";
import { AnswerLostError, afterAuthentication, createFaultList } from "./faults.js";
import { checkFixtures, type Fixtures, FixturesError, loadFixtures } from "./fixtures.js";
import { DEFAULT_MAX_BODY_BYTES } from "./http/body.js";
import { type CorsOrigins, checkCorsOrigins, withCors } from "./http/cors.js";
import { type ClientInfo, fromRequest, type Incoming } from "./http/incoming.js";
import { failure, type Outgoing, toResponse } from "./http/respond.js";
import { newId } from "./ids.js";
import { createJournal, withJournal } from "./journal.js";
import { serverMessages as m } from "./messages.js";
import { createRouter } from "./router.js";

/**
 * What a runtime binding (`<package>/node`) may use of a reference server instead of its `fetch`:
 * the same handler without web `Request`/`Response` objects, and the server's `onResponse` for the
 * answers the binding writes itself. Found by {@link bindingOf}, never a property of the server.
 *
 * @internal
 */
type Binding = {
  /**
   * Answers a request exactly as `fetch` does, rejecting where `fetch` would, except that the body
   * of a HEAD's answer is kept (the binding sends the GET's `Content-Length` and no body).
   */
  readonly answer: (incoming: Incoming) => Promise<Outgoing>;
  /** Tells the server's `onResponse` of an answer the binding wrote itself (a 400 without Host, a 417). */
  readonly report: (event: ResponseEvent) => void;
};

/** The binding of each reference server this copy of the package made, by the server object. */
const bindings = new WeakMap<object, Binding>();

/**
 * The binding of a reference server made by {@link createReferenceServer} of this copy of the
 * package: `undefined` for any other fetch server, a wrapper around a reference server included
 * (its own `fetch` is then what answers).
 *
 * @param server - Any object with a fetch handler.
 * @returns Its binding, if it is a reference server itself.
 * @internal
 */
export function bindingOf(server: object): Binding | undefined {
  return bindings.get(server);
}

/** Options of {@link createReferenceServer}; every one has a default. */
export type ReferenceServerOptions = {
  /**
   * Largest request body in bytes; a larger one is 413. Default: `DEFAULT_MAX_BODY_BYTES`, what the
   * largest valid generation request can need (every character escaped), with a margin.
   */
  maxBodyBytes?: number;
  /**
   * An idempotency window in milliseconds: a key then stops pointing at its task this long after the
   * task was accepted, and a retry after that is a new task. Default: no window, a key points at its
   * task for as long as the task exists (S5).
   */
  idempotencyTtlMs?: number;
  /**
   * Real time, in epoch milliseconds (default `Date.now`); tests pass their own. The server reads
   * the time from its test clock, which runs on this one until the admin API freezes it or moves
   * it forward (`admin.setClock`, S17).
   */
  now?: () => number;
  /** The models and prices, in force whatever the clock (default: the built-in catalog). Not with `catalogs`. */
  catalog?: Catalog;
  /**
   * A price history instead of `catalog`: catalogs oldest first, each in force from its `version`
   * date at 00:00 UTC (P8), checked once here (`defineCatalogHistory`). Every request is priced
   * with the catalog in force at `now()`, so a scheduled change applies at its instant without a
   * restart; a task keeps what it was charged. Before the first entry no price is known: pricing
   * requests answer 503 `service_unavailable`.
   */
  catalogs?: readonly Catalog[];
  /**
   * Where the state lives (default: a new in-memory store). A store that cannot reach its backing
   * service rejects with a `StoreUnavailableError`; the request then answers 503 with `Retry-After`.
   */
  store?: Store;
  /** The `service` of `GET /api/ping` (default `"imagegen-pricing-reference"`). */
  serviceName?: string;
  /**
   * Where an unexpected error or an unreachable store is reported (default: one JSON line on
   * `console.error`). Never sees a key or a body.
   */
  log?: (entry: LogEntry) => void;
  /**
   * Called once for every request the server answers, whether through `fetch` or a runtime binding
   * such as `<package>/node` (there also for the answers `serve()` writes itself to a request it
   * read: a 400 without `Host`, a 417, a `CONNECT`), with its method, path, status, request id and
   * time: a request log (`imagegen-pricing serve --log`). It never sees a header or a body; an error
   * it throws is ignored.
   */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * How an API key is hashed to the SHA-256 lowercase hex under which it is stored (default: Web
   * Crypto's `crypto.subtle.digest`, asynchronous, on every runtime). `<package>/node` passes
   * `sha256Hex`, a synchronous `node:crypto` hash, which makes key checks several times cheaper.
   * It must return exactly the SHA-256 hex of the key; keys are never kept in any other form.
   */
  hashApiKey?: ApiKeyHasher;
  /**
   * The starting state: users with their credits, multipliers, verbatim API keys and asset ids.
   * Checked when the server is made (a `FixturesError` names every problem, and nothing is loaded),
   * then loaded into the store before the first request or admin call is answered. Loading into a
   * store that already holds a fixture user keeps that user as it is (see `loadFixtures`).
   */
  fixtures?: Fixtures;
  /**
   * Turns on the admin HTTP API under `/admin/`, authorized by `Authorization: Bearer <adminToken>`:
   * 16 to 256 characters of A-Z a-z 0-9 _ -, not starting with `ck_` (it is not an API key); any other is
   * an `AdminTokenError` naming the allowed lengths. Wrong tokens are counted per client address
   * (`ADMIN_TOKEN_THROTTLE`): past the limit, that address is answered 429 until its window ends.
   * Off when absent. It also turns on the test-double controls (S17): faults (`admin.addFault`,
   * `/admin/faults`) and the request journal (`admin.requests`, `/admin/requests`).
   */
  adminToken?: string;
  /**
   * Lets pages on other origins call the server from a browser: `"*"` (any origin) or a list of
   * origins such as `"http://127.0.0.1:5173"`. A preflight from an allowed origin is answered 204;
   * every answer to one gets `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`.
   * Off when absent (a preflight is then 405, like any method a path lacks).
   */
  cors?: CorsOrigins;
};

/** A reference server: the fetch handler of the four endpoints and the admin methods. */
export type ReferenceServer = {
  /**
   * Answers a request; never answers without a `Request-Id` header, and never rejects except with
   * an `AnswerLostError` when a `lose_answer` fault asked for it (the request was carried out). The second
   * argument, when the runtime gives one, tells the client's address (`{ clientAddress }`, or
   * Deno's handler info), under which wrong admin tokens are counted.
   */
  fetch: (request: Request, info?: ClientInfo) => Promise<Response>;
  /** The operator's methods (over HTTP too, under `/admin/`, when an `adminToken` is given); each returns a Promise. */
  admin: Admin;
  /**
   * Resolves once the fixtures are loaded (at once without fixtures). Requests and admin calls wait
   * for it on their own; a program awaits it to report a load that failed (a store that cannot be
   * reached, a key another user holds) before it serves. After a failure, the next call tries again.
   */
  ready: () => Promise<void>;
};

const defaultLog = (entry: LogEntry) => console.error(JSON.stringify(entry));

function positive<T>(name: string, value: number | undefined, fallback: T): number | T {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive whole number.`);
  return value;
}

/** The longest `Retry-After` the server asks for: a store's hint past an hour is not taken literally. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * The `Retry-After` seconds of a store outage: a {@link StoreUnavailableError}, or any error named
 * like one (a store built against another copy of this package), or `undefined` for anything else.
 */
function retryAfterOf(error: unknown): number | undefined {
  if (!(error instanceof StoreUnavailableError) && (error as { name?: unknown } | null)?.name !== "StoreUnavailableError") {
    return undefined;
  }
  const hint = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  if (typeof hint !== "number" || !Number.isFinite(hint) || hint < 1) return 1;
  return Math.min(Math.ceil(hint), MAX_RETRY_AFTER_SECONDS);
}

/**
 * Creates a reference server: all of the service interface (S1-S15) with its state in a
 * store (in memory by default).
 *
 * @param options - Limits, clock, catalog (or a history of catalogs), store and logger; all optional.
 * @throws RangeError when both `catalog` and `catalogs` are given; `CatalogHistoryError` naming each
 *   bad entry of `catalogs`.
 * @returns `{ fetch, admin }`.
 * @example
 * ```ts
 * const server = createReferenceServer();
 * const { userId } = await server.admin.createUser({ credits: 1000 });
 * const { key } = await server.admin.createApiKey(userId);
 * const res = await server.fetch(
 *   new Request("http://local/api/ping", { headers: { authorization: `Bearer ${key}` } }),
 * );
 * await res.json(); // { ok: true, service, authProvider: "api_key", userId, apiKeyId }
 * ```
 */
export function createReferenceServer(options: ReferenceServerOptions = {}): ReferenceServer {
  const catalogs = serverCatalogs(options.catalog, options.catalogs);
  const clock = createServerClock(options.now ?? Date.now);
  const now = clock.now;
  const checked = options.fixtures === undefined ? undefined : checkFixtures(options.fixtures, newId.user);
  if (checked && !checked.success) throw new FixturesError(checked.issues);
  const adminToken = options.adminToken === undefined ? undefined : checkAdminToken(options.adminToken);
  const cors = options.cors === undefined ? undefined : checkCorsOrigins(options.cors);
  // The test-double controls (S17) exist only with an admin token, like the admin API.
  const controls = adminToken === undefined ? undefined : { faults: createFaultList(), journal: createJournal(adminToken) };
  const ctx: ServerContext = {
    store: options.store ?? createMemoryStore(),
    catalogs,
    now,
    clock,
    reset: () => reset(),
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    idempotencyTtlMs: positive("idempotencyTtlMs", options.idempotencyTtlMs, undefined),
    serviceName: options.serviceName ?? "imagegen-pricing-reference",
    log: options.log ?? defaultLog,
    hashApiKey: options.hashApiKey ?? hashApiKey,
    openApiText: () => catalogs.openApiText(clock.now()),
    ...(controls ? { afterAuth: afterAuthentication(controls.faults, controls.journal.note) } : {}),
  };
  // The admin API is mounted on the router only when an admin token is configured.
  const route = createRouter(adminToken === undefined ? undefined : adminMount(adminToken, () => admin));

  // The fixtures load once, and again after each reset; a failed load (the store unreachable) is
  // tried again by the next caller.
  let loading: Promise<void> | undefined;
  let loaded = !checked;
  const load = (first?: () => Promise<void>): Promise<void> => {
    const attempt: Promise<void> = (async () => {
      await first?.();
      if (checked) {
        await loadFixtures(ctx.store, checked.output, { hashApiKey: ctx.hashApiKey, newApiKeyId: newId.apiKey, now: ctx.now() });
      }
    })().then(
      () => {
        loaded = true;
      },
      (error: unknown) => {
        if (loading === attempt) loading = undefined;
        throw error;
      },
    );
    loading = attempt;
    return attempt;
  };
  const ready = (): Promise<void> => (loaded ? Promise.resolve() : (loading ?? load()));
  if (checked) ready().catch(() => {}); // started now; whoever calls next sees the outcome

  // What a reset empties besides the store and the clock: a part of the server with state of its
  // own (faults, a request journal) adds its one line here.
  const alsoReset: (() => void | Promise<void>)[] = controls
    ? [() => void controls.faults.clear(), () => controls.journal.clear()]
    : [];
  let resetting: Promise<void> = Promise.resolve();
  /** One reset at a time; requests that arrive meanwhile wait for the fixtures (`ready`). */
  const reset = (): Promise<void> => {
    const run = resetting
      .catch(() => {})
      .then(() => {
        loaded = false;
        return load(async () => {
          await ctx.store.reset();
          clock.reset();
          for (const empty of alsoReset) await empty();
        });
      });
    resetting = run;
    return run;
  };
  const methods = createAdmin(ctx, faultMethods(controls));
  const admin = checked ? afterLoad(methods, ready) : methods;

  const report = (requestId: string, message: string, error: unknown) => {
    try {
      const e = error instanceof Error ? error : new Error(String(error));
      ctx.log({
        level: "error",
        message,
        requestId,
        error: { name: e.name, message: e.message, ...(e.stack === undefined ? {} : { stack: e.stack }) },
      });
    } catch {
      // a failing logger must not turn an answer into a rejected promise
    }
  };
  const answer = async (incoming: Incoming): Promise<Outgoing> => {
    const requestId = newId.request();
    try {
      if (!loaded) await ready();
      return await route(incoming, ctx, requestId);
    } catch (error) {
      if (error instanceof AnswerLostError) throw error; // no answer, on purpose: fetch rejects, a socket closes
      // Never the request's headers or body in the log: only what went wrong.
      const retryAfter = retryAfterOf(error);
      if (retryAfter !== undefined) {
        report(requestId, "the store cannot be reached", error);
        return failure(requestId, {
          code: "service_unavailable",
          message: m.serviceUnavailable(retryAfter),
          headers: { "retry-after": String(retryAfter) },
        });
      }
      if (error instanceof NoCatalogInForceError) {
        // A history whose first catalog is still ahead: no price is known, so nothing is priced (P2, P8).
        report(requestId, "no catalog is in force yet", error);
        const seconds = (firstCatalogStart(error) - Date.parse(error.instant)) / 1000;
        const retryAfter = Math.min(Math.max(1, Math.ceil(seconds)), MAX_RETRY_AFTER_SECONDS);
        return failure(requestId, {
          code: "service_unavailable",
          message: m.noCatalogInForce(error.firstVersion, retryAfter),
          headers: { "retry-after": String(retryAfter) },
        });
      }
      report(requestId, "unexpected error while handling a request", error);
      return failure(requestId, { code: "internal_error", message: m.internalError() });
    }
  };
  // A HEAD is answered like its GET: same status and headers, no body. The body is dropped here for
  // web `Response`s; a runtime binding gets it whole, so it can send the GET's Content-Length (Node
  // itself never writes the body of an answer to a HEAD).
  const onResponse = options.onResponse;
  const journaled = controls ? withJournal(answer, controls.journal, now) : answer;
  const shared = cors ? withCors(journaled, cors) : journaled;
  const tell = (event: ResponseEvent) => {
    try {
      onResponse?.(event);
    } catch {
      // a failing hook must not turn an answer into a rejected promise
    }
  };
  const respond =
    onResponse === undefined
      ? shared
      : async (incoming: Incoming): Promise<Outgoing> => {
          const start = performance.now();
          const out = await shared(incoming);
          tell({
            method: incoming.method,
            path: incoming.path,
            status: out.status,
            requestId: out.headers["request-id"] ?? "",
            ms: performance.now() - start,
          });
          return out;
        };
  const fetch = async (request: Request, info?: ClientInfo): Promise<Response> => {
    const out = await respond(fromRequest(request, typeof info === "object" && info !== null ? info : undefined));
    return toResponse(request.method === "HEAD" ? { ...out, body: "" } : out);
  };
  const server: ReferenceServer = { fetch, admin, ready };
  bindings.set(server, { answer: respond, report: tell });
  return server;
}

/** The admin methods, each waiting for the fixtures first, so a call never sees a half-loaded store. */
function afterLoad(admin: Admin, ready: () => Promise<void>): Admin {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(admin)) {
    wrapped[name] = async (...args: unknown[]) => {
      await ready();
      return (method as (...a: unknown[]) => unknown)(...args);
    };
  }
  return wrapped as Admin;
}
