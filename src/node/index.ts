/**
 * Serves a fetch handler (by default a new reference server) over HTTP/1.1 with `node:http`, on
 * `@hono/node-server` (`<package>/node`), within bounds: headers within 10 s, a whole request
 * within 30 s, at most 1,000 open connections and 100 from one client address, and every answer
 * JSON with a `Request-Id`, including those Node's HTTP parser would write itself. A `fetch` that
 * rejects gets no answer: the connection is closed.
 *
 * @module imagegen-pricing/node
 */
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getRequestListener, type HttpBindings, RequestError } from "@hono/node-server";
import { createReferenceServer } from "../server/app.js";
import type { ResponseEvent } from "../server/context.js";
import {
  admitConnection,
  answerClientError,
  answerRequest,
  type Bounds,
  CAP_OVERFLOW,
  closeLingering,
  continueOnRead,
  DEFAULT_BOUNDS,
  errorResponse,
  type FetchServer,
  newGuard,
  refuseConnect,
  refuseExpectation,
  type ServerStats,
} from "./bounds.js";

export type { ResponseEvent } from "../server/context.js";
export type { FetchServer, ServerStats } from "./bounds.js";

/** Options of {@link serve}. */
export type ServeOptions = {
  /** TCP port (default 8787); 0 picks a free one. */
  port?: number;
  /** Address to bind (default `127.0.0.1`). */
  host?: string;
  /** What answers requests (default: a new `createReferenceServer()`). */
  server?: FetchServer;
  /** Close cleanly on SIGINT and SIGTERM (default true). */
  handleSignals?: boolean;
  /**
   * Told of each answer `serve()` writes itself to a request Node parsed, which never reaches the
   * server (a request without `Host`, an unknown `Expect`, `CONNECT`): with the reference server's
   * own `onResponse`, every request is told once.
   */
  onResponse?: (event: ResponseEvent) => void;
  /**
   * How long a client has to send the request line and headers, in milliseconds (default 10,000;
   * a new connection that sends nothing is cut at the same bound); past it the answer is a JSON 408
   * and the connection closes. Checked every tenth of this timeout (at least every second), so a
   * request is cut within that much after the bound.
   */
  headersTimeoutMs?: number;
  /**
   * How long a client has to send the whole request, body included, in milliseconds (default
   * 30,000; at least `headersTimeoutMs`); past it the answer is a JSON 408 and the connection
   * closes. The handler's own work is not counted.
   */
  requestTimeoutMs?: number;
  /**
   * The most connections open at once (default 1,000). A connection past it is answered at once
   * with a JSON 503 (`service_unavailable`, `Retry-After: 1`) and closed; 64 more than that are
   * dropped by Node without an answer.
   */
  maxConnections?: number;
  /**
   * The most connections open at once from one client address (default 100; an IPv6 client is
   * counted by its /64), so that one client cannot take every connection and starve the others. A
   * connection past it is answered like one past `maxConnections` (a JSON 503, `Retry-After: 1`);
   * past a few such answers lingering at once for one address, its further connections are closed
   * unanswered. Behind a proxy every client has the proxy's address: raise it to `maxConnections`.
   */
  maxConnectionsPerAddress?: number;
  /**
   * The largest request line and headers, in bytes (default 16 KiB, Node's); past it, a JSON 431.
   */
  maxHeaderBytes?: number;
  /**
   * The largest declared body (`Content-Length`, in bytes; default 4 MiB) whose unread rest, after
   * an early answer (a 413, a 401 before the upload ended), is read and dropped so that the client
   * gets the answer rather than a reset and keeps its connection. An answer to a request declaring
   * more goes out with `Connection: close`. The drain is `@hono/node-server`'s: a body of unknown
   * length is drained the same way, and a drain past 64 MiB or 500 ms closes the connection.
   */
  maxDrainBytes?: number;
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
  /** Live figures: open connections, requests in flight, requests handled, connections refused. */
  stats: () => ServerStats;
  /** Stops accepting connections, ends idle ones and resolves when every request has finished. */
  close: () => Promise<void>;
};

/**
 * Serves a fetch handler over HTTP/1.1 with `node:http`.
 *
 * @param options - Port, host, the server to bind, whether to handle signals, and the bounds of
 *   every connection (timeouts, connection caps, header size, drain).
 * @returns Once listening: the URL, live `stats()` and a `close()`.
 * @throws RangeError when a bound is not a positive whole number, or the headers timeout is longer
 *   than the request timeout.
 * @example
 * ```ts
 * const { url, close } = await serve({ port: 0 });
 * await fetch(`${url}/openapi.json`);
 * await close();
 * ```
 */
