/**
 * `createReferenceServer`: the reference server as a hono app, its options, and the middleware
 * every request crosses (request id, `onResponse`, CORS, the request journal, 404 and 405, the
 * fixtures loaded) with the routes of the service and, with an admin token, of the admin API.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { TrieRouter } from "hono/router/trie-router";
import { NoCatalogInForceError } from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import { createMemoryStore } from "../store/memory.js";
import {
  type FixtureUserLoad,
  type ReferenceStore,
  type Store,
  StoreUnavailableError,
} from "../store/store.js";
import { ping, queryCredits, quotePrice } from "./account.js";
import type { ClientInfo } from "./address.js";
import { type Admin, addAdminRoutes, createAdmin } from "./admin.js";
import { adminGuard, checkAdminToken } from "./adminToken.js";
import { apiKey, hashApiKey } from "./auth.js";
import { DEFAULT_MAX_BODY_BYTES, jsonBody } from "./body.js";
import { firstCatalogStart, serverCatalogs } from "./catalogs.js";
import { createServerClock } from "./clock.js";
import type { Env, LogEntry, ResponseEvent, ServerContext } from "./context.js";
import { AnswerLostError, controlsOff, createControls } from "./controls.js";
import { fail, json, requestIdOf } from "./errors.js";
import {
  checkFixtures,
  type Fixtures,
  FixturesError,
  fixtureUsers,
  loadFixtures,
} from "./fixtures.js";
import { createGeneration } from "./generations.js";
import { newId } from "./ids.js";
import { createMasker } from "./mask.js";
import { serverMessages as m } from "./messages.js";

/**
 * The origins a server lets a page call it from: `"*"` (any) or a list of `scheme://host[:port]`
 * origins.
 */
export type CorsOrigins = "*" | readonly string[];

/** Options of {@link createReferenceServer}; every one has a default. */
export type ReferenceServerOptions = {
  /**
   * Largest request body in bytes; a larger one is 413. Default: what the largest valid generation
   * request can need (every character escaped), with a margin: 304 KiB.
   */
  maxBodyBytes?: number;
  /**
   * An idempotency window in milliseconds: a key then stops pointing at its task this long after
   * the task was accepted, and a retry after that is a new task: 1 to 3,155,760,000,000 (100
   * years). Default: no window, a key points at its task for as long as the task exists (S5).
   */
  idempotencyTtlMs?: number;
  /**
   * Real time, in epoch milliseconds (default `Date.now`); tests pass their own. The server reads
   * the time from its test clock, which runs on this one until the admin API freezes it or moves
   * it forward (`admin.setClock`, S17).
   */
  now?: () => number;
  /**
   * The models and prices, in force whatever the clock (default: the built-in catalog). Not with
   * `catalogs`.
   */
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
   * Where the state lives: what `createPostgresStore()` of `<package>/postgres` returns (default: a
   * new in-memory store). A store that cannot reach its database makes a request answer 503 with
   * `Retry-After`.
   */
  store?: ReferenceStore;
  /** The `service` of `GET /api/ping` (default `"imagegen-pricing-reference"`). */
  serviceName?: string;
  /**
   * Where an unexpected error or an unreachable store is reported (default: one JSON line on
   * `console.error`). Never sees a key or a body.
   */
  log?: (entry: LogEntry) => void;
  /**
   * Called once for every request the server answers, with its method, path, status, request id and
   * duration: a request log (`imagegen-pricing serve --log`). It never sees a header or a body; an
   * error it throws is ignored. (`serve()` of `<package>/node` has an `onResponse` of its own for
   * the requests it answers itself, which never reach the server.)
   */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * The starting state: users with their credits, multipliers, verbatim API keys and asset ids.
   * Checked when the server is made (a `FixturesError` names every problem, and nothing is loaded),
   * then loaded into the store before the first request or admin call is answered. Loading into a
   * store that already holds a fixture user keeps that user as it is.
   */
  fixtures?: Fixtures;
  /**
   * Turns on the admin HTTP API under `/admin/`, authorized by
   * `Authorization: Bearer <adminToken>`: 16 to 256 characters of A-Z a-z 0-9 _ -, not starting
   * with `ck_` (it is not an API key); any other is an `AdminTokenError` naming the allowed
   * lengths. Wrong tokens are counted per client address: past 10 within a minute, that address is
   * answered 429 until its minute ends. Off when absent. It also turns on the test-double controls
   * (S17): faults (`admin.addFault`, `/admin/faults`) and the request journal (`admin.requests`,
   * `/admin/requests`).
   */
  adminToken?: string;
  /**
   * Lets pages on other origins call the service from a browser: `"*"` (any origin) or a list of
   * origins such as `"http://127.0.0.1:5173"`. A preflight from an allowed origin is answered 204;
   * every answer to one gets `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`.
   * The admin API is never open to pages. Off when absent (a preflight is then 405, like any method
   * a path lacks).
   */
  cors?: CorsOrigins;
};

