/**
 * Binds a fetch handler (by default a new reference server) to `node:http` (`<package>/node`).
 * A reference server is answered straight from node:http's request and response, without web
 * `Request`/`Response` objects; any other fetch handler goes through `@hono/node-server`'s
 * request listener. `npm run bench` measures both against bare node:http.
 *
 * @module imagegen-pricing/node
 */
import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Readable } from "node:stream";
import { getRequestListener } from "@hono/node-server";
import { type BodyBytes, type Incoming, type Outgoing, pathOf, RESPOND } from "../server/http.js";
import { createReferenceServer } from "../server/index.js";

/**
 * The SHA-256 of an API key as lowercase hex, synchronously with `node:crypto`: the same value as
 * the reference server's default Web Crypto hasher, without a trip through the event loop on every
 * request. Pass it as `createReferenceServer({ hashApiKey: sha256Hex })`; {@link serve} uses it for
 * the server it makes when none is given.
 *
 * @param key - The whole API key.
 * @returns 64 lowercase hex characters.
 */
export function sha256Hex(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Anything with a web-standard fetch handler, such as a reference server. */
export type FetchServer = {
  /** Answers a web-standard request. */
  fetch: (request: Request) => Response | Promise<Response>;
};

/** Options of {@link serve}. */
export type ServeOptions = {
  /** TCP port (default 8787); 0 picks a free one. */
  port?: number;
  /** Address to bind (default `127.0.0.1`). */
  host?: string;
  /** What answers requests (default: a new `createReferenceServer({ hashApiKey: sha256Hex })`). */
  server?: FetchServer;
  /** Close cleanly on SIGINT and SIGTERM (default true). */
  handleSignals?: boolean;
  /**
   * Let `@hono/node-server` replace the global `Request` and `Response` with its lighter,
   * compatible classes (default true, as its own `serve` does). This is what makes the bridge fast
   * (about 75% of bare node:http instead of about 50%); pass `false` to keep the globals untouched.
   */
  overrideGlobalObjects?: boolean;
};

/** A listening server. */
export type RunningServer = {
  /** The base URL, such as `http://127.0.0.1:8787`. */
  url: string;
  port: number;
  host: string;
  /** The fetch server behind it (the reference server when none was given). */
  server: FetchServer;
  /** The `node:http` server. */
  httpServer: Server;
  /** Stops accepting connections, ends idle ones and resolves when every request has finished. */
  close: () => Promise<void>;
};

/**
 * Serves a fetch handler over HTTP/1.1 with `node:http`.
 *
 * @param options - Port, host, the server to bind and whether to handle signals.
 * @returns Once listening: the URL and a `close()`.
 * @example
 * ```ts
 * const { url, close } = await serve({ port: 0 });
 * await fetch(`${url}/openapi.json`);
 * await close();
 * ```
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const server = options.server ?? createReferenceServer({ hashApiKey: sha256Hex });
  const host = options.host ?? "127.0.0.1";
  // A reference server is answered without web Request/Response objects; any other fetch handler
  // goes through @hono/node-server's bridge.
  const respond = (server as { [RESPOND]?: unknown })[RESPOND];
  const listener =
    typeof respond === "function"
      ? directListener(respond as (incoming: Incoming) => Promise<Outgoing>)
      : getRequestListener((request) => server.fetch(request), {
          overrideGlobalObjects: options.overrideGlobalObjects ?? true,
        });
  const httpServer = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port ?? 8787, host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });
  const port = (httpServer.address() as AddressInfo).port;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      httpServer.close((error) => (error ? reject(error) : resolve()));
      httpServer.closeIdleConnections();
    });
    return closing;
  };
  function onSignal(signal: NodeJS.Signals) {
    // Finish in-flight requests (cut off after a grace period), then exit the way the signal would have.
    setTimeout(() => httpServer.closeAllConnections(), 5000).unref();
    close().finally(() => process.kill(process.pid, signal));
  }
  if (options.handleSignals ?? true) {
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }

  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { url: `http://${shownHost}:${port}`, port, host, server, httpServer, close };
}

/**
 * A node:http listener straight onto a reference server's handler: the request is read from the
 * `IncomingMessage` (headers as a `Request` would join them, the body with the server's limit) and
 * the answer written with one `writeHead` and `end`, with no web objects in between.
 */
function directListener(respond: (incoming: Incoming) => Promise<Outgoing>): RequestListener {
  return (req, res) => {
    respond(toIncoming(req)).then(
      (out) => send(req, res, out),
      () => {
        // respond() answers every error itself; this only keeps a broken promise from hanging the socket
        res.writeHead(500, { "content-type": "application/json; charset=utf-8", connection: "close" });
        res.end('{"error":{"message":"Internal error.","code":"internal_error"}}');
      },
    );
  };
}

/** The {@link Incoming} of a node:http request. */
function toIncoming(req: IncomingMessage): Incoming {
  return {
    method: req.method ?? "GET",
    path: targetPath(req.url ?? "/"),
    header: (name) => req.headersDistinct[name]?.join(", ") ?? null,
    readBody: (maxBytes) => readIncoming(req, maxBytes),
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

/** Writes an answer; a body left unread (a rejected upload) closes the connection rather than being read. */
function send(req: IncomingMessage, res: ServerResponse, out: Outgoing): void {
  const headers = out.headers;
  headers["content-length"] = String(Buffer.byteLength(out.body));
  if (!req.complete) headers.connection = "close";
  res.writeHead(out.status, headers);
  res.end(out.body);
}

/**
 * Reads a node:http request body, never more than `maxBytes` of it: the same answers as reading
 * the web stream of the body, without making one. Past the limit it stops reading and leaves the
 * rest to the listener, which drains or closes the connection once the response is sent.
 */
function readIncoming(incoming: Readable, maxBytes: number): Promise<BodyBytes> {
  return new Promise((resolve) => {
    if (incoming.readableEnded) return resolve(new Uint8Array(0));
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
