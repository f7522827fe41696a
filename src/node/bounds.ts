/**
 * What Node and hono leave to `serve()` (S12, S15): how many connections may be open (in all and
 * per client address), what is drained after an early answer, when `100 Continue` is sent, and
 * the JSON answers to what Node's HTTP parser would otherwise answer itself in plain text (a
 * timeout, headers too large, no `Host`, an unknown `Expect`, `CONNECT`).
 */
import {
  createServer,
  type IncomingMessage,
  type Server,
  ServerResponse,
  STATUS_CODES,
} from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "../server/address.js";
import type { ResponseEvent } from "../server/context.js";
import { newId } from "../server/ids.js";

/** The bounds of {@link guardConnections}, every one already checked. @internal */
export type Bounds = {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly maxHeaderBytes: number;
  readonly maxDrainBytes: number;
};

/** Defaults of the bounds: see docs/reliability.md. @internal */
export const DEFAULT_BOUNDS: Bounds = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
  maxHeaderBytes: 16 * 1024,
  maxDrainBytes: 4 * 1024 * 1024,
};

/**
 * How long a socket that was answered early (an error from the parser, a timeout, the connection
 * cap) is still read from before it is destroyed: long enough for the client to read the answer
 * instead of a reset, short enough that a client who never closes costs nothing.
 */
const LINGER_MS = 2000;

/** Connections accepted past the cap only to be answered 503; beyond these, Node drops them at once. */
const CAP_OVERFLOW = 64;

/**
 * Refused connections of one address that may linger at once (see {@link LINGER_MS}); past it, a
 * refused connection from that address is closed at once, unanswered, so that one client opening
 * connections in a loop cannot fill Node's own cap with lingering refusals.
 */
const LINGER_PER_ADDRESS = 8;

/** The codes of the answers written here, by status; they extend the server's codes (S12). */
const CONNECTION_ERRORS = {
  bad_request: 400,
  method_not_allowed: 405,
  request_timeout: 408,
  payload_too_large: 413,
  expectation_failed: 417,
  header_fields_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
} as const;

type ConnectionErrorCode = keyof typeof CONNECTION_ERRORS;