/** A reference server: the fetch handler of the four endpoints and the admin methods. */
export type ReferenceServer = {
  /**
   * Answers a request; never answers without a `Request-Id` header, and never rejects except with
   * an `AnswerLostError` when a `lose_answer` fault asked for it (the request was carried out). The
   * second argument, when the runtime gives one, tells the client's address (`{ clientAddress }`,
   * Deno's handler info or Bun's server), under which wrong admin tokens are counted.
   */
  fetch: (request: Request, info?: ClientInfo) => Promise<Response>;
  /**
   * The operator's methods (over HTTP too, under `/admin/`, when an `adminToken` is given); each
   * returns a Promise.
   */
  admin: Admin;
  /**
   * Resolves once the fixtures are loaded (at once without fixtures). Requests and admin calls wait
   * for it on their own; a program awaits it to report a load that failed (a store that cannot be
   * reached, a key another user holds) before it serves. After a failure, the next call tries
   * again.
   */
  ready: () => Promise<void>;
};

const defaultLog = (entry: LogEntry) => console.error(JSON.stringify(entry));

/**
 * The longest idempotency window, 100 years of 365.25 days in milliseconds: every store keeps an
 * instant as epoch milliseconds that are a safe integer, and this added to any date JavaScript can
 * hold stays one.
 */
const MAX_IDEMPOTENCY_TTL_MS = 3_155_760_000_000;

/** The `idempotencyTtlMs` option checked: a RangeError names the range it must be in. */
function idempotencyTtl(value: number | undefined): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_IDEMPOTENCY_TTL_MS) {
    throw new RangeError(
      `idempotencyTtlMs must be whole milliseconds from 1 to ${MAX_IDEMPOTENCY_TTL_MS} ` +
        `(100 years); received ${String(value)}.`,
    );
  }
  return value;
}

