/**
 * The route table: which handler answers which path and method, and which routes need a key.
 */
import type { Handler } from "./context.js";
import { createGeneration } from "./handlers/createGeneration.js";
import { ping } from "./handlers/ping.js";
import { queryCredits } from "./handlers/queryCredits.js";
import { quotePrice } from "./handlers/quotePrice.js";

/** A route: its one method, and whether it is public (no key) or needs an API key. @internal */
export type Route =
  | { method: "GET" | "POST"; auth: "api_key"; handler: Handler }
  | { method: "GET"; auth: "none"; handler: "openapi" };

/** Every route, by exact path (no trailing slash; the query string is ignored). @internal */
export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  ["/api/generations", { method: "POST", auth: "api_key", handler: createGeneration }],
  ["/api/pricing/quote", { method: "POST", auth: "api_key", handler: quotePrice }],
  ["/api/ping", { method: "GET", auth: "api_key", handler: ping }],
  ["/api/query/credits", { method: "GET", auth: "api_key", handler: queryCredits }],
  ["/openapi.json", { method: "GET", auth: "none", handler: "openapi" }],
]);

/**
 * The path of a request URL, without parsing the whole URL (a `Request`'s URL is always absolute).
 *
 * @internal
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query >= 0) end = query;
  const hash = url.indexOf("#", start);
  if (hash >= 0 && hash < end) end = hash;
  return url.slice(start, end);
}
