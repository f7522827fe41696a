/**
 * The HTTP exchange of the reference server: what it reads of a request ({@link Incoming}) and what
 * it answers ({@link Outgoing}), reading a JSON body, building JSON answers with a `Request-Id`, and
 * the route table with its dispatch in the order S12 fixes: route (404, 405), key (401), then the
 * endpoint (media type 415, size 413, JSON 400, and the endpoint's own checks). Paths under
 * `/admin/` go to the admin API when it is on.
 */

import { SHIPPED_CATALOGS } from "../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { BOUNDS } from "../request/bounds.js";
import type { Issue } from "../types.js";
import { ping, queryCredits } from "./account.js";
import { authenticate, type Caller } from "./auth.js";
import type { ServerContext } from "./createReferenceServer.js";
import { boundIssues, cut, type ErrorBody, type Failure, serverMessages as m, SERVER_ERRORS } from "./errors.js";
import { createGeneration } from "./generations.js";
import { quotePrice } from "./quotes.js";

/**
 * What the server reads of a request. Runtime-neutral and small, so that a binding can hand a
 * request over without building a web `Request` (see `<package>/node`); {@link fromRequest} makes
 * one from a `Request`. @internal
 */
export type Incoming = {
  readonly method: string;
  /** The path, without query string or fragment. */
  readonly path: string;
  /** A header by its lower-case name, repeated values joined by `", "`; `null` when absent. */
  header(name: string): string | null;
  /** Every byte of the body, or why there are none; never reads more than `maxBytes` and one chunk. */
  readBody(maxBytes: number): Promise<BodyBytes>;
  /** The client's IP address as the runtime reports it, when it does (see {@link ClientInfo}). */
  readonly clientAddress?: string | undefined;
};

/**
 * What a runtime may tell the fetch handler about a request besides the request itself: the
 * client's address, as `{ clientAddress }`, as Deno's `serve` handler info (`remoteAddr.hostname`)
 * or as Bun's server (`requestIP(request).address`). The admin API counts wrong tokens per client
 * address (see `createReferenceServer`).
 */
export type ClientInfo = {
  /** The client's IP address, such as `"203.0.113.7"` or `"2001:db8::1"`. */
  readonly clientAddress?: string;
  /** Deno's `ServeHandlerInfo.remoteAddr`: its `hostname` is the client's address. */
  readonly remoteAddr?: { readonly hostname?: string };
  /** Bun's `Server.requestIP`: the address of a request's client. */
  readonly requestIP?: (request: Request) => { readonly address?: string } | null | undefined;
};

/**
 * The address a client is counted under: an IPv4 address as is (an IPv4-mapped IPv6 one as its
 * IPv4 address), an IPv6 address by its /64 prefix, since one host usually holds a whole /64.
 * A request without an address is counted under `"unknown"`, all such requests together.
 *
 * @param address - The address the runtime reports, if any.
 * @returns The key to count it under.
 * @internal
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  const plain = address.replace(/%.*$/, "").toLowerCase(); // an IPv6 zone says nothing about the client
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return mapped[1] as string;
  if (!plain.includes(":")) return plain;
  const [head = "", tail] = plain.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** What the body reader answers: every byte of the body, or why there are none. @internal */
export type BodyBytes = Uint8Array | "too_large" | "unreadable";