function positive<T>(name: string, value: number | undefined, fallback: T): number | T {
  if (value === undefined) {
    return fallback;
  }
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive whole number.`);
  }
  return value;
}

/**
 * The store option as the server uses it: one of this package's stores, or the error that says so.
 */
function storeOf(store: ReferenceStore | undefined): Store {
  if (store === undefined) {
    return createMemoryStore();
  }
  const methods = store as Partial<Record<keyof Store, unknown>>;
  if (typeof methods.findCaller !== "function" || typeof methods.commitTask !== "function") {
    throw new TypeError(
      "store must be a store of this package, such as what createPostgresStore() of " +
        "imagegen-pricing/postgres returns.",
    );
  }
  return store as Store;
}

/**
 * The longest `Retry-After` the server asks for: a store's hint past an hour is not taken
 * literally.
 */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * The `Retry-After` seconds of a store outage: a {@link StoreUnavailableError}, or any error named
 * like one (a store built against another copy of this package), or `undefined` for anything else.
 */
function retryAfterOf(error: unknown): number | undefined {
  if (
    !(error instanceof StoreUnavailableError) &&
    (error as { name?: unknown } | null)?.name !== "StoreUnavailableError"
  ) {
    return undefined;
  }
  const hint = (error as { retryAfterMs?: unknown }).retryAfterMs;
  if (typeof hint !== "number" || !Number.isFinite(hint) || hint < 1000) {
    return 1;
  }
  return Math.min(Math.ceil(hint / 1000), MAX_RETRY_AFTER_SECONDS);
}

/** The request headers a page may send: the key, the media type and the idempotency key. */
const ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Retry-Count";
/** The answer headers a page may read besides the safelisted ones: every one the service sets. */
const EXPOSE_HEADERS = "Request-Id, Retry-After, Idempotent-Replayed, WWW-Authenticate, Allow";

/**
 * The `cors` option checked: `"*"`, or origins such as `http://127.0.0.1:5173` (no path) as a
 * browser sends them (lower-case, default port left out); a RangeError names the first that is not
 * one. @internal
 */
export function checkCorsOrigins(origins: CorsOrigins): "*" | string[] {
  if (origins === "*") {
    return "*";
  }
  if (!Array.isArray(origins) || origins.length === 0) {
    throw new RangeError(
      'cors must be "*" or a non-empty list of origins such as "http://127.0.0.1:5173".',
    );
  }
  return origins.map((origin) => {
    let url: URL | undefined;
    try {
      url = typeof origin === "string" ? new URL(origin) : undefined;
    } catch {
      url = undefined;
    }
    const bare =
      url && url.pathname === "/" && !url.search && !url.hash && !url.username && !url.password;
    if (
      !url ||
      !bare ||
      !/^https?:$/.test(url.protocol) ||
      !/^[a-z]+:\/\/[^/]+\/?$/i.test(origin)
    ) {
      throw new RangeError(
        `cors: ${JSON.stringify(String(origin)).slice(0, 80)} is not an origin; give ` +
          `scheme://host[:port] (such as "http://127.0.0.1:5173", no path), or "*".`,
      );
    }
    return url.origin;
  });
}

/**
 * CORS for the service's endpoints (`hono/cors`): a browser's preflight from an allowed origin is
 * answered 204; any other `OPTIONS` goes on to the routes, which answer it 405 as without CORS.
 */
function corsFor(origins: "*" | string[]): MiddlewareHandler<Env> {
  const answer = cors({
    origin: origins,
    allowMethods: ["GET, HEAD, POST"],
    // One string each, so that the lists read as the service documents them ("A, B").
    allowHeaders: [ALLOW_HEADERS],
    exposeHeaders: [EXPOSE_HEADERS],
    maxAge: 600,
  });
  return async (c, next) => {
    if (c.req.method !== "OPTIONS") {
      return answer(c, next);
    }
    const origin = c.req.header("origin");
    if (
      c.req.header("access-control-request-method") !== undefined &&
      origin !== undefined &&
      (origins === "*" || origins.includes(origin))
    ) {
      c.header("request-id", requestIdOf(c));
      c.header("cache-control", "no-store");
      return answer(c, next);
    }
    await next();
    // With a list, the answer depends on the Origin header: a cache must keep one answer per
    // origin.
    if (origins !== "*") {
      c.res.headers.append("vary", "Origin");
    }
  };
}

/**
 * Creates a reference server: all of the service interface (S1-S17) with its state in a store (in
 * memory by default).
 *
 * @param options - Limits, clock, catalog (or a history of catalogs), store, fixtures, admin token
 *   and CORS; all optional.
 * @returns `{ fetch, admin, ready }`.
 * @throws RangeError when both `catalog` and `catalogs` are given, a limit is not a positive whole
 *   number, or `idempotencyTtlMs` is past 100 years; `CatalogHistoryError` naming each bad entry of
 * `catalogs`; `FixturesError` naming every
 *   problem of `fixtures`; `AdminTokenError` for an `adminToken` it refuses.
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
  const checked =
    options.fixtures === undefined ? undefined : checkFixtures(options.fixtures, newId.user);
  if (checked && !checked.success) {
    throw new FixturesError(checked.issues);
  }
  const adminToken =
    options.adminToken === undefined ? undefined : checkAdminToken(options.adminToken);
  const origins = options.cors === undefined ? undefined : checkCorsOrigins(options.cors);
  const log = options.log ?? defaultLog;
  const ctx: ServerContext = {
    store: storeOf(options.store),
    catalogs,
    clock,
    reset: () => reset(),
    maxBodyBytes: positive("maxBodyBytes", options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES),
    idempotencyTtlMs: idempotencyTtl(options.idempotencyTtlMs),
    serviceName: options.serviceName ?? "imagegen-pricing-reference",
    log,
  };
  // The test-double controls (S17) exist only with an admin token, like the admin API.
  const controls =
    adminToken === undefined ? undefined : createControls(adminToken, clock.now, ctx.maxBodyBytes);

  // A reset is one step for every request (S17): it waits for the requests in flight, and the
  // requests that arrive meanwhile wait for it, so each sees the state before it or after it. The
  // first load of the fixtures is such a step too; one that failed is tried again by the next
  // caller.
  let inFlight = 0;
  let drained: (() => void) | undefined;
  /** The step that runs or waits to run: requests wait for it (and share its failure). */
  let turn: Promise<void> | undefined;
  let loaded = !checked;
  /** The fixtures as the store loads them, hashed once. */
  let users: Promise<FixtureUserLoad[]> | undefined;
  /**
   * Runs `step` alone: after the requests in flight, before those that arrive meanwhile; steps in
   * turn.
   */
  const alone = (step: () => Promise<void>): Promise<void> => {
    const previous = turn;
    const mine: Promise<void> = (async () => {
      await previous?.catch(() => {});
      if (inFlight > 0) {
        await new Promise<void>((resolve) => (drained = resolve));
      }
      await step();
    })().finally(() => {
      if (turn === mine) {
        turn = undefined;
      }
    });
    turn = mine;
    return mine;
  };
  const load = async (at: number, emptied = false) => {
    if (checked) {
      users ??= fixtureUsers(checked.output, hashApiKey);
      // The stores of this package load the fixtures of a reset in its own step.
      if (emptied) {
        await ctx.store.reset({ users: await users, at });
      } else {
        await loadFixtures(ctx.store, checked.output, await users, at);
      }
    } else if (emptied) {
      await ctx.store.reset();
    }
    loaded = true;
  };
  /**
   * Waits for the fixtures and for every step; `enter` also counts the caller in flight, in the
   * same turn.
   */
  const ready = async (enter = false): Promise<void> => {
    while (turn !== undefined || !loaded) {
      // A failed load is every waiter's failure; a failed reset changed nothing, and is its
      // caller's.
      await (turn?.catch((error: unknown) => {
        if (!loaded) {
          throw error;
        }
      }) ?? alone(() => load(clock.now())));
    }
    if (enter) {
      inFlight++;
    }
  };
  const leave = () => {
    if (--inFlight === 0 && drained) {
      drained();
      drained = undefined;
    }
  };
  if (checked) {
    ready().catch(() => {}); // started now; whoever calls next sees the outcome
  }

  const reset = (): Promise<void> => {
    // The faults go first, and the answers they hold go now: the reset then waits for no fault.
    controls?.endFaults();
    return alone(async () => {
      // The opening grants at real time, where the clock stands after the reset.
      await load(clock.realNow(), true);
      clock.reset();
      controls?.clearJournal();
    });
  };
  const methods = createAdmin(ctx, controls?.methods ?? controlsOff());
  /** The admin methods in process, each counted in flight like a request (the reset is a step). */
  const admin = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(methods)) {
    admin[name] =
      name === "reset"
        ? method
        : async (...args: unknown[]) => {
            await ready(true);
            try {
              return await (method as (...a: unknown[]) => unknown)(...args);
            } finally {
              leave();
            }
          };
  }

  const report = (requestId: string, message: string, error: unknown) => {
    try {
      const e = error instanceof Error ? error : new Error(String(error));
      const stack = e.stack === undefined ? {} : { stack: e.stack };
      log({
        level: "error",
        message,
        requestId,
        error: { name: e.name, message: e.message, ...stack },
      });
    } catch {
      // a failing logger must not turn an answer into a rejected promise
    }
  };

  const app = new Hono<Env>();
  // Every request is counted in flight from its first step, after the fixtures and any reset, but
  // a reset's own (it waits for the others). One that waited for a load of the fixtures that
  // failed is not counted: the step after `onResponse` answers it with that failure.
  app.use(async (c, next) => {
    if (adminToken !== undefined && c.req.path === "/admin/reset") {
      return next();
    }
    if (turn !== undefined || !loaded) {
      try {
        await ready(true);
      } catch (error) {
        c.set("loadFailure", { error });
        return next();
      }
    } else {
      inFlight++;
    }
    try {
      await next();
    } finally {
      leave();
    }
  });
  const onResponse = options.onResponse;
  if (onResponse) {
    const mask = createMasker(adminToken);
    app.use(async (c, next) => {
      const start = performance.now();
      await next();
      try {
        onResponse({
          method: c.req.method,
          path: mask(c.req.path),
          status: c.res.status,
          requestId: requestIdOf(c),
          durationMs: performance.now() - start,
        });
      } catch {
        // a failing hook must not turn an answer into a rejected promise
      }
    });
  }
  // A request that waited for a load of the fixtures that failed is answered with that failure.
  if (checked) {
    app.use((c, next) => {
      const failure = c.var.loadFailure;
      return failure === undefined ? next() : Promise.reject(failure.error);
    });
  }
  if (origins) {
    app.use("/api/*", corsFor(origins)).use("/openapi.json", corsFor(origins));
  }
  if (controls) {
    app.use(controls.journal);
  }
  app.onError((error, c) => {
    if (error instanceof AnswerLostError) {
      throw error; // no answer, on purpose: fetch rejects, a socket closes
    }
    // Never the request's headers or body in the log: only what went wrong.
    const id = requestIdOf(c);
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) {
      report(id, "the store cannot be reached", error);
      return fail(c, {
        code: "service_unavailable",
        message: m.serviceUnavailable(retryAfter),
        headers: { "retry-after": String(retryAfter) },
      });
    }
    if (error instanceof NoCatalogInForceError) {
      // A history whose first catalog is still ahead: no price is known, so nothing is priced (P2,
      // P8).
      report(id, "no catalog is in force yet", error);
      const seconds = (firstCatalogStart(error) - Date.parse(error.instant)) / 1000;
      const wait = Math.min(Math.max(1, Math.ceil(seconds)), MAX_RETRY_AFTER_SECONDS);
      return fail(c, {
        code: "service_unavailable",
        message: m.noCatalogInForce(error.firstVersion, wait),
        headers: { "retry-after": String(wait) },
      });
    }
    report(id, "unexpected error while handling a request", error);
    return fail(c, { code: "internal_error", message: m.internalError() });
  });

  // Each route in the order S12 fixes: its path (404) and method (405), then the key (401), the
  // test-double faults when the server has them, then the body: media type (415), size (413),
  // JSON (400), and the endpoint.
  const key = apiKey(ctx);
  const faults = controls ? [controls.afterAuth] : [];
  const body = jsonBody(ctx.maxBodyBytes);
  app.post("/api/generations", key, ...faults, body, createGeneration(ctx));
  app.post("/api/pricing/quote", key, ...faults, body, quotePrice(ctx));
  app.get("/api/ping", key, ...faults, ping(ctx));
  app.get("/api/query/credits", key, ...faults, queryCredits(ctx));
  app.get("/openapi.json", (c) => json(c, 200, catalogs.openApiText(clock.now())));
  if (adminToken !== undefined && controls) {
    // The routes call the methods as they are: their request is counted in flight already.
    addAdminRoutes(app, adminGuard(adminToken, clock), ctx, () => methods, controls.routes);
  }
  app.notFound(notFoundOrNotAllowed(app));

  const fetch = (request: Request, info?: ClientInfo): Promise<Response> => {
    const env = typeof info === "object" && info !== null ? info : {};
    return Promise.resolve(app.fetch(request, env));
  };
  return { fetch, admin: admin as Admin, ready: () => ready() };
}

