/**
 * The one router of the server: the service's endpoints and, when an admin token is configured, the
 * admin API mounted under `/admin`, each found in the order S12 fixes: route (404), method (405),
 * then the key (401) and the endpoint's own checks. A `HEAD` is answered as its `GET`.
 */
import { authenticate } from "./auth.js";
import type { Endpoint, Handler, Mount, RouteTable, ServerContext } from "./context.js";
import type { Incoming } from "./http/incoming.js";
import { failure, jsonText, type Outgoing } from "./http/respond.js";
import { serverMessages as m } from "./messages.js";
import { ping, queryCredits } from "./routes/account.js";
import { createGeneration } from "./routes/generations.js";
import { quotePrice } from "./routes/quotes.js";

/** An endpoint that needs an API key: the key is checked (401) after the route and method. */
function withKey(method: "GET" | "POST", handler: Handler): Endpoint {
  return {
    method,
    answer: async (incoming, ctx, requestId) => {
      const auth = await authenticate(incoming.header("authorization"), ctx);
      if (!auth.ok) return failure(requestId, auth.failure);
      if (ctx.afterAuth) return ctx.afterAuth(incoming, auth.caller, requestId, (i) => handler(i, ctx, auth.caller, requestId));
      return handler(incoming, ctx, auth.caller, requestId);
    },
  };
}

/** The service's endpoints, by exact path (no trailing slash; the query string is ignored). */
const SERVICE: RouteTable = [
  ["/api/generations", withKey("POST", createGeneration)],
  ["/api/pricing/quote", withKey("POST", quotePrice)],
  ["/api/ping", withKey("GET", ping)],
  ["/api/query/credits", withKey("GET", queryCredits)],
  ["/openapi.json", { method: "GET", answer: async (_incoming, ctx, requestId) => jsonText(200, ctx.openApiText(), requestId) }],
];

/** What each pattern without `:id` of a table matches, found once per table (a table never changes). */
const exactPaths = new WeakMap<RouteTable, Map<string, { endpoints: Endpoint[]; params: string[] }>>();

/** The endpoints of a table whose pattern fits a path, with the path's `:id` segments decoded. */
function match(table: RouteTable, path: string): { endpoints: Endpoint[]; params: string[] } {
  let exact = exactPaths.get(table);
  if (exact === undefined) {
    exact = new Map();
    for (const [pattern] of table) if (!pattern.includes(":id")) exact.set(pattern, matchAll(table, pattern));
    exactPaths.set(table, exact);
  }
  return exact.get(path) ?? matchAll(table, path);
}

/** {@link match} by trying every pattern of the table. */
function matchAll(table: RouteTable, path: string): { endpoints: Endpoint[]; params: string[] } {
  const segments = path.split("/");
  const endpoints: Endpoint[] = [];
  let params: string[] = [];
  for (const [pattern, endpoint] of table) {
    const parts = pattern.split("/");
    if (parts.length !== segments.length) continue;
    const found: string[] = [];
    const fits = parts.every((part, i) => {
      const segment = segments[i] as string;
      if (part !== ":id") return part === segment;
      if (segment === "") return false;
      try {
        found.push(decodeURIComponent(segment));
        return true;
      } catch {
        return false; // a malformed %-escape names nothing
      }
    });
    if (fits) {
      endpoints.push(endpoint);
      params = found;
    }
  }
  return { endpoints, params };
}

/** Answers a request from a table: 404 for a path it lacks, 405 (with `Allow`) for a method it lacks. */
function route(table: RouteTable, incoming: Incoming, ctx: ServerContext, requestId: string): Promise<Outgoing> | Outgoing {
  const path = incoming.path;
  const { endpoints, params } = match(table, path);
  if (endpoints.length === 0) return failure(requestId, { code: "not_found", message: m.notFound(path) });
  const method = incoming.method === "HEAD" ? "GET" : incoming.method;
  const endpoint = endpoints.find((e) => e.method === method);
  if (!endpoint) {
    // A GET answers HEAD too (the same answer without its body).
    const methods = endpoints.flatMap((e) => (e.method === "GET" ? ["GET", "HEAD"] : [e.method]));
    return failure(requestId, {
      code: "method_not_allowed",
      message: m.methodNotAllowed(incoming.method, methods),
      headers: { allow: methods.join(", ") },
    });
  }
  return endpoint.answer(incoming, ctx, requestId, params);
}

/** Answers one request of a server; the caller drops the body of a `HEAD`. @internal */
type Router = (incoming: Incoming, ctx: ServerContext, requestId: string) => Promise<Outgoing>;

/**
 * Makes the router of a server: the service's endpoints, and a mounted part (the admin API) that
 * answers every path at or under its prefix, after its guard.
 *
 * @param mount - The admin API, when an admin token is configured.
 * @returns The router.
 * @internal
 */
export function createRouter(mount?: Mount): Router {
  return async (incoming, ctx, requestId) => {
    const path = incoming.path;
    if (mount && (path === mount.prefix || path.startsWith(`${mount.prefix}/`))) {
      const refused = await mount.guard(incoming, ctx, requestId);
      if (refused) return refused;
      return route(mount.routes, incoming, ctx, requestId);
    }
    return route(SERVICE, incoming, ctx, requestId);
  };
}