/** What the server answers: a status, headers (lower-case names) and a JSON text. @internal */
export type Outgoing = { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

/**
 * Where a reference server keeps its handler of {@link Incoming} requests, for runtime bindings
 * that can skip building web `Request` and `Response` objects (`<package>/node`). @internal
 */
export const RESPOND: unique symbol = Symbol.for("imagegen-pricing.respond");

/** One endpoint's handler, given an authenticated caller. @internal */
export type Handler = (incoming: Incoming, ctx: ServerContext, caller: Caller, requestId: string) => Promise<Outgoing>;

// The web Request and Response of an exchange

/**
 * The path of a request URL, without parsing the whole URL (a `Request`'s URL is always absolute).
 *
 * @param url - An absolute URL.
 * @returns Its path, without query string or fragment.
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

/**
 * Wraps a `Request` for the server.
 *
 * @param request - A web request.
 * @param info - What the runtime says of the client, if anything.
 * @returns What the server reads of it.
 * @internal
 */
export function fromRequest(request: Request, info?: ClientInfo): Incoming {
  let address: unknown = info?.clientAddress ?? info?.remoteAddr?.hostname;
  if (address === undefined && typeof info?.requestIP === "function") {
    try {
      address = info.requestIP(request)?.address;
    } catch {
      address = undefined; // not Bun's after all: the request is counted without an address
    }
  }
  return {
    method: request.method,
    path: pathOf(request.url),
    header: (name) => request.headers.get(name),
    readBody: (maxBytes) => readBytes(request, maxBytes),
    clientAddress: typeof address === "string" ? address : undefined,
  };
}

/** Reads the body stream, stopping (and cancelling it) as soon as it passes the limit. */
async function readBytes(request: Request, maxBytes: number): Promise<BodyBytes> {
  const stream = request.body;
  if (stream === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) return "unreadable"; // a hand-made stream of something else
      total += value.byteLength;
      if (total > maxBytes) {
        reader.cancel().catch(() => {});
        return "too_large";
      }
      chunks.push(value);
    }
  } catch {
    return "unreadable";
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/**
 * The web `Response` of an answer.
 *
 * @param out - The answer.
 * @returns A `Response` with the same status, headers and body.
 * @internal
 */
export function toResponse(out: Outgoing): Response {
  return new Response(out.body, { status: out.status, headers: out.headers });
}

// Reading a JSON body: media type (415), then size (413), then JSON (400)

/**
 * The most bytes one code point takes in a JSON string: an astral one escaped as a surrogate pair
 * (`\uD83E\uDD8A`); a BMP one takes at most one `\uXXXX`, 6.
 */
const MAX_JSON_BYTES_PER_CODE_POINT = 12;
/** The most bytes one ASCII character takes in a JSON string: escaped as `\u00XX`. */
const MAX_JSON_BYTES_PER_ASCII = 6;
/** The longest asset id a request can name: what fixtures accept (1 to 128 code points). */
const MAX_ASSET_ID_CHARS = 128;
/** The length of the asset ids the server makes (`ast_` and 16 hex digits). */
const SERVER_ASSET_ID_CHARS = "ast_".length + 16;
/** A number as a client may write a valid `imageCount` (`4`, `4.0`, `4e0`), generously. */
const MAX_NUMBER_CHARS = 24;
/** Room for JSON whitespace between tokens and a catalog's longer model ids, and rounding. */
const BODY_MARGIN_BYTES = 16 * 1024;

/**
 * The largest body a valid generation request can need, in bytes, from the request rules: every
 * field at its longest with every character escaped in its longest form (12 bytes for an astral
 * code point, 6 for an ASCII one), `inputAssetIds` with its 14 distinct references at the longest
 * asset id and the rest of the 1,000 entries read repeating ids the server makes. Whitespace
 * around a value or between tokens is never needed (strings are trimmed, N3), nor are repeats of
 * longer ids (the list is de-duplicated, N12): the margin leaves room for some of both.
 *
 * @returns The byte count, before the margin.
 * @internal
 */
export function largestValidRequestBytes(): number {
  const field = (name: string, valueBytes: number) => JSON.stringify(name).length + 1 + valueBytes;
  const anyString = (chars: number) => 2 + chars * MAX_JSON_BYTES_PER_CODE_POINT;
  const option = (values: readonly string[]) => 2 + Math.max(...values.map((v) => v.length)) * MAX_JSON_BYTES_PER_ASCII;
  const entries = BOUNDS.maxReferenceEntries;
  const references =
    2 + // the brackets
    (entries - 1) + // the commas
    LIMITS.maxReferences * anyString(MAX_ASSET_ID_CHARS) +
    (entries - LIMITS.maxReferences) * (2 + SERVER_ASSET_ID_CHARS * MAX_JSON_BYTES_PER_ASCII);
  const fields = [
    field("prompt", anyString(LIMITS.promptMaxChars)),
    field("modelId", option(SHIPPED_CATALOGS.flatMap((c) => Object.keys(c.models)))),
    field("generationType", option(GENERATION_TYPES)),
    field("aspectRatio", option(ASPECT_RATIOS)),
    field("resolution", option(RESOLUTIONS)),
    field("quality", option(QUALITIES)),
    field("background", option(BACKGROUNDS)),
    field("imageCount", MAX_NUMBER_CHARS),
    field("inputAssetIds", references),
    field("idempotencyKey", anyString(LIMITS.idempotencyKeyMaxChars)),
  ];
  return 2 + (fields.length - 1) + fields.reduce((sum, bytes) => sum + bytes, 0);
}

/**
 * The default body limit: what the largest valid request can need (`largestValidRequestBytes`)
 * and a margin, rounded up to a multiple of 16 KiB: under a third of a mebibyte. The time a server
 * spends reading and parsing one body grows with its size, and no valid request needs more.
 */
export const DEFAULT_MAX_BODY_BYTES = Math.ceil((largestValidRequestBytes() + BODY_MARGIN_BYTES) / 16_384) * 16_384;

/** A parsed body or why there is none. @internal */
export type BodyResult = { ok: true; value: unknown } | { ok: false; failure: Failure };

const fail = (failure: Failure): BodyResult => ({ ok: false, failure });

/**
 * Whether a `Content-Type` names JSON: `application/json`, any case, with parameters allowed; a
 * `charset` parameter, if given, must be UTF-8 (the only encoding the body is read in).
 *
 * @param header - The header's value, or `null`.
 * @returns `true` for JSON in UTF-8.
 * @internal
 */
export function isJsonMediaType(header: string | null): boolean {
  if (header === null) return false;
  const [type = "", ...params] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") return false;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1")
      .toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") return false;
  }
  return true;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * What a request body may hold before it is parsed (S15). No valid request comes near either bound
 * (ten fields, at most 1,000 reference entries read, nesting of two levels), but `JSON.parse` of a
 * 1 MiB body of hundreds of thousands of values, or nested hundreds of thousands deep, blocks the
 * process for tens to hundreds of milliseconds; one linear scan of the text refuses those first.
 */
