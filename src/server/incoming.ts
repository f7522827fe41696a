/**
 * The {@link Incoming} of a web `Request`: what the fetch handler hands the server on any runtime.
 */
import type { BodyBytes, Incoming } from "./context.js";

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

/**
 * Wraps a `Request` for the server.
 *
 * @internal
 */
export function fromRequest(request: Request): Incoming {
  return {
    method: request.method,
    path: pathOf(request.url),
    header: (name) => request.headers.get(name),
    readBody: (maxBytes) => readBytes(request, maxBytes),
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
