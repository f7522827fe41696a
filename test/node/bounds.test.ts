import { describe, expect, it } from "vitest";
import { createReferenceServer } from "../../src/server/index.js";
import { createMemoryStore } from "../../src/store/memory.js";
import { expectJsonError, rawClient, start, until } from "./helpers.js";

/** A reference server with one user and key. */
async function world(options: Parameters<typeof createReferenceServer>[0] = {}) {
  const server = createReferenceServer(options);
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  return { server, key };
}

const ping = (key: string) =>
  `GET /api/ping HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n\r\n`;

describe("serve(): the bounds of a connection (S12, S15)", () => {
  it("S12, S15: slow headers are cut at headersTimeoutMs with a JSON 408 carrying a Request-Id", async () => {
    const r = await start({ headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const client = rawClient(r.port);
    await client.connected;
    await client.write("GET /api/ping HTTP/1.1\r\nHost: t\r\n"); // and never the blank line
    await client.closed;
    expectJsonError(client.answers()[0], 408, "request_timeout");
    expect(client.answers()).toHaveLength(1);
  });

  it("S12, S15: a connection that sends nothing is cut with the same JSON 408", async () => {
    const r = await start({ headersTimeoutMs: 200 });
    const client = rawClient(r.port);
    await client.closed;
    expectJsonError(client.answers()[0], 408, "request_timeout");
  });

  it("S12, S15: a slow body is cut at requestTimeoutMs with a JSON 408, and its handler does not stay pending", async () => {
    const { server, key } = await world();
    // The headers go out with the first bytes; a headers timeout of 1 s (not 200 ms) keeps a busy
    // machine from cutting them before the body's own timeout is what is tested.
    const r = await start({ server, headersTimeoutMs: 1000, requestTimeoutMs: 1500 });
    const client = rawClient(r.port);
    await client.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"prompt":`,
    );
    await client.closed;
    expectJsonError(client.answers()[0], 408, "request_timeout");
    expect(client.answers()).toHaveLength(1); // the handler, which gave up on the body, wrote nothing after it
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
    expect(r.stats().requests).toBe(1);
  });

  it("S12: a malformed request line is a JSON 400 with a Request-Id, not Node's plain-text one", async () => {
    const r = await start();
    for (const garbage of [
      "THIS IS NOT HTTP\r\n\r\n",
      "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n",
      "GET / HTTP/9.9\r\n\r\n",
    ]) {
      const client = rawClient(r.port);
      await client.write(garbage);
      await client.closed;
      expectJsonError(client.answers()[0], 400, "bad_request");
    }
  });

  it("S12, S15: headers over maxHeaderBytes are a JSON 431 with a Request-Id", async () => {
    const r = await start({ maxHeaderBytes: 2048 });
    const client = rawClient(r.port);
    await client.write(`GET /api/ping HTTP/1.1\r\nHost: t\r\nX-Big: ${"a".repeat(4096)}\r\n\r\n`);
    await client.closed;
    expectJsonError(client.answers()[0], 431, "header_fields_too_large");
  });

  it("S12, S15: a chunked body over the limit gets its JSON 413, drained rather than reset, and the connection serves on", async () => {
    const { server, key } = await world({ maxBodyBytes: 64 * 1024 });
    const r = await start({ server });
    const client = rawClient(r.port);
    await client.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    );
    // 2 MiB in 64 KiB chunks, 32 times the limit, sent whatever the server answers meanwhile.
    const chunk = Buffer.concat([
      Buffer.from("10000\r\n"),
      Buffer.alloc(0x10000, 0x20),
      Buffer.from("\r\n"),
    ]);
    for (let i = 0; i < 32; i++) {
      await client.write(chunk);
    }
    await client.write("0\r\n\r\n");
    const [tooLarge] = await client.answered(1);
    expectJsonError(tooLarge, 413, "payload_too_large", false);
    // The same connection answers the next request: nothing was cut, no EPIPE, no reset.
    await client.write(ping(key));
    const answers = await client.answered(2);
    expect(answers[1]?.status).toBe(200);
    expect(client.error()).toBeUndefined();
    expect(client.socket.destroyed).toBe(false);
  });

  it("S12, S15: a body declared larger than maxDrainBytes is answered 413 and the connection closed", async () => {
    const { server, key } = await world();
    const r = await start({ server, maxDrainBytes: 1024 * 1024 });
    const client = rawClient(r.port);
    await client.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n`,
    );
    await client.closed;
    expectJsonError(client.answers()[0], 413, "payload_too_large");
  });

  it("S15: connections past maxConnections are answered a JSON 503 with Retry-After; one freed is one more served", async () => {
    const { server, key } = await world();
    const r = await start({ server, maxConnections: 3 });
    const held = [rawClient(r.port), rawClient(r.port), rawClient(r.port)];
    await Promise.all(held.map((c) => c.connected));
    expect(await until(() => r.stats().openConnections === 3)).toBe(true);

    const refused = rawClient(r.port);
    await refused.write(ping(key)).catch(() => {});
    await refused.closed;
    const body = expectJsonError(refused.answers()[0], 503, "service_unavailable");
    expect(body.error.message).toContain("3");
    expect(refused.answers()[0]?.headers["retry-after"]).toBe("1");
    expect(refused.answers()).toHaveLength(1); // the request it sent was not handled
    expect(r.stats()).toMatchObject({ openConnections: 3, refusedConnections: 1, requests: 0 });

    held[0]?.socket.destroy();
    expect(await until(() => r.stats().openConnections === 2)).toBe(true);
    const served = rawClient(r.port);
    await served.write(ping(key));
    const [answer] = await served.answered(1);
    expect(answer?.status).toBe(200);
  });

  it("S15: a client that resets while its key is looked up leaves no handler pending", async () => {
    let entered: () => void = () => {};
    const lookingUp = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // A store whose key lookup waits for the test, as a database's round trip would.
    const base = createMemoryStore();
    const store = new Proxy(base, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (prop !== "findCaller" || typeof value !== "function") {
          return typeof value === "function" ? value.bind(target) : value;
        }
        return async (...args: unknown[]) => {
          entered();
          await gate;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const { server, key } = await world({ store });
    const r = await start({ server });
    const client = rawClient(r.port);
    await client.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"prompt":"x"`,
    );
    await lookingUp;
    client.socket.resetAndDestroy();
    // The server sees the reset (its socket closes) while the key is still being looked up...
    expect(await until(() => r.stats().openConnections === 0)).toBe(true);
    expect(r.stats()).toMatchObject({ requests: 1, activeRequests: 1 });
    // ...and once the lookup is done, the handler finds the body unreadable and settles.
    release();
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
  });

  it("S15: a burst of clients resetting mid-request leaves no handler pending", async () => {
    const { server, key } = await world();
    const r = await start({ server });
    const clients = Array.from({ length: 100 }, () => rawClient(r.port));
    await Promise.all(
      clients.map(async (c) => {
        await c.write(
          `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"prompt":"x"`,
        );
        // Wait until the server has started this request's handler, then reset.
        await until(() => r.stats().requests > 0);
        c.socket.resetAndDestroy();
      }),
    );
    expect(await until(() => r.stats().openConnections === 0)).toBe(true);
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
    expect(r.stats().requests).toBeGreaterThan(0);
  });

  it("S15: each bound must be a positive whole number, and headers cannot be given longer than the whole request", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(start({ maxConnections: bad })).rejects.toThrow(
        /maxConnections must be a positive whole number/,
      );
      await expect(start({ headersTimeoutMs: bad })).rejects.toThrow(RangeError);
    }
    await expect(start({ headersTimeoutMs: 5000, requestTimeoutMs: 1000 })).rejects.toThrow(
      /must not be longer than requestTimeoutMs/,
    );
    // One timeout alone moves the other default out of its way.
    const short = await start({ requestTimeoutMs: 500 });
    expect([short.httpServer.headersTimeout, short.httpServer.requestTimeout]).toEqual([500, 500]);
    const long = await start({ headersTimeoutMs: 60_000 });
    expect([long.httpServer.headersTimeout, long.httpServer.requestTimeout]).toEqual([
      60_000, 60_000,
    ]);
    const defaults = await start();
    expect([defaults.httpServer.headersTimeout, defaults.httpServer.requestTimeout]).toEqual([
      10_000, 30_000,
    ]);
  });

  it("S15: a body of 200,000 bad ids is answered with a small 400 while another client's pings are served", async () => {
    // A limit above the default, as a server may set it: the shape scan, not the size, refuses the body.
    const { server, key } = await world({ maxBodyBytes: 1024 * 1024 });
    const r = await start({ server });
    const body = JSON.stringify({
      prompt: "x",
      generationType: "image-to-image",
      inputAssetIds: Array(200_000).fill(0),
    });
    expect(body.length).toBeLessThan(1024 * 1024);
    const big = rawClient(r.port);
    const pinger = rawClient(r.port);
    await pinger.connected;
    await big.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    // Pings one after the other on their own connection, for as long as the big request is in flight.
    let pings = 0;
    do {
      await pinger.write(ping(key));
      const answers = await pinger.answered(pings + 1);
      expect(answers[pings]?.status).toBe(200);
      pings++;
    } while (big.answers().length === 0 && !big.socket.destroyed && pings < 200);
    const [answer] = await big.answered(1);
    const error = expectJsonError(answer, 400, "invalid_request", false);
    expect(answer?.body.length).toBeLessThanOrEqual(32 * 1024);
    expect(error.error.message.length).toBeLessThan(500);
    // Refused by one scan of the text before it is parsed (S15): 200,000 values is no request.
    expect((error.error as { issues?: unknown }).issues).toEqual([
      { path: "", code: "too_complex", message: expect.stringContaining("more than 10000 values") },
    ]);
    expect(pings).toBeGreaterThan(0);
  }, 60_000);
});

describe("serve(): HEAD (S12)", () => {
  it("S12: HEAD /openapi.json over HTTP answers the GET's status and Content-Length, and no body", async () => {
    const r = await start({ server: createReferenceServer() });
    const base = `http://127.0.0.1:${r.port}/openapi.json`;
    const get = await fetch(base);
    const head = await fetch(base, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const length = Buffer.byteLength(await get.text());
    expect(length).toBeGreaterThan(1000);
    expect(head.headers.get("content-length")).toBe(String(length));
    expect(get.headers.get("content-length")).toBe(String(length));
    expect(head.headers.get("request-id")).toMatch(/^req_/);
  });
});
