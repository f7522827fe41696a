/**
 * The one node:http request listener of `serve()`: every request, whatever answers it, is read,
 * tracked, answered and drained here, so that HEAD, `Content-Length`, the drain of an unread body
 * and a handler that fails are handled in one place.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { type BodyBytes, type Incoming, pathOf, queryOf } from "../server/http/incoming.js";
import type { Guard } from "./bounds.js";

/**
 * What a handler answers: a status, headers (lower-case names) and a body, whole or streamed.
 * The listener sets `Content-Length` of a whole body itself (for a HEAD, the GET's) and never
 * writes a body to a HEAD.
 *
 * @internal
 */
export type Answer = {
  readonly status: number;
  readonly statusText?: string | undefined;
  readonly headers: Record<string, string | string[]>;
  readonly body: string | Uint8Array | ReadableStream<Uint8Array> | null;
};

/**
 * A node:http request as the server reads it ({@link Incoming}), with node's request and response
 * for a handler that needs more of them (the web `Request` of any fetch handler). Its body is asked
 * for (`100 Continue`) when first read. A class, so that a request costs one object and no closures.
 *
 * @internal
 */
export class NodeIncoming implements Incoming {
  readonly method: string;
  readonly path: string;
  readonly clientAddress: string | undefined;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly #guard: Guard;

  constructor(req: IncomingMessage, res: ServerResponse, guard: Guard) {
    this.req = req;
    this.res = res;
    this.#guard = guard;
    this.method = req.method ?? "GET";
    this.path = targetPath(req.url ?? "/");
    this.clientAddress = req.socket.remoteAddress;
  }

  /** The query string, read only by the few routes that take one (the journal's `limit`). */
  get query(): string {
    return queryOf(this.req.url ?? "");
  }

  header(name: string): string | null {
    // Every value of a repeated header, joined as a web `Headers` joins them, read from the raw
    // headers: node:http's `headers` objects would be built for each request just for this.
    const raw = this.req.rawHeaders;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i] as string;
      if (key.length !== name.length || (key !== name && key.toLowerCase() !== name)) continue;
      value = value === null ? (raw[i + 1] as string) : `${value}, ${raw[i + 1] as string}`;
    }
    return value;
  }

  readBody(maxBytes: number): Promise<BodyBytes> {
    this.#guard.continueBody(this.req, this.res);
    return readIncoming(this.req, maxBytes);
  }
}

/** What answers a request: an answer, or a rejection, which closes the connection unanswered. @internal */
export type Handler = (incoming: NodeIncoming) => Promise<Answer>;

/**
 * The request listener: the guard's checks, then the handler's answer written with one
 * `writeHead`. A handler that rejects gets no answer at all: the socket is destroyed, which the
 * client sees as a connection closed without an answer, never as a 500 for work that may be done.
 *
 * @param handler - What answers each request.
 * @param guard - The connection bounds: tracking, draining, the listener's own answers.
 * @returns The node:http request listener.
 * @internal
 */
export function listener(handler: Handler, guard: Guard): RequestListener {
  return (req, res) => {
    if (guard.answered(req)) return; // a connection past the cap, already answered 503
    if (guard.refused(req, res)) return;
    const incoming = new NodeIncoming(req, res, guard);
    guard.started(req, res);
    let answered: Promise<Answer>;
    try {
      answered = handler(incoming);
    } catch (error) {
      answered = Promise.reject(error);
    }
    answered.then(
      (answer) => {
        guard.settled();
        try {
          send(incoming, answer, guard);
        } catch {
          res.destroy(); // an answer that cannot be written is cut, never left hanging
        }
      },
      () => {
        guard.settled();
        // Nothing is written: a socket already answered by a timeout keeps its answer.
        if (!guard.answered(req)) res.destroy();
      },
    );
  };
}

/**
 * The path of a request target, as a `Request` made from it would have it: the query and fragment
 * cut off, and dot segments and the like resolved by the URL parser when there may be any.
 */