export const JSON_BOUNDS = { depth: 32, values: 10_000 } as const;

/**
 * Scans a JSON text once, outside its strings, for nesting deeper than {@link JSON_BOUNDS}.depth or
 * more than {@link JSON_BOUNDS}.values values (counted by their separators). Malformed text is left
 * for `JSON.parse` to refuse.
 *
 * @param text - The body.
 * @returns Which bound the text passes, or `undefined`.
 * @internal
 */
export function jsonShapeProblem(text: string): keyof typeof JSON_BOUNDS | undefined {
  let depth = 0;
  let separators = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > JSON_BOUNDS.depth) return "depth";
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && ++separators >= JSON_BOUNDS.values) return "values";
  }
  return undefined;
}

/**
 * Reads and parses a JSON request body, never more than `maxBytes` of it: the declared
 * `Content-Length` is checked first, then the bytes actually read, before any parsing.
 *
 * @param incoming - The request.
 * @param maxBytes - The largest body accepted.
 * @returns The parsed value, or the failure to answer with.
 * @internal
 */
export async function readJsonBody(incoming: Incoming, maxBytes: number): Promise<BodyResult> {
  if (!isJsonMediaType(incoming.header("content-type"))) {
    return fail({ code: "unsupported_media_type", message: m.unsupportedMediaType() });
  }
  const tooLarge = (): BodyResult => fail({ code: "payload_too_large", message: m.payloadTooLarge(maxBytes) });
  const declared = incoming.header("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) return tooLarge();

  const bytes = await incoming.readBody(maxBytes);
  if (bytes === "too_large") return tooLarge();
  if (bytes === "unreadable") return fail({ code: "invalid_json", message: m.unreadableBody() });

  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return fail({ code: "invalid_json", message: m.invalidUtf8() });
  }
  if (text.trim() === "") return fail({ code: "invalid_json", message: m.emptyBody() });
  const shape = jsonShapeProblem(text);
  if (shape) {
    // Valid JSON or not, no request of the service holds that much: one request-rules issue.
    const issue = { path: "", code: "too_complex", message: m.jsonTooComplex(shape, JSON_BOUNDS[shape]) };
    return fail({ code: "invalid_request", message: m.invalidRequest([issue]), param: "", issues: [issue] });
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return fail({ code: "invalid_json", message: m.invalidJson() });
  }
}

// JSON answers: every one is JSON and carries a Request-Id header

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A JSON answer from text that is already serialized (a 202 and its replays, byte for byte).
 *
 * @param status - The HTTP status.
 * @param text - The JSON text.
 * @param requestId - This request's id.
 * @param extra - More headers.
 * @returns The answer.
 * @internal
 */
