/**
 * The JSON body of a request: its default limit (what the largest valid request can need), its
 * bounds before it is parsed (S15), and the middleware that reads it in the order S12 fixes.
 */
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { SHIPPED_CATALOGS } from "../models/catalog.js";
import {
  ASPECT_RATIOS,
  BACKGROUNDS,
  GENERATION_TYPES,
  LIMITS,
  QUALITIES,
  RESOLUTIONS,
} from "../models/lists.js";
import { BOUNDS } from "../request/bounds.js";
import type { Env } from "./context.js";
import { fail, invalidRequest } from "./errors.js";
import { serverMessages as m } from "./messages.js";

/**
 * The most bytes one code point takes in a JSON string: an astral one escaped as a surrogate pair
 * (`\uD83E\uDD8A`).
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

/**
 * The largest body a valid generation request can need, in bytes: every field at its longest with
 * every character escaped in its longest form, `inputAssetIds` with its 14 distinct references at
 * the longest asset id and the rest of the 1,000 entries read repeating ids the server makes.
 * Whitespace is never needed (strings are trimmed, N3), nor are repeats of longer ids (the list is
 * de-duplicated, N12): the margin of {@link DEFAULT_MAX_BODY_BYTES} leaves room for some of both.
 * @internal
 */
export function largestValidRequestBytes(): number {
  const field = (name: string, valueBytes: number) => JSON.stringify(name).length + 1 + valueBytes;
  const anyString = (chars: number) => 2 + chars * MAX_JSON_BYTES_PER_CODE_POINT;
  const option = (values: readonly string[]) =>
    2 + Math.max(...values.map((v) => v.length)) * MAX_JSON_BYTES_PER_ASCII;
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
 * The default body limit: what the largest valid request can need and a margin of 16 KiB (JSON
 * whitespace, a catalog's longer model ids), rounded up to a multiple of 16 KiB: under a third of
 * a mebibyte. The time a server spends reading and parsing one body grows with its size. @internal
 */
export const DEFAULT_MAX_BODY_BYTES =
  Math.ceil((largestValidRequestBytes() + 16_384) / 16_384) * 16_384;

/**
 * Whether a `Content-Type` names JSON: `application/json`, any case, with parameters allowed; a
 * `charset` parameter, if given, must be UTF-8 (the only encoding the body is read in).
 */
function isJsonMediaType(header: string | undefined): boolean {
  if (header === undefined) {
    return false;
  }
  if (header === "application/json") {
    return true; // what nearly every client sends
  }
  const [type = "", ...params] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") {
    return false;
  }
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== "charset") {
      continue;
    }
    const value = param.slice(eq + 1).trim();
    const charset = value.replace(/^"(.*)"$/, "$1").toLowerCase();
    if (charset !== "utf-8" && charset !== "utf8") {
      return false;
    }
  }
  return true;
}

/**
 * What a request body may hold before it is parsed (S15). No valid request comes near either bound,
 * but `JSON.parse` of a 1 MiB body of hundreds of thousands of values, or nested hundreds of
 * thousands deep, blocks the process for tens to hundreds of milliseconds.
 *
 * @internal
 */
export const JSON_BOUNDS = { depth: 32, values: 10_000 } as const;

/**
 * Which of {@link JSON_BOUNDS} a JSON text passes, from one linear scan outside its strings (values
 * counted by their separators); malformed text is left for `JSON.parse` to refuse.
 */
function jsonShapeProblem(text: string): keyof typeof JSON_BOUNDS | undefined {
  let depth = 0;
  let separators = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        i++; // a backslash escapes the next character, a quote included
      } else if (c === 0x22) {
        inString = false;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > JSON_BOUNDS.depth) {
        return "depth";
      }
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c && ++separators >= JSON_BOUNDS.values) {
      return "values";
    }
  }
  return undefined;
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** The parsed body, or the answer that refuses it. */
type JsonRead = { ok: true; value: unknown } | { ok: false; answer: Response };

const refuse = (answer: Response): JsonRead => ({ ok: false, answer });

