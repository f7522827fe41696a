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
