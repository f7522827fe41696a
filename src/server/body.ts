/**
 * Reading a JSON body in the order S12 asks: media type (415), then size (413: the declared
 * `Content-Length` first, then the bytes actually read, before any parsing), then JSON (400).
 */
import type { Failure } from "./responses.js";
import { serverMessages as m } from "./messages.js";

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * Where a runtime binding may put a faster reader of the request's body on the `Request` it hands
 * the fetch handler: a function of the byte limit with the same answers as reading `request.body`.
 * `<package>/node` sets it so that a body is read straight from node:http, without building a web
 * stream for it; any other `Request` is read through `request.body`.
 *
 * @internal
 */
export const BODY_READER: unique symbol = Symbol.for("imagegen-pricing.bodyReader");

/** What a {@link BODY_READER} answers: every byte of the body, or why there are none. @internal */
export type BodyBytes = Uint8Array | "too_large" | "unreadable";

/** A parsed body or why there is none. @internal */
export type BodyResult = { ok: true; value: unknown } | { ok: false; failure: Failure };

const fail = (failure: Failure): BodyResult => ({ ok: false, failure });

/**
 * Whether a `Content-Type` names JSON: `application/json`, any case, with parameters allowed; a
 * `charset` parameter, if given, must be UTF-8 (the only encoding the body is read in).
 *
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
 * Reads and parses a JSON request body, never more than `maxBytes` of it.
 *
 * @param request - The request.
 * @param maxBytes - The largest body accepted.
 * @returns The parsed value, or the failure to answer with.
 * @internal
 */
export async function readJsonBody(request: Request, maxBytes: number): Promise<BodyResult> {
  if (!isJsonMediaType(request.headers.get("content-type"))) {
    return fail({ code: "unsupported_media_type", message: m.unsupportedMediaType() });
  }
  const tooLarge = (): BodyResult => fail({ code: "payload_too_large", message: m.payloadTooLarge(maxBytes) });
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) return tooLarge();

  const reader = (request as { [BODY_READER]?: unknown })[BODY_READER];
  const bytes =
    typeof reader === "function"
      ? await (reader as (max: number) => Promise<BodyBytes>)(maxBytes)
      : await readBytes(request, maxBytes);
  if (bytes === "too_large") return tooLarge();
  if (bytes === "unreadable") return fail({ code: "invalid_json", message: m.unreadableBody() });

  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return fail({ code: "invalid_json", message: m.invalidUtf8() });
  }
  if (text.trim() === "") return fail({ code: "invalid_json", message: m.emptyBody() });
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return fail({ code: "invalid_json", message: m.invalidJson() });
  }
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
