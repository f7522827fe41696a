/**
 * Any web-standard fetch handler on node:http: a `Request` made from the `IncomingMessage` (its
 * body streamed, its signal aborted when the client goes away) and the `Response` written back
 * with backpressure.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type Guard, writeError } from "./bounds.js";

/** A web-standard fetch handler. @internal */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/**
 * A listener that answers every request with a fetch handler.
 *
 * @param handler - The fetch handler.
 * @param guard - The connection bounds: tracking, draining.
 * @param authority - `host:port` for requests that carry no usable `Host` header.
 * @returns The node:http request listener.
 * @internal
 */
export function fetchListener(handler: FetchHandler, guard: Guard, authority: () => string): RequestListener {
  return (req, res) => {
    if (guard.answered(req)) return; // a connection past the cap, already answered 503
    if (guard.refused(req, res)) return;
    void guard.track(req, res, () => answer(req, res, handler, guard, authority));
  };
}

async function answer(req: IncomingMessage, res: ServerResponse, handler: FetchHandler, guard: Guard, authority: () => string) {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error("The client closed the connection."));
  };
  res.once("close", onClose);
  try {
    let request: Request;
    try {
      request = toRequest(req, controller.signal, authority, () => guard.continueBody(req, res));
    } catch {
      // A target or header that node:http accepts but a web Request does not.
      return writeError(res, "bad_request", "The request target or a header is not valid.");
    }
    let response: Response;
    try {
      response = await handler(request);
      if (!(response instanceof Response)) throw new TypeError("The fetch handler did not return a Response.");
    } catch {
      return writeError(res, "internal_error", "Something went wrong on our side.");
    }
    try {
      await write(req, res, response, guard);
    } catch {
      // A header node:http refuses although a web Response accepted it (a control character).
      if (res.headersSent) res.destroy();
      else writeError(res, "internal_error", "Something went wrong on our side.");
    }
  } finally {
    res.off("close", onClose);
  }
}

/** The web `Request` of a node:http request. */
function toRequest(req: IncomingMessage, signal: AbortSignal, authority: () => string, onRead: () => void): Request {
  const host = req.headers.host;
  const url = new URL(req.url ?? "/", `http://${host && !/[/?#@\\\s]/.test(host) ? host : authority()}`);
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") {
    init.body = bodyStream(req, onRead);
    init.duplex = "half";
  }
  return new Request(url, init);
}

/**
 * The body of a node:http request as a web stream, read only as fast as the handler reads it;
 * `onRead` runs when the handler first asks for it (and sends a pending `100 Continue`).
 */
function bodyStream(req: IncomingMessage, onRead: () => void): ReadableStream<Uint8Array> {
  let done = false;
  // Nothing is pulled before the handler reads: a client waiting for 100 Continue is not asked early.
  const waitsForContinue = /100-continue/i.test(req.headers.expect ?? "");
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (req.readableEnded) {
          done = true;
          return controller.close();
        }
        if (req.destroyed) {
          done = true;
          return controller.error(new Error("The client closed the connection."));
        }
        req.pause();
        req.on("data", (chunk: Buffer) => {
          if (done) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        });
        req.once("end", () => {
          if (done) return;
          done = true;
          controller.close();
        });
        req.once("close", () => {
          if (done) return;
          done = true;
          controller.error(new Error("The client closed the connection."));
        });
      },
      pull() {
        onRead();
        req.resume();
      },
      cancel() {
        // The handler read enough (a body over its limit): leave the rest to the drain after the answer.
        done = true;
        req.pause();
      },
    },
    waitsForContinue ? { highWaterMark: 0 } : undefined,
  );
}

/** Writes a `Response`, streaming its body with backpressure; a client that goes away cancels it. */
async function write(req: IncomingMessage, res: ServerResponse, response: Response, guard: Guard): Promise<void> {
  if (guard.answered(req) || res.destroyed) {
    await response.body?.cancel().catch(() => {});
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  const early = !req.complete;
  const drain = early && guard.canDrain(req);
  if (early && !drain) headers.connection = "close";

  const body = req.method === "HEAD" ? null : response.body;
  if (body === null) {
    if (req.method !== "HEAD") response.body?.cancel().catch(() => {});
    res.writeHead(response.status, response.statusText || undefined, headers);
    res.end();
  } else {
    res.writeHead(response.status, response.statusText || undefined, headers);
    const reader = body.getReader();
    const stop = () => void reader.cancel().catch(() => {});
    res.once("close", stop);
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (!res.write(value)) await drained(res);
        if (res.destroyed) break;
      }
      res.end();
    } catch {
      res.destroy(); // the body failed after the status was sent: a cut answer, never a wrong one
    } finally {
      res.off("close", stop);
    }
  }
  if (drain) guard.drain(req);
}

/** Resolves when the response can take more, or is closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}
