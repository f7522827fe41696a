/**
 * Raw HTTP/1.1 over node:net for the tests of `serve()`: clients that send exactly the bytes a
 * test says, as slowly as it says, and read answers byte for byte.
 */
import { connect, type Socket } from "node:net";
import { afterEach, expect } from "vitest";
import { type RunningServer, type ServeOptions, serve } from "../../src/node/index.js";

const running: RunningServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    socket.destroy();
  }
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** serve() on 127.0.0.1, a free port, no signal handlers; closed after the test. */
export async function start(options: ServeOptions = {}): Promise<RunningServer> {
  const r = await serve({ port: 0, host: "127.0.0.1", handleSignals: false, ...options });
  running.push(r);
  return r;
}

/** One parsed HTTP answer. */
export type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** Parses every HTTP answer in the bytes a socket received (bodies by Content-Length). */
export function parseAnswers(bytes: Buffer): RawAnswer[] {
  return readAnswers(bytes).answers;
}

/** The whole answers in the bytes a socket received, and how many bytes follow them. */
export function readAnswers(bytes: Buffer): { answers: RawAnswer[]; unread: number } {
  const answers: RawAnswer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf("\r\n\r\n", at);
    if (end < 0) {
      break;
    }
    const [statusLine = "", ...lines] = bytes.subarray(at, end).toString("latin1").split("\r\n");
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    if (end + 4 + length > bytes.length) {
      break; // not all of its body has arrived yet
    }
    const body = bytes.subarray(end + 4, end + 4 + length).toString("utf8");
    answers.push({ status: Number(statusLine.split(" ")[1]), headers, body });
    at = end + 4 + length;
  }
  return { answers, unread: bytes.length - at };
}

/**
 * A raw client: write bytes when told, read everything, know how it ended.
 *
 * @param port - The server's port on 127.0.0.1.
 * @param localAddress - The client's own address (default 127.0.0.1; any of 127.0.0.0/8 works on Linux).
 */
export function rawClient(port: number, localAddress?: string) {
  const socket = connect({
    port,
    host: "127.0.0.1",
    ...(localAddress === undefined ? {} : { localAddress }),
  });
  sockets.push(socket);
  const chunks: Buffer[] = [];
  let error: string | undefined;
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", (e: NodeJS.ErrnoException) => {
    error ??= e.code ?? e.message;
  });
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    socket,
    connected,
    /** Resolves when the server has closed the connection (or the client did). */
    closed,
    write: (data: string | Buffer) =>
      new Promise<void>((resolve) =>
        socket.write(data) ? resolve() : socket.once("drain", () => resolve()),
      ),
    received: () => Buffer.concat(chunks),
    answers: () => parseAnswers(Buffer.concat(chunks)),
    /** Resolves once `count` whole answers have arrived (or the connection closed). */
    async answered(count = 1): Promise<RawAnswer[]> {
      for (;;) {
        const answers = parseAnswers(Buffer.concat(chunks));
        if (answers.length >= count || socket.destroyed) {
          return answers;
        }
        await Promise.race([new Promise((resolve) => socket.once("data", resolve)), closed]);
      }
    },
    error: () => error,
  };
}

/**
 * Checks an answer is the service's JSON error: the status, the code, a `Request-Id` header equal
 * to the body's `requestId`, and `Connection: close` when asked.
 */
export function expectJsonError(
  answer: RawAnswer | undefined,
  status: number,
  code: string,
  close = true,
) {
  expect(answer, "no answer").toBeDefined();
  const a = answer as RawAnswer;
  expect(a.status).toBe(status);
  expect(a.headers["content-type"]).toMatch(/^application\/json/);
  const body = JSON.parse(a.body) as {
    error: { message: string; code: string; requestId: string };
  };
  expect(body.error.code).toBe(code);
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(body.error.requestId).toMatch(/^req_/);
  expect(a.headers["request-id"]).toBe(body.error.requestId);
  if (close) {
    expect(a.headers.connection).toBe("close");
  }
  return body;
}

/**
 * Waits, a timer tick at a time, until `condition` holds or `limitMs` has passed; answers whether it
 * held. Not a timing assertion: what it waits for takes milliseconds, and the bound (30 s by
 * default, thousands of times that) only keeps a broken server from hanging the test, also on a
 * machine busy with other work.
 */
export async function until(condition: () => boolean, limitMs = 30_000): Promise<boolean> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (condition()) {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return condition();
}
