/**
 * What the server reads of a request ({@link Incoming}), made from a web `Request` or handed over
 * by a runtime binding, and the client address it is counted under.
 */

/**
 * What the server reads of a request. Runtime-neutral and small, so that a binding can hand a
 * request over without building a web `Request` (see `<package>/node`); {@link fromRequest} makes
 * one from a `Request`. @internal
 */
export type Incoming = {
  readonly method: string;
  /** The path, without query string or fragment. */
  readonly path: string;
  /** The query string without its `?` (and without a fragment), when the binding gives it: admin routes read `limit` from it. */
  readonly query?: string;
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
 * The query string of a request target or URL, without its `?` or a fragment.
 *
 * @param url - A URL or a request target.
 * @returns The query string, `""` when there is none.
 * @internal
 */
export function queryOf(url: string): string {
  const start = url.indexOf("?");
  if (start < 0) return "";
  const hash = url.indexOf("#", start);
  return url.slice(start + 1, hash < 0 ? url.length : hash);
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
    query: queryOf(request.url),
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