/**
 * Reads and parses a request's JSON body in the order S12 fixes, media type (415), size (413),
 * JSON (400), never more than `maxBytes` of it. With `emptyIsObject`, no body at all reads as `{}`
 * whatever its media type (an admin route whose body is optional: `curl -X POST` sends none,
 * `fetch` sends `text/plain`). @internal
 */
export async function readJson(
  c: Context<Env>,
  maxBytes: number,
  emptyIsObject = false,
): Promise<JsonRead> {
  const json = isJsonMediaType(c.req.header("content-type"));
  if (!json && !emptyIsObject) {
    return refuse(fail(c, { code: "unsupported_media_type", message: m.unsupportedMediaType() }));
  }
  const bytes = await readBytes(c, maxBytes);
  if (bytes instanceof Response) {
    return refuse(bytes);
  }
  if (bytes.byteLength === 0 && emptyIsObject) {
    return { ok: true, value: {} };
  }
  if (!json) {
    return refuse(fail(c, { code: "unsupported_media_type", message: m.unsupportedMediaType() }));
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return refuse(fail(c, { code: "invalid_json", message: m.invalidUtf8() }));
  }
  // Empty or only whitespace (what `trim` removes), found without a trimmed copy of the body.
  if (!/\S/.test(text)) {
    return refuse(fail(c, { code: "invalid_json", message: m.emptyBody() }));
  }
  const shape = jsonShapeProblem(text);
  if (shape) {
    // Valid JSON or not, no request of the service holds that much: one request-rules issue.
    return refuse(
      invalidRequest(c, [
        { path: "", code: "too_complex", message: m.jsonTooComplex(shape, JSON_BOUNDS[shape]) },
      ]),
    );
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return refuse(fail(c, { code: "invalid_json", message: m.invalidJson() }));
  }
}

/**
 * Every byte of the body, never more than `maxBytes`: a declared `Content-Length` is compared
 * first, and a body of unknown length is read by `hono/body-limit`, which stops at the limit.
 */
function readBytes(c: Context<Env>, maxBytes: number): Response | Promise<ArrayBuffer | Response> {
  const tooLarge = () =>
    fail(c, { code: "payload_too_large", message: m.payloadTooLarge(maxBytes) });
  // The client went away while the body was read.
  const unreadable = () => fail(c, { code: "invalid_json", message: m.unreadableBody() });
  const declared = c.req.header("content-length");
  if (declared === undefined || !/^\d+$/.test(declared)) {
    const read: { bytes?: ArrayBuffer } = {};
    return bodyLimit({ maxSize: maxBytes, onError: tooLarge })(c, async () => {
      read.bytes = await c.req.raw.arrayBuffer();
    }).then((refused) => read.bytes ?? refused ?? tooLarge(), unreadable);
  }
  // bodyLimit reads `request.body` before it looks at a declared length, which on Node makes
  // @hono/node-server build a web stream and start the upload (a `100 Continue`, too early for a
  // 413): a declared length is compared here, and the body read whole, since Node reads no more
  // (and refuses a request that also declares a Transfer-Encoding).
  if (Number(declared) > maxBytes) {
    return tooLarge();
  }
  // A Request made in process may declare less than it holds.
  return c.req.raw
    .arrayBuffer()
    .then((bytes) => (bytes.byteLength > maxBytes ? tooLarge() : bytes), unreadable);
}

/**
 * The step of a route that takes a JSON body: reads it (see {@link readJson}) into `c.var.body`, or
 * answers the refusal.
 *
 * @param maxBytes - The largest body read.
 * @param emptyIsObject - Whether no body at all reads as `{}`.
 * @returns The middleware.
 * @internal
 */
export function jsonBody(maxBytes: number, emptyIsObject = false): MiddlewareHandler<Env> {
  return async (c, next) => {
    const read = await readJson(c, maxBytes, emptyIsObject);
    if (!read.ok) {
      return read.answer;
    }
    c.set("body", read.value);
    await next();
  };
}
