/**
 * Any web-standard fetch handler as a handler of the listener: a `Request` made from the node:http
 * request (its body read by the listener's one reader, its signal aborted when the client goes
 * away) and the `Response` handed back for the listener to write.
 */
import { errorAnswer } from "./bounds.js";
import type { Answer, Handler, NodeIncoming } from "./listener.js";

/**
 * A handler that answers with a fetch handler. The body is read whole, through the same bounded
 * reader as the reference server's, when the handler first reads it (and a pending `100 Continue`
 * is sent then); a body left unread is drained by the listener like any other.
 *
 * @param fetch - The fetch handler; a rejection (or a throw) closes the connection unanswered.
 * @param authority - `host:port` for requests that carry no usable `Host` header.
 * @returns The handler.
 * @internal
 */
export function webHandler(fetch: (request: Request) => Response | Promise<Response>, authority: () => string): Handler {
  return async (incoming) => {
    const res = incoming.res;
    const controller = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) controller.abort(new Error("The client closed the connection."));
    };
    // Kept until the response closes: a client that goes away while the body streams aborts it too.
    res.once("close", onClose);
    let request: Request;
    try {
      request = toRequest(incoming, controller.signal, authority);
    } catch {
      // A target or header that node:http accepts but a web Request does not.
      return errorAnswer("bad_request", "The request target or a header is not valid.");
    }
    const response = await fetch(request);
    if (!(response instanceof Response)) return errorAnswer("internal_error", "Something went wrong on our side.");
    return toAnswer(response);
  };
}

/** The web `Request` of a node:http request. */
function toRequest(incoming: NodeIncoming, signal: AbortSignal, authority: () => string): Request {
  const req = incoming.req;
  const host = req.headers.host;
  const url = new URL(req.url ?? "/", `http://${host && !/[/?#@\\\s]/.test(host) ? host : authority()}`);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const method = incoming.method;
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") {
    init.body = bodyStream(incoming);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * The body of a request as a web stream that reads it, when first pulled, with the listener's
 * reader: nothing is read (and no `100 Continue` sent) before the handler asks.
 */
function bodyStream(incoming: NodeIncoming): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const bytes = await incoming.readBody(Number.MAX_SAFE_INTEGER);
        if (typeof bytes === "string") return controller.error(new Error("The client closed the connection."));
        if (bytes.byteLength > 0) controller.enqueue(bytes);
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The answer of a `Response`: its status, text, headers (every `Set-Cookie` kept apart) and body stream. */
function toAnswer(response: Response): Answer {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  return { status: response.status, statusText: response.statusText, headers, body: response.body };
}