export async function serve(options: ServeOptions = {}): Promise<RunningServer> {
  const server = options.server ?? createReferenceServer();
  const host = options.host ?? "127.0.0.1";
  const bounds = readBounds(options);
  const guard = newGuard(bounds, options.onResponse);
  const httpServer = createServer({
    maxHeaderSize: bounds.maxHeaderBytes,
    headersTimeout: bounds.headersTimeoutMs,
    requestTimeout: bounds.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(
      1000,
      Math.max(5, Math.floor(bounds.headersTimeoutMs / 10)),
    ),
    // A request without Host gets the service's JSON 400 (answerRequest), not Node's plain one.
    requireHostHeader: false,
  });
  httpServer.maxConnections = bounds.maxConnections + CAP_OVERFLOW;
  // A client that half-closes after its requests still reads their answers: node:http's own
  // switch (by default it aborts the requests in flight and ends the connection at once).
  (httpServer as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;

  const shownHost = host.includes(":") ? `[${host}]` : host;
  // Read by the listener at each request: the authority of a request without Host (HTTP/1.0).
  const adapter = {
    hostname: shownHost,
    // A rejected fetch is answered with nothing (answerRequest closes the connection); a request
    // target or Host that makes no URL is the service's 400.
    errorHandler: (error: unknown) =>
      error instanceof RequestError
        ? errorResponse("bad_request", "The request target or a header is not valid.")
        : undefined,
  };
  const listener = getRequestListener((request, env) => {
    const { incoming, outgoing } = env as HttpBindings;
    return answerRequest(guard, server, request, incoming, outgoing);
  }, adapter);
  // Before node:http's own listener, so that a connection past a cap is refused before parsing.
  httpServer.prependListener("connection", (socket: Socket) => admitConnection(guard, socket));
  httpServer.on("request", listener);
  httpServer.on("checkContinue", (req, res) => {
    continueOnRead(guard, req, res);
    void listener(req, res);
  });
  httpServer.on("checkExpectation", (req, res) => refuseExpectation(guard, req, res));
  httpServer.on("connect", (req, socket) => refuseConnect(guard, req, socket as Socket));
  httpServer.on("clientError", (error, socket) =>
    answerClientError(guard, error, socket as Socket),
  );
  httpServer.listen(options.port ?? 8787, host);
  await once(httpServer, "listening"); // rejects on the server's "error" (a port in use)
  const port = (httpServer.address() as AddressInfo).port;
  adapter.hostname = `${shownHost}:${port}`;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      httpServer.close((error) => (error ? reject(error) : resolve()));
      httpServer.closeIdleConnections();
      closeLingering(guard);
    });
    return closing;
  };
  function onSignal(signal: NodeJS.Signals) {
    // Finish in-flight requests (cut off after a grace period), then exit the way the signal would
    // have.
    setTimeout(() => httpServer.closeAllConnections(), 5000).unref();
    close().finally(() => process.kill(process.pid, signal));
  }
  if (options.handleSignals ?? true) {
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  }

  return {
    url: `http://${shownHost}:${port}`,
    port,
    host,
    server,
    httpServer,
    stats: () => ({ ...guard.stats }),
    close,
  };
}

/**
 * The bounds of a serve() call: each option a positive whole number, the request timeout no shorter
 * than the headers'.
 */
function readBounds(options: ServeOptions): Bounds {
  const bounds: Record<keyof Bounds, number> = { ...DEFAULT_BOUNDS };
  for (const name of Object.keys(DEFAULT_BOUNDS) as (keyof Bounds)[]) {
    const value = options[name];
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new RangeError(
        `serve(): ${name} must be a positive whole number; received ${String(value)}.`,
      );
    }
    bounds[name] = value ?? bounds[name];
  }
  // When only one timeout is given, the other default gives way rather than fail.
  if (options.requestTimeoutMs === undefined) {
    bounds.requestTimeoutMs = Math.max(bounds.requestTimeoutMs, bounds.headersTimeoutMs);
  }
  if (options.headersTimeoutMs === undefined) {
    bounds.headersTimeoutMs = Math.min(bounds.headersTimeoutMs, bounds.requestTimeoutMs);
  }
  if (bounds.headersTimeoutMs > bounds.requestTimeoutMs) {
    throw new RangeError(
      `serve(): headersTimeoutMs (${bounds.headersTimeoutMs}) must not be longer than ` +
        `requestTimeoutMs (${bounds.requestTimeoutMs}).`,
    );
  }
  return bounds;
}