function targetPath(target: string): string {
  if (target.startsWith("/") && !/[.%\\]/.test(target)) {
    const end = target.search(/[?#]/);
    return end < 0 ? target : target.slice(0, end);
  }
  try {
    return new URL(target, "http://localhost").pathname;
  } catch {
    return pathOf(target);
  }
}

/**
 * Writes an answer. An answer sent before the body was read (a rejected upload, a 401) keeps the
 * connection while the rest of the body is drained within bounds, so the client reads the answer
 * instead of a reset; nothing is written to a socket already answered by a timeout.
 */
function send(incoming: NodeIncoming, answer: Answer, guard: Guard): void {
  const { req, res } = incoming;
  const body = answer.body;
  if (guard.answered(req) || res.destroyed || res.headersSent) {
    cancel(body);
    return;
  }
  const headers = answer.headers;
  // For a HEAD this is the GET's length: the body is the GET's, and Node does not write it.
  if (typeof body === "string") headers["content-length"] = String(Buffer.byteLength(body));
  else if (body instanceof Uint8Array) headers["content-length"] = String(body.byteLength);
  const early = !req.complete;
  const drain = early && guard.canDrain(req);
  if (early && !drain) headers.connection = "close";
  try {
    res.writeHead(answer.status, answer.statusText || undefined, headers);
  } catch {
    // A header node:http refuses (a control character): the service's 500, never a wrong answer.
    cancel(body);
    guard.fail(req, res);
    return;
  }
  if (body === null || typeof body === "string" || body instanceof Uint8Array || req.method === "HEAD") {
    if (req.method === "HEAD") cancel(body);
    res.end(req.method === "HEAD" || body === null ? undefined : body);
    if (drain) guard.drain(req);
  } else {
    void stream(res, body).then(() => {
      if (drain) guard.drain(req);
    });
  }
}

/** Drops a streamed body that will not be written. */
function cancel(body: Answer["body"]): void {
  if (body instanceof ReadableStream) body.cancel().catch(() => {});
}

/** Writes a streamed body with backpressure; a client that goes away cancels it. Never rejects. */
async function stream(res: ServerResponse, body: ReadableStream<Uint8Array>): Promise<void> {
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

/**
 * Reads a node:http request body, never more than `maxBytes` of it: the same answers as reading
 * the web stream of the body, without making one. Past the limit it stops reading and leaves the
 * rest to the listener, which drains it once the answer is sent. A request whose client already
 * went away (a reset while its key was hashed) is unreadable at once: its `close` has been
 * emitted and will not come again.
 */
function readIncoming(incoming: IncomingMessage, maxBytes: number): Promise<BodyBytes> {
  if (incoming.complete && !incoming.destroyed && !incoming.readableEnded && !incoming.readableFlowing) {
    // The whole body has arrived and waits in the stream's buffer (a small body comes with its
    // headers): taken at once, without a listener or a promise of its own.
    const waiting = incoming.readableLength;
    if (waiting === 0) return Promise.resolve(new Uint8Array(0));
    if (waiting <= maxBytes) {
      const bytes = incoming.read() as Buffer | null;
      if (bytes !== null && bytes.byteLength === waiting) return Promise.resolve(bytes);
      if (bytes !== null) incoming.unshift(bytes); // not all of it after all: read it as it comes
    }
  }
  return new Promise((resolve) => {
    if (incoming.readableEnded) return resolve(new Uint8Array(0));
    if (incoming.destroyed || incoming.readableAborted) return resolve("unreadable");
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const settle = (result: BodyBytes) => {
      if (settled) return;
      settled = true;
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onFail);
      incoming.off("close", onFail);
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        incoming.pause();
        settle("too_large");
      } else chunks.push(chunk);
    };
    const onEnd = () => settle(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total));
    const onFail = () => settle("unreadable"); // an error, or a close before the end: the client went away
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onFail);
    incoming.on("close", onFail);
  });
}