/** An answer as the bytes of a whole HTTP/1.1 answer, for writing straight to a socket. */
function rawAnswer({
  status,
  headers,
  body,
}: {
  status: number;
  headers: Record<string, string>;
  body: string;
}): string {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n${body}`;
}

/** The service's JSON error `{ error: { message, code, requestId } }`, sent with `Connection: close`. */
function errorAnswer(
  code: ConnectionErrorCode,
  message: string,
  extra: Record<string, string> = {},
) {
  const requestId = newId.request();
  const status = CONNECTION_ERRORS[code];
  const body = JSON.stringify({ error: { message, code, requestId } });
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "request-id": requestId,
    ...extra,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  return { status, headers, body, requestId };
}

/** The service's JSON error as a web `Response`, for `@hono/node-server` to write. @internal */
export function errorResponse(code: ConnectionErrorCode, message: string): Response {
  const { status, headers, body } = errorAnswer(code, message);
  return new Response(body, { status, headers });
}

/** Anything with a web-standard fetch handler, such as a reference server. */
export type FetchServer = {
  /**
   * Answers a web-standard request; the second argument tells the client's address. A rejection
   * (or a throw) is answered with nothing: `serve()` closes the connection, as when the server goes
   * away mid-request. The answer's status goes out with its standard reason phrase (a `Response`'s
   * `statusText` is not sent, as with `@hono/node-server`).
   */
  fetch: (request: Request, info?: { clientAddress?: string }) => Response | Promise<Response>;
};

/** Live figures of a running server. */
export type ServerStats = {
  /** Connections open now, not counting those answered 503 at the cap. */
  openConnections: number;
  /** Requests whose handler has started and not yet settled. */
  activeRequests: number;
  /** Requests handed to a handler since the server started. */
  requests: number;
  /**
   * Connections answered 503 (or, past a few at once from one address, closed) because the cap or
   * the cap per address was reached, since the server started.
   */
  refusedConnections: number;
};

/**
 * Makes the node:http server of `serve()` within its bounds: Node's timeouts and header limit, the
 * connection caps answered with a JSON 503, a JSON answer with a `Request-Id` for every error
 * Node's parser reports (`clientError`), for `CONNECT`, an unknown `Expect` and an answer whose
 * headers node:http refuses, and `100 Continue` sent only once a handler reads the body. `report`
 * is told of every answer written here to a request node:http parsed. @internal
 */
export function guardConnections(bounds: Bounds, report?: (event: ResponseEvent) => void) {
  /**
   * node:http's response, which writes the service's JSON 500 in place of an answer whose headers
   * it refuses (a web `Response` takes some that node:http does not), and nothing of that answer.
   */
  class GuardedResponse extends ServerResponse {
    #refused = false;

    override writeHead(statusCode: number, a?: unknown, b?: unknown): this {
      if (this.#refused) {
        return this;
      }
      try {
        return writeHead.call(this, statusCode, a, b) as this;
      } catch (error) {
        if (this.headersSent) {
          throw error;
        }
        this.#refused = true;
        for (const name of this.getHeaderNames()) {
          this.removeHeader(name);
        }
        answerError(this.req, this, "internal_error", "Something went wrong on our side.");
        return this;
      }
    }

    override write(chunk: unknown, a?: unknown, b?: unknown): boolean {
      return this.#refused || write.call(this, chunk, a, b);
    }

    override end(a?: unknown, b?: unknown, c?: unknown): this {
      if (!this.#refused && ending.push([this, a, b, c]) === 1) {
        setImmediate(endAll);
      }
      return this;
    }
  }
  /**
   * Answers ended in this turn of the event loop, written at its end: a waiting client is woken once
   * per turn, not per answer (on a busy server, dearer than the write); before a half-close's end.
   */
  const ending: [ServerResponse, unknown, unknown, unknown][] = [];
  function endAll(): void {
    for (const [response, a, b, c] of ending.splice(0)) {
      try {
        end.call(response, a, b, c);
      } catch {
        response.destroy(); // as when a handler fails: the connection closes
      }
    }
  }
  const { writeHead, write, end } = ServerResponse.prototype as unknown as {
    writeHead: (this: ServerResponse, ...args: unknown[]) => unknown;
    write: (this: ServerResponse, ...args: unknown[]) => boolean;
    end: (this: ServerResponse, ...args: unknown[]) => unknown;
  };
  const server = createServer({
    ServerResponse: GuardedResponse,
    maxHeaderSize: bounds.maxHeaderBytes,
    // A request without Host is answered by the guard with the JSON 400 instead of Node's plain one.
    requireHostHeader: false,
    headersTimeout: bounds.headersTimeoutMs,
    requestTimeout: bounds.requestTimeoutMs,
    connectionsCheckingInterval: Math.min(
      1000,
      Math.max(5, Math.floor(bounds.headersTimeoutMs / 10)),
    ),
  }) as unknown as Server;
  server.maxConnections = bounds.maxConnections + CAP_OVERFLOW;

  const stats: ServerStats = {
    openConnections: 0,
    activeRequests: 0,
    requests: 0,
    refusedConnections: 0,
  };
  /** Sockets answered here: nothing more may be written to them. */
  const answeredSockets = new WeakSet<Socket>();
  /** Sockets whose request was answered early and whose body is being read to the end. */
  const draining = new WeakSet<Socket>();
  /** The last response started on each socket, so a timeout does not write over one in progress. */
  const current = new WeakMap<Socket, ServerResponse>();
  const lingering = new Set<Socket>();
  /** Requests with `Expect: 100-continue` whose `100 Continue` has not been sent. */
  const awaitingContinue = new WeakSet<IncomingMessage>();
  /** Open connections by client address (an IPv6 client by its /64). */
  const openByAddress = new Map<string, number>();
  const refusedByAddress = new Map<string, number>();
  const adjust = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next <= 0) {
      counts.delete(key);
    } else {
      counts.set(key, next);
    }
  };

  function tell(req: IncomingMessage, status: number, requestId: string, start: number): void {
    if (report === undefined) {
      return;
    }
    const method = req.method ?? "GET";
    const target = req.url ?? "/";
    // A CONNECT names an authority, not a path: it is told as sent.
    const path =
      method === "CONNECT" || !target.startsWith("/") ? target : target.replace(/[?#].*$/s, "");
    try {
      report({ method, path, status, requestId, durationMs: performance.now() - start });
    } catch {
      // a failing hook changes no answer
    }
  }

  /** Writes the service's JSON error to a request node:http parsed, and reports it. */
  function answerError(
    req: IncomingMessage,
    res: ServerResponse,
    code: ConnectionErrorCode,
    message: string,
  ): void {
    if (res.headersSent || res.destroyed) {
      return;
    }
    const start = performance.now();
    const { status, headers, body, requestId } = errorAnswer(code, message);
    writeHead.call(res, status, headers);
    end.call(res, body);
    tell(req, status, requestId, start);
  }

  /** Writes an answer, stops writing, and keeps reading for a while so the client can read it. */
  function answerAndLinger(socket: Socket, answer: string): void {
    answeredSockets.add(socket);
    if (socket.destroyed) {
      return;
    }
    socket.end(answer);
    lingering.add(socket);
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => {
      clearTimeout(timer);
      lingering.delete(socket);
    });
  }

  /** Refuses a connection past a cap: a JSON 503, unless its address already has enough refusals lingering. */
  function refuse(socket: Socket, address: string, message: string): void {
    stats.refusedConnections++;
    if ((refusedByAddress.get(address) ?? 0) >= LINGER_PER_ADDRESS) {
      answeredSockets.add(socket);
      socket.destroy();
      return;
    }
    adjust(refusedByAddress, address, 1);
    socket.once("close", () => adjust(refusedByAddress, address, -1));
    answerAndLinger(
      socket,
      rawAnswer(errorAnswer("service_unavailable", message, { "retry-after": "1" })),
    );
  }

  /**
   * After an answer sent before the whole body arrived: read and discard the rest, keeping the
   * connection, up to `maxDrainBytes` (and the request timeout); past that, close it.
   */
  function drain(req: IncomingMessage): void {
    const socket = req.socket;
    if (req.complete || socket.destroyed) {
      return;
    }
    draining.add(socket);
    // A reader that stopped at the body limit (a web stream over the request) would pause it again.
    req.removeAllListeners("data");
    let read = 0;
    req.on("data", (chunk: Buffer) => {
      read += chunk.byteLength;
      if (read > bounds.maxDrainBytes) {
        socket.destroy();
      }
    });
    req.once("end", () => draining.delete(socket));
    req.resume();
  }

  // Runs before node:http's own listener, so a connection past a cap is answered before any parsing.
  server.prependListener("connection", (socket: Socket) => {
    socket.once("end", endAll); // before node:http ends its side of a half-closed connection
    const address = addressKey(socket.remoteAddress);
    if (stats.openConnections >= bounds.maxConnections) {
      refuse(
        socket,
        address,
        `The server is at its limit of ${bounds.maxConnections} open connections; retry shortly.`,
      );
      return;
    }
    if ((openByAddress.get(address) ?? 0) >= bounds.maxConnectionsPerAddress) {
      refuse(
        socket,
        address,
        `This client address has ${bounds.maxConnectionsPerAddress} connections open, the most one address may have; reuse one, or retry once one is closed.`,
      );
      return;
    }
    stats.openConnections++;
    adjust(openByAddress, address, 1);
    socket.once("close", () => {
      stats.openConnections--;
      adjust(openByAddress, address, -1);
    });
  });

  server.on("clientError", (error: Error & { code?: string }, socket: Socket) => {
    if (answeredSockets.has(socket)) {
      return; // the parser keeps reporting on a socket already answered
    }
    const inFlight = current.get(socket);
    const gone =
      error.code === "ECONNRESET" ||
      error.code === "EPIPE" ||
      error.code === "HPE_INVALID_EOF_STATE";
    // An answer written whole is no longer in flight: the socket waits for the next request.
    const writing = inFlight?.headersSent === true && !inFlight.writableFinished;
    if (gone || !socket.writable || draining.has(socket) || writing) {
      // Nobody to answer, or an answer already on its way: writing now would corrupt it.
      answeredSockets.add(socket);
      socket.destroy();
      return;
    }
    answerAndLinger(socket, rawAnswer(errorAnswer(...parserError(error.code, bounds))));
  });

  // Node would answer these itself, in plain text or by closing the connection.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    answerError(
      req,
      res,
      "expectation_failed",
      `The expectation ${JSON.stringify(String(req.headers.expect).slice(0, 40))} is not supported; the only one is Expect: 100-continue.`,
    );
  });
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    // The client waits for `100 Continue` before it sends the body: sent once a handler starts to
    // read it, so that an answer given before (a 401, a 413 by Content-Length) comes without it.
    awaitingContinue.add(req);
    const onListener = (event: string | symbol) => {
      if (event !== "data" && event !== "readable") {
        return;
      }
      req.off("newListener", onListener);
      if (awaitingContinue.delete(req) && !res.headersSent && !res.destroyed) {
        res.writeContinue();
      }
    };
    req.on("newListener", onListener);
    server.emit("request", req, res);
  });
  server.on("connect", (req: IncomingMessage, socket: Socket) => {
    const start = performance.now();
    const answer = errorAnswer(
      "method_not_allowed",
      "CONNECT is not allowed: this server is not a proxy. Use GET, HEAD or POST on its endpoints.",
      { allow: "GET, HEAD, POST" },
    );
    answerAndLinger(socket, rawAnswer(answer));
    tell(req, answer.status, answer.requestId, start);
  });

  return {
    /**
     * Whether a request goes on to its handler: not on a socket already answered here, nor an
     * HTTP/1.1 request without exactly one `Host`, which is answered 400 here.
     */
    admit(req: IncomingMessage, res: ServerResponse): boolean {
      if (answeredSockets.has(req.socket)) {
        return false;
      }
      // Counted in the raw headers: `headersDistinct` would build an object of every header.
      let hosts = 0;
      const raw = req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) {
        if ((raw[i] as string).length === 4 && raw[i]?.toLowerCase() === "host") {
          hosts++;
        }
      }
      if (hosts === 1 || (hosts === 0 && req.httpVersion === "1.0")) {
        return true;
      }
      const message =
        hosts === 0
          ? "An HTTP/1.1 request must carry a Host header."
          : "A request must carry one Host header, not several.";
      answerError(req, res, "bad_request", message);
      return false;
    },
    /**
     * Answers a request with the server's `fetch`, counted in the figures. A rejection writes
     * nothing and closes the connection (a socket already answered by a timeout keeps its answer);
     * what is not a `Response` is answered with a JSON 500. The answer goes out with `Connection:
     * close` when the rest of an unread body cannot be drained (declared larger than
     * `maxDrainBytes`, or awaited with `Expect: 100-continue`). Rejects when the socket was already
     * answered here (a timeout): nothing more is written to it.
     */
    async handle(
      server: FetchServer,
      request: Request,
      req: IncomingMessage,
      res: ServerResponse,
    ): Promise<Response> {
      stats.requests++;
      stats.activeRequests++;
      let response: unknown;
      try {
        const address = req.socket.remoteAddress;
        response = await server.fetch(
          request,
          address === undefined ? {} : { clientAddress: address },
        );
      } catch (error) {
        if (!answeredSockets.has(req.socket)) {
          res.destroy();
        }
        throw error;
      } finally {
        stats.activeRequests--;
      }
      if (answeredSockets.has(req.socket)) {
        if (response instanceof Response) {
          response.body?.cancel().catch(() => {});
        }
        throw new Error("The request was answered already (a timeout).");
      }
      if (!(response instanceof Response)) {
        const start = performance.now();
        const answer = errorResponse("internal_error", "Something went wrong on our side.");
        tell(req, answer.status, answer.headers.get("request-id") ?? "", start);
        return answer;
      }
      current.set(req.socket, res);
      if (!req.complete) {
        const declared = req.headers["content-length"];
        const tooLarge =
          declared !== undefined &&
          /^\d+$/.test(declared) &&
          Number(declared) > bounds.maxDrainBytes;
        if (awaitingContinue.has(req) || tooLarge) {
          res.setHeader("connection", "close");
        } else {
          res.once("finish", () => drain(req));
        }
      }
      return response;
    },
    server,
    /** A copy of the live figures. */
    stats: (): ServerStats => ({ ...stats }),
    /** Destroys every socket still lingering after an early answer. */
    closeLingering(): void {
      for (const socket of lingering) {
        socket.destroy();
      }
    },
  };
}

/** The code and message of the answer to an error Node's HTTP parser reported. */
function parserError(code: string | undefined, bounds: Bounds): [ConnectionErrorCode, string] {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [
        "request_timeout",
        `The request did not arrive in time: headers are due within ${bounds.headersTimeoutMs} ms and the whole request within ${bounds.requestTimeoutMs} ms.`,
      ];
    case "HPE_HEADER_OVERFLOW":
      return [
        "header_fields_too_large",
        `The request line and headers are larger than the limit of ${bounds.maxHeaderBytes} bytes.`,
      ];
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [
        "payload_too_large",
        "The chunk extensions of the request body are larger than the server accepts.",
      ];
    default:
      return ["bad_request", "The request is not valid HTTP/1.1."];
  }
}
