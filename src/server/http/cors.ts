/**
 * CORS for a browser client on another origin: preflights answered, and every answer to an allowed
 * origin readable by the page. Off unless the server is given origins.
 */
import { newId } from "../ids.js";
import type { Incoming } from "./incoming.js";
import type { Outgoing } from "./respond.js";

/** The origins a server lets a page call it from: `"*"` (any) or a list of `scheme://host[:port]` origins. */
export type CorsOrigins = "*" | readonly string[];

/** The request headers a page may send: the key, the media type and the idempotency key. */
const ALLOW_HEADERS = "Authorization, Content-Type, Idempotency-Key";
/** The methods of the service and of the admin API. */
const ALLOW_METHODS = "GET, HEAD, POST, PUT, DELETE";
/** The answer headers a page may read besides the safelisted ones: every one the server sets. */
const EXPOSE_HEADERS = "Request-Id, Retry-After, Idempotent-Replayed, WWW-Authenticate, Allow";
/** How long a browser may keep a preflight's answer, in seconds. */
const MAX_AGE_SECONDS = 600;

/**
 * Checks and normalizes the `cors` option: `"*"`, or one or more origins such as
 * `http://127.0.0.1:5173` (scheme, host and port only, no path).
 *
 * @param origins - The option as given.
 * @returns `"*"`, or the origins as a browser sends them (lower-case, default port left out).
 * @throws RangeError naming the first value that is not an origin.
 * @internal
 */
export function checkCorsOrigins(origins: CorsOrigins): "*" | ReadonlySet<string> {
  if (origins === "*") return "*";
  if (!Array.isArray(origins) || origins.length === 0) {
    throw new RangeError('cors must be "*" or a non-empty list of origins such as "http://127.0.0.1:5173".');
  }
  const set = new Set<string>();
  for (const origin of origins) {
    let url: URL | undefined;
    try {
      url = typeof origin === "string" ? new URL(origin) : undefined;
    } catch {
      url = undefined;
    }
    const bare = url && url.pathname === "/" && url.search === "" && url.hash === "" && !url.username && !url.password;
    if (!url || !bare || !/^https?:$/.test(url.protocol) || !/^[a-z]+:\/\/[^/]+\/?$/i.test(origin)) {
      throw new RangeError(
        `cors: ${JSON.stringify(String(origin)).slice(0, 80)} is not an origin; give scheme://host[:port] (such as "http://127.0.0.1:5173", no path), or "*".`,
      );
    }
    set.add(url.origin);
  }
  return set;
}

/**
 * Wraps a server's handler with CORS: a preflight (`OPTIONS` with `Access-Control-Request-Method`)
 * from an allowed origin is answered 204 without reaching the routes; every other answer to an
 * allowed origin gets `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`. A request
 * from another origin, or without one, is answered as without CORS (a preflight then gets 405).
 *
 * @param respond - The server's handler.
 * @param origins - What {@link checkCorsOrigins} returned.
 * @returns The handler with CORS.
 * @internal
 */
export function withCors(
  respond: (incoming: Incoming) => Promise<Outgoing>,
  origins: "*" | ReadonlySet<string>,
): (incoming: Incoming) => Promise<Outgoing> {
  const allowed = (origin: string | null): origin is string => origin !== null && (origins === "*" || origins.has(origin));
  // With a list, the answer depends on the Origin header: a cache must keep one answer per origin.
  const vary = origins === "*" ? undefined : "Origin";
  return async (incoming) => {
    const origin = incoming.header("origin");
    const ok = allowed(origin);
    if (ok && incoming.method === "OPTIONS" && incoming.header("access-control-request-method") !== null) {
      const headers: Record<string, string> = {
        "request-id": newId.request(),
        "access-control-allow-origin": origins === "*" ? "*" : origin,
        "access-control-allow-methods": ALLOW_METHODS,
        "access-control-allow-headers": ALLOW_HEADERS,
        "access-control-max-age": String(MAX_AGE_SECONDS),
        "cache-control": "no-store",
      };
      if (vary) headers.vary = vary;
      return { status: 204, headers, body: "" };
    }
    const out = await respond(incoming);
    if (!ok && !vary) return out;
    const headers = { ...out.headers };
    if (vary) headers.vary = headers.vary ? `${headers.vary}, ${vary}` : vary;
    if (ok) {
      headers["access-control-allow-origin"] = origins === "*" ? "*" : origin;
      headers["access-control-expose-headers"] = EXPOSE_HEADERS;
    }
    return { ...out, headers };
  };
}