export function jsonText(status: number, text: string, requestId: string, extra?: Record<string, string>): Outgoing {
  const headers: Record<string, string> = { "content-type": JSON_TYPE, "cache-control": "no-store", "request-id": requestId };
  if (extra) Object.assign(headers, extra);
  return { status, headers, body: text };
}

/**
 * A JSON answer. A client's text in it (an error's message, `param` and issues) was made safe where
 * it was quoted (`safeEcho`), so the body is sent as serialized.
 *
 * @param status - The HTTP status.
 * @param body - A JSON value.
 * @param requestId - This request's id.
 * @param extra - More headers.
 * @returns The answer.
 * @internal
 */
export function json(status: number, body: unknown, requestId: string, extra?: Record<string, string>): Outgoing {
  return jsonText(status, JSON.stringify(body), requestId, extra);
}

/**
 * The answer to a rejected request: `{ error: { message, code, param?, issues?, requestId } }`, never
 * larger than `MAX_ERROR_BODY_BYTES` (S15): `param` and every issue are cut short, and at most 50
 * issues are listed.
 *
 * @param requestId - This request's id.
 * @param f - What was wrong.
 * @returns The answer, with the status of the code.
 * @internal
 */
export function failure(requestId: string, f: Failure): Outgoing {
  // Built field by field so that the JSON keeps this order: message, code, param, issues, requestId.
  const error = { message: f.message, code: f.code } as ErrorBody["error"];
  if (f.param !== undefined) error.param = cut(f.param, 100);
  if (f.issues !== undefined) error.issues = boundIssues(f.issues);
  error.requestId = requestId;
  return json(SERVER_ERRORS[f.code], { error }, requestId, f.headers);
}

/**
 * The 400 of a request that breaks request rules: every issue, `param` naming the first (S12).
 *
 * @param requestId - This request's id.
 * @param issues - What is wrong, at least one.
 * @returns The answer.
 * @internal
 */
export function invalidRequest(requestId: string, issues: Issue[]): Outgoing {
  return failure(requestId, {
    code: "invalid_request",
    message: m.invalidRequest(issues),
    param: issues[0]?.path ?? "",
    issues,
  });
}

// Routes and dispatch

/** A route: its one method, and whether it is public (no key) or needs an API key. @internal */
export type Route = { method: "GET" | "POST"; handler: Handler } | { method: "GET"; handler: "openapi" };

/** Every route, by exact path (no trailing slash; the query string is ignored). @internal */
export const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  ["/api/generations", { method: "POST", handler: createGeneration }],
  ["/api/pricing/quote", { method: "POST", handler: quotePrice }],
  ["/api/ping", { method: "GET", handler: ping }],
  ["/api/query/credits", { method: "GET", handler: queryCredits }],
  ["/openapi.json", { method: "GET", handler: "openapi" }],
]);

/** The methods a route answers: a GET route answers HEAD too (the same answer without its body). */
const allowed = (route: Route): string[] => (route.method === "GET" ? ["GET", "HEAD"] : [route.method]);

/**
 * Answers one request in the order S12 fixes: route (404, 405), then key (401), then the
 * endpoint's handler. A `HEAD` is answered as its `GET`; the caller drops the body.
 *
 * @param incoming - The request.
 * @param ctx - The server.
 * @param requestId - This request's id (for the header and error bodies).
 * @returns The answer.
 * @internal
 */
export async function dispatch(incoming: Incoming, ctx: ServerContext, requestId: string): Promise<Outgoing> {
  const path = incoming.path;
  // The admin API answers its own paths, and exists only when an admin token is configured.
  if (ctx.adminHttp && (path === "/admin" || path.startsWith("/admin/"))) return ctx.adminHttp(incoming, ctx, requestId);
  const route = ROUTES.get(path);
  if (!route) return failure(requestId, { code: "not_found", message: m.notFound(path) });
  const method = incoming.method === "HEAD" ? "GET" : incoming.method;
  if (method !== route.method) {
    const methods = allowed(route);
    return failure(requestId, {
      code: "method_not_allowed",
      message: m.methodNotAllowed(incoming.method, methods),
      headers: { allow: methods.join(", ") },
    });
  }
  if (route.handler === "openapi") return jsonText(200, ctx.openApiText(), requestId);
  const auth = await authenticate(incoming.header("authorization"), ctx);
  if (!auth.ok) return failure(requestId, auth.failure);
  return route.handler(incoming, ctx, auth.caller, requestId);
}
