/**
 * The node:http listener of a reference server: the request read from the `IncomingMessage` and
 * the answer written to the `ServerResponse`, with no web `Request` or `Response` in between.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import { type BodyBytes, type Incoming, pathOf, queryOf } from "../server/http/incoming.js";
import type { Outgoing } from "../server/http/respond.js";

import type { Guard } from "./bounds.js";

/**
 * A listener straight onto a reference server's handler.
 *
 * @param respond - The reference server's handler of {@link Incoming} requests.
 * @param guard - The connection bounds: tracking, draining.
 * @returns The node:http request listener.
 * @internal
 */
export function directListener(respond: (incoming: Incoming) => Promise<Outgoing>, guard: Guard): RequestListener {
  return (req, res) => {
    if (guard.answered(req)) return; // a connection past the cap, already answered 503
    if (guard.refused(req, res)) return;
    guard
      .track(req, res, () => respond(toIncoming(req, res, guard)))
      .then(
        (out) => {
          try {
            send(req, res, out, guard);
          } catch {
            res.destroy(); // a header node:http refuses: a cut answer, never a wrong one
          }
        },
        () => {
          // respond() answers every error itself and rejects only when no answer is wanted (a lost
          // answer, on purpose): the connection closes without a response (unless a timeout answered it).
          if (!guard.answered(req)) res.destroy();
        },
      );
  };
}

/** The {@link Incoming} of a node:http request; its body is asked for (`100 Continue`) when first read. */
function toIncoming(req: IncomingMessage, res: ServerResponse, guard: Guard): Incoming {
  return {
    method: req.method ?? "GET",
    path: targetPath(req.url ?? "/"),
    query: queryOf(req.url ?? ""),
    header: (name) => req.headersDistinct[name]?.join(", ") ?? null,
    readBody: (maxBytes) => {
      guard.continueBody(req, res);
      return readIncoming(req, maxBytes);
    },
    clientAddress: req.socket.remoteAddress,
  };
}

/**
 * The path of a request target, as a `Request` made from it would have it: the query and fragment
 * cut off, and dot segments and the like resolved by the URL parser when there may be any.
 *
 * @internal
 */
export function targetPath(target: string): string {
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
function send(req: IncomingMessage, res: ServerResponse, out: Outgoing, guard: Guard): void {
  if (guard.answered(req) || res.destroyed || res.headersSent) return;
  const headers = out.headers;
  // For a HEAD this is the GET's length: the body is the GET's, and Node does not write it.
  headers["content-length"] = String(Buffer.byteLength(out.body));
  const early = !req.complete;
  const drain = early && guard.canDrain(req);
  if (early && !drain) headers.connection = "close";
  res.writeHead(out.status, headers);
  res.end(out.body);
  if (drain) guard.drain(req);
}

/**
 * Reads a node:http request body, never more than `maxBytes` of it: the same answers as reading
 * the web stream of the body, without making one. Past the limit it stops reading and leaves the
 * rest to the listener, which drains it once the answer is sent. A request whose client already
 * went away (a reset while its key was hashed) is unreadable at once: its `close` has been
 * emitted and will not come again.
 *
 * @internal
 */
export function readIncoming(incoming: Readable, maxBytes: number): Promise<BodyBytes> {
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
