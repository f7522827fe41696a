/**
 * Who a client is, by address: what a runtime tells the fetch handler of it, and the key its wrong
 * admin tokens (and, in `<package>/node`, its connections) are counted under.
 */

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

/** The client's address as the runtime reports it beside the request, if it does. @internal */
export function clientAddress(info: ClientInfo, request: Request): string | undefined {
  let address: unknown = info.clientAddress ?? info.remoteAddr?.hostname;
  if (address === undefined && typeof info.requestIP === "function") {
    try {
      address = info.requestIP(request)?.address;
    } catch {
      address = undefined; // not Bun's after all: the request is counted without an address
    }
  }
  return typeof address === "string" ? address : undefined;
}

/**
 * The address a client is counted under: an IPv4 address as is (an IPv4-mapped IPv6 one as its
 * IPv4 address), an IPv6 address by its /64 prefix, since one host usually holds a whole /64.
 * A request without an address is counted under `"unknown"`, all such requests together. @internal
 */
export function addressKey(address: string | undefined): string {
  if (address === undefined || address === "") {
    return "unknown";
  }
  // An IPv6 zone says nothing about the client.
  const plain = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) {
    return mapped[1] as string;
  }
  if (!plain.includes(":")) {
    return plain;
  }
  const [head = "", tail] = plain.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = [
    ...left,
    ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"),
    ...right,
  ];
  const prefix = groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, ""));
  return `${prefix.join(":")}::/64`;
}