/**
 * The answer when no route answered: 405 (with `Allow`) when the path has routes for other
 * methods (a `GET` answers `HEAD` too), else 404. Decided here rather than by a catch-all route per
 * path, which would make every request a chain of two handlers. The path is matched by hono's own
 * router, told each route's path and the methods it takes.
 */
function notFoundOrNotAllowed(app: Hono<Env>) {
  const methods = new Map<string, string[]>();
  for (const { method, path } of app.routes) {
    if (method === "ALL") {
      continue;
    }
    const allowed = methods.get(path) ?? [];
    // A route of several handlers is listed once per handler.
    for (const each of method === "GET" ? ["GET", "HEAD"] : [method]) {
      if (!allowed.includes(each)) {
        allowed.push(each);
      }
    }
    methods.set(path, allowed);
  }
  const router = new TrieRouter<string[]>();
  for (const [path, allowed] of methods) {
    router.add("ALL", path, allowed);
  }
  return (c: Context<Env>) => {
    const path = c.req.path;
    const allowed = router.match(c.req.method, path)[0][0]?.[0];
    if (!allowed) {
      return fail(c, { code: "not_found", message: m.notFound(path) });
    }
    const allow = allowed.join(", ");
    return fail(c, {
      code: "method_not_allowed",
      message: m.methodNotAllowed(c.req.method, allowed),
      headers: { allow },
    });
  };
}
