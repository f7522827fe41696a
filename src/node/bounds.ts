/**
 * What Node and @hono/node-server leave to `serve()` (S12, S15): the connection caps per client
 * address and in all, and the service's JSON answer with a `Request-Id` where Node would answer in
 * plain text or close the connection (what its HTTP parser refuses, a request without one `Host`,
 * an unknown `Expect`, `CONNECT`, an answer whose headers it cannot write), each sent after the
 * answers its connection is still owed, and `100 Continue` sent only once a handler reads the body.
 */
import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import { addressKey } from "../server/address.js";
import type { ResponseEvent } from "../server/context.js";
import { newId } from "../server/ids.js";

/** The bounds of `serve()`, every one already checked. @internal */
export type Bounds = {
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly maxHeaderBytes: number;
  readonly maxDrainBytes: number;
};

/** Defaults of the bounds: see docs/server.md#bounds. @internal */
export const DEFAULT_BOUNDS: Bounds = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 1000,
  maxConnectionsPerAddress: 100,
  maxHeaderBytes: 16 * 1024,
  maxDrainBytes: 4 * 1024 * 1024,
};

/**
 * Connections accepted past the cap only to be answered 503; beyond these, Node drops them.
 * @internal
 */
export const CAP_OVERFLOW = 64;

/**
 * How long a socket answered here (a refusal, a timeout, the connection cap) is still read from
 * before it is destroyed: long enough for the client to read the answer instead of a reset, short
 * enough that a client who never closes costs nothing.
 */
const LINGER_MS = 2000;

/**
 * Refused connections of one address that may linger at once; past it, a refused connection from
 * that address is closed unanswered, so that one client opening connections in a loop cannot fill
 * Node's own cap with lingering refusals.
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

/**
 * What node:http refuses in a header value (its `checkInvalidHeaderChar`); a web `Headers` takes
 * it.
 */
const UNWRITABLE_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Anything with a web-standard fetch handler, such as a reference server. */
export type FetchServer = {
  /**
   * Answers a web-standard request; the second argument tells the client's address. A rejection
   * (or a throw) is answered with nothing: `serve()` closes the connection once the answers before
   * it on that connection have gone out, as when the server goes away mid-request. The answer's
   * status goes out with its standard reason phrase (a `Response`'s `statusText` is not sent, as
   * with `@hono/node-server`).
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

/** What the guards of one server share. @internal */
export type Guard = {
  readonly bounds: Bounds;
  readonly stats: ServerStats;
  readonly report: ((event: ResponseEvent) => void) | undefined;
  /** Sockets refused here: no further request of theirs is handled. */
  readonly refused: WeakSet<Socket>;
  /** Requests parsed on a refused socket: no answer is owed to them. */
  readonly unheard: WeakSet<IncomingMessage>;
  /** Sockets ended here and still read from (see {@link LINGER_MS}). */
  readonly lingering: Set<Socket>;
  /** Requests with `Expect: 100-continue` whose `100 Continue` has not been sent. */
  readonly awaitingContinue: WeakSet<IncomingMessage>;
  /** Open connections by client address (an IPv6 client by its /64), and lingering refusals. */
  readonly openByAddress: Map<string, number>;
  readonly refusedByAddress: Map<string, number>;
};

/** The shared state of a new server's guards. @internal */
export function newGuard(bounds: Bounds, report?: (event: ResponseEvent) => void): Guard {
  return {
    bounds,
    stats: { openConnections: 0, activeRequests: 0, requests: 0, refusedConnections: 0 },
    report,
    refused: new WeakSet(),
    unheard: new WeakSet(),
    lingering: new Set(),
    awaitingContinue: new WeakSet(),
    openByAddress: new Map(),
    refusedByAddress: new Map(),
  };
}

/**
 * The service's JSON error `{ error: { message, code, requestId } }`, sent with
 * `Connection: close`.
 */
function errorAnswer(
  code: ConnectionErrorCode,
  message: string,
  extra: Record<string, string> = {},
) {
  const requestId = newId.request();
  const body = JSON.stringify({ error: { message, code, requestId } });
  const headers: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "request-id": requestId,
    ...extra,
    "content-length": String(Buffer.byteLength(body)),
    connection: "close",
  };
  return { status: CONNECTION_ERRORS[code], headers, body, requestId };
}

