/**
 * Reading a JSON body in the order S12 asks: media type (415), then size (413: the declared
 * `Content-Length` first, then the bytes actually read, before any parsing), then JSON (400).
 */
import type { Incoming } from "./context.js";
import type { Failure } from "./responses.js";
import { serverMessages as m } from "./messages.js";

/** The default body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

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
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return fail({ code: "invalid_json", message: m.invalidJson() });
  }
}