/** An error answer as the bytes of a whole HTTP/1.1 answer, for writing straight to a socket. */
function rawAnswer(answer: ReturnType<typeof errorAnswer>): string {
  let head = `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) {
    head += `${name}: ${value}\r\n`;
  }
  return `${head}\r\n${answer.body}`;
}

/** The service's JSON error as a web `Response`, for `@hono/node-server` to write. @internal */
export function errorResponse(code: ConnectionErrorCode, message: string): Response {
  const { status, headers, body } = errorAnswer(code, message);
  return new Response(body, { status, headers });
}

/**
 * Tells `report` of an answer written here to a request node:http parsed; a throw changes nothing.
 */
function tell(
  guard: Guard,
  req: IncomingMessage,
  status: number,
  requestId: string,
  start: number,
) {
  const method = req.method ?? "GET";
  const target = req.url ?? "/";
  // A CONNECT names an authority, not a path: it is told as sent.
  const path =
    method === "CONNECT" || !target.startsWith("/") ? target : target.replace(/[?#].*$/s, "");
  try {
    guard.report?.({ method, path, status, requestId, durationMs: performance.now() - start });
  } catch {
    // a failing hook changes no answer
  }
}

/** Ends a socket with an answer (or none) and reads from it a while, so the client can read it. */
function endAndLinger(guard: Guard, socket: Socket, answer = ""): void {
  guard.refused.add(socket);
  if (socket.destroyed) {
    return;
  }
  socket.end(answer);
  guard.lingering.add(socket);
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => {
    clearTimeout(timer);
    guard.lingering.delete(socket);
  });
}

/** Destroys every socket still lingering after an answer written here. @internal */
export function closeLingering(guard: Guard): void {
  for (const socket of guard.lingering) {
    socket.destroy();
  }
}

function adjust(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) {
    counts.delete(key);
  } else {
    counts.set(key, next);
  }
}

/**
 * Counts a new connection against the caps, or refuses it past one: a JSON 503 with `Retry-After`,
 * unless its address already has enough refusals lingering. Runs before node:http's own listener,
 * so a refusal is written before any parsing. @internal
 */
export function admitConnection(guard: Guard, socket: Socket): void {
  const { bounds, stats } = guard;
  const address = addressKey(socket.remoteAddress);
  let refusal: string | undefined;
  if (stats.openConnections >= bounds.maxConnections) {
    refusal =
      `The server is at its limit of ${bounds.maxConnections} open connections; retry ` +
      "shortly.";
  } else if ((guard.openByAddress.get(address) ?? 0) >= bounds.maxConnectionsPerAddress) {
    refusal =
      `This client address has ${bounds.maxConnectionsPerAddress} connections open, the ` +
      "most one address may have; reuse one, or retry once one is closed.";
  }
  if (refusal === undefined) {
    stats.openConnections++;
    adjust(guard.openByAddress, address, 1);
    socket.once("close", () => {
      stats.openConnections--;
      adjust(guard.openByAddress, address, -1);
    });
    return;
  }
  stats.refusedConnections++;
  if ((guard.refusedByAddress.get(address) ?? 0) >= LINGER_PER_ADDRESS) {
    guard.refused.add(socket);
    socket.destroy();
    return;
  }
  adjust(guard.refusedByAddress, address, 1);
  socket.once("close", () => adjust(guard.refusedByAddress, address, -1));
  const answer = errorAnswer("service_unavailable", refusal, { "retry-after": "1" });
  endAndLinger(guard, socket, rawAnswer(answer));
}

/** A node:http socket's response now being written, or next to be (Node's own field). */
function currentResponse(socket: Socket): ServerResponse | null | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
}

/**
 * Runs `then` once every answer a socket is owed before `refused` (the request whose bytes were
 * refused, if its headers were read) has gone out whole: node:http writes the responses of a
 * connection one at a time, in order, and this waits for each one it has begun, or queued for a
 * request that arrived whole before the refusal.
 */
function afterOwedAnswers(
  guard: Guard,
  socket: Socket,
  refused: IncomingMessage | undefined,
  then: () => void,
): void {
  const current = currentResponse(socket);
  if (socket.destroyed) {
    return;
  }
  const owed =
    current != null &&
    (current.headersSent || (current.req !== refused && !guard.unheard.has(current.req)));
  if (owed) {
    // After its `close`, node:http has handed the socket to the next response, if any.
    current.once("close", () => afterOwedAnswers(guard, socket, refused, then));
    return;
  }
  then();
}

/**
 * Node's `clientError`: the service's JSON error for what its HTTP parser refused (or a timeout),
 * written after the answers still owed on the connection, which then closes. Nothing is written
 * when the client is gone, when the last owed answer closed the connection (bytes after
 * `Connection: close`), or when the request whose body broke was already answered. @internal
 */
export function answerClientError(guard: Guard, error: NodeJS.ErrnoException, socket: Socket) {
  if (guard.refused.has(socket)) {
    return; // the parser keeps reporting on a socket already refused
  }
  guard.refused.add(socket);
  if (error.code === "ECONNRESET" || error.code === "EPIPE") {
    socket.destroy();
    return;
  }
  // The request whose body was being read when the bytes were refused, if any.
  const parsing = (socket as Socket & { parser?: { incoming?: IncomingMessage | null } | null })
    .parser?.incoming;
  const broken = parsing?.complete === false ? parsing : undefined;
  afterOwedAnswers(guard, socket, broken, () => {
    const unanswered = broken === undefined || currentResponse(socket) != null;
    const speak = unanswered && socket.writable && error.code !== "HPE_INVALID_EOF_STATE";
    const answer = speak ? rawAnswer(errorAnswer(...parserError(error.code, guard.bounds))) : "";
    endAndLinger(guard, socket, answer);
  });
}

/** The code and message of the answer to an error Node's HTTP parser (or its timer) reported. */
function parserError(code: string | undefined, bounds: Bounds): [ConnectionErrorCode, string] {
  switch (code) {
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [
        "request_timeout",
        "The request did not arrive in time: headers are due within " +
          `${bounds.headersTimeoutMs} ms and the whole request within ` +
          `${bounds.requestTimeoutMs} ms.`,
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

/** Node's `checkExpectation` (an `Expect` other than `100-continue`): a JSON 417. @internal */
export function refuseExpectation(guard: Guard, req: IncomingMessage, res: ServerResponse) {
  const start = performance.now();
  const expectation = JSON.stringify(String(req.headers.expect).slice(0, 40));
  const { status, headers, body, requestId } = errorAnswer(
    "expectation_failed",
    `The expectation ${expectation} is not supported; the only one is Expect: 100-continue.`,
  );
  res.writeHead(status, headers).end(body);
  tell(guard, req, status, requestId, start);
}

/**
 * Node's `connect`: a JSON 405 with `Allow`, since this server is not a proxy, after the answers
 * still owed on the connection. @internal
 */
export function refuseConnect(guard: Guard, req: IncomingMessage, socket: Socket): void {
  const start = performance.now();
  guard.refused.add(socket);
  afterOwedAnswers(guard, socket, undefined, () => {
    const answer = errorAnswer(
      "method_not_allowed",
      "CONNECT is not allowed: this server is not a proxy. Use GET, HEAD or POST on its endpoints.",
      { allow: "GET, HEAD, POST" },
    );
    endAndLinger(guard, socket, socket.writable ? rawAnswer(answer) : "");
    tell(guard, req, answer.status, answer.requestId, start);
  });
}

/**
 * Node's `checkContinue`: the client waits for `100 Continue` before it sends the body, which is
 * sent once a handler starts to read it, so that an answer given before (a 401, a 413 by
 * `Content-Length`) comes without it. @internal
 */
export function continueOnRead(guard: Guard, req: IncomingMessage, res: ServerResponse): void {
  guard.awaitingContinue.add(req);
  const onListener = (event: string | symbol) => {
    if (event !== "data" && event !== "readable") {
      return;
    }
    req.off("newListener", onListener);
    if (guard.awaitingContinue.delete(req) && !res.headersSent && !res.destroyed) {
      res.writeContinue();
    }
  };
  req.on("newListener", onListener);
}

/** Why a request is refused for its `Host`: HTTP/1.1 needs exactly one (HTTP/1.0 at most one). */
function hostProblem(req: IncomingMessage): string | undefined {
  let hosts = 0;
  const raw = req.rawHeaders; // `headersDistinct` would build an object of every header
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.length === 4 && raw[i]?.toLowerCase() === "host") {
      hosts++;
    }
  }
  if (hosts === 1 || (hosts === 0 && req.httpVersion === "1.0")) {
    return undefined;
  }
  return hosts === 0
    ? "An HTTP/1.1 request must carry a Host header."
    : "A request must carry one Host header, not several.";
}

/**
 * Answers a request with the server's `fetch`, for `@hono/node-server`'s listener to write, counted
 * in the figures. A request on a refused connection, or without one `Host`, does not reach it. A
 * rejection writes nothing and closes the connection after the answers before it. What is not a
 * `Response`, or has a header node:http cannot write, is a JSON 500. An answer given before the
 * body arrived goes out with `Connection: close` when the rest cannot be drained (declared larger
 * than `maxDrainBytes`, or awaited with `Expect: 100-continue`). @internal
 */
export async function answerRequest(
  guard: Guard,
  server: FetchServer,
  request: Request,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<Response> {
  const { socket } = req;
  if (guard.refused.has(socket)) {
    guard.unheard.add(req);
    throw new Error("The connection was refused: no request of it is answered.");
  }
  const start = performance.now();
  const host = hostProblem(req);
  if (host !== undefined) {
    return told(guard, req, start, errorResponse("bad_request", host));
  }
  guard.stats.requests++;
  guard.stats.activeRequests++;
  let response: unknown;
  try {
    const address = socket.remoteAddress;
    response = await server.fetch(request, address === undefined ? {} : { clientAddress: address });
  } catch (error) {
    if (!socket.writableEnded) {
      guard.refused.add(socket);
      afterOwedAnswers(guard, socket, req, () => socket.destroy());
    }
    throw error;
  } finally {
    guard.stats.activeRequests--;
  }
  if (socket.writableEnded || !(response instanceof Response) || !writable(response)) {
    if (response instanceof Response) {
      response.body?.cancel().catch(() => {});
    }
    if (socket.writableEnded) {
      throw new Error("The connection was answered already (a timeout, a refused request).");
    }
    return told(
      guard,
      req,
      start,
      errorResponse("internal_error", "Something went wrong on our side."),
    );
  }
  if (!req.complete) {
    if (guard.awaitingContinue.has(req) || undrainable(req, guard.bounds)) {
      res.setHeader("connection", "close");
    } else {
      // For @hono/node-server's drain: a reader that stopped at the body limit (a web stream over
      // the request, its listener still on) would pause the request again at each chunk.
      res.once("finish", () => req.removeAllListeners("data"));
    }
  }
  return response;
}

/** An answer written here, told to `report`. */
function told(guard: Guard, req: IncomingMessage, start: number, answer: Response): Response {
  tell(guard, req, answer.status, answer.headers.get("request-id") ?? "", start);
  return answer;
}

/** Whether node:http can write every header of a response. */
function writable(response: Response): boolean {
  let ok = true;
  response.headers.forEach((value) => {
    ok &&= !UNWRITABLE_HEADER_VALUE.test(value);
  });
  return ok;
}

/** Whether a request declares a body larger than what is drained after an early answer. */
function undrainable(req: IncomingMessage, bounds: Bounds): boolean {
  const declared = req.headers["content-length"];
  return (
    declared !== undefined && /^\d+$/.test(declared) && Number(declared) > bounds.maxDrainBytes
  );
}
