import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { expectJsonError, rawClient, start, until } from "./helpers.js";

/** A fetch handler that is not a reference server: it echoes what it received. */
async function echo(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const body = request.body === null ? null : await request.text();
  const headers = new Headers({ "content-type": "application/json", "x-echo": "yes" });
  headers.append("set-cookie", "a=1");
  headers.append("set-cookie", "b=2");
  return new Response(
    JSON.stringify({
      method: request.method,
      path: url.pathname,
      search: url.search,
      host: url.host,
      header: request.headers.get("x-test"),
      length: body?.length ?? null,
      start: body?.slice(0, 5) ?? null,
    }),
    { status: 201, statusText: "Made", headers },
  );
}

/** A request with node:http, so that repeated response headers can be read. */
function nodeRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer | string } = {},
) {
  return new Promise<{
    status: number;
    message: string;
    headers: Record<string, string | string[] | undefined>;
    text: string;
  }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: init.method ?? "GET", headers: init.headers ?? {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            message: res.statusMessage ?? "",
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(init.body);
  });
}

/** The globals as this file found them, before any serve() of its own. */
const { Request: FoundRequest, Response: FoundResponse } = globalThis;

describe("serve() with any fetch handler (no reference server)", () => {
  it("S12: the global Request and Response serve() installs are subclasses: instanceof the ones found still holds", async () => {
    let seen: unknown;
    const r = await start({
      server: {
        fetch: (request: Request) => {
          seen = request instanceof FoundRequest;
          return new Response("ok");
        },
      },
    });
    expect(await (await fetch(`${r.url}/x`)).text()).toBe("ok");
    expect(seen).toBe(true);
    expect(new Request("http://127.0.0.1/") instanceof FoundRequest).toBe(true);
    expect(new Response("x") instanceof FoundResponse).toBe(true);
    expect(await new Response("body").text()).toBe("body");
  });

  it("S12: method, path, query, Host, headers and a streamed body reach the handler; status, headers and body come back", async () => {
    const r = await start({ server: { fetch: echo } });
    const get = await nodeRequest(`${r.url}/some/path?q=1&r=2`, { headers: { "x-test": "hello" } });
    expect(get.status).toBe(201);
    // @hono/node-server writes the status's own reason phrase, not a Response's statusText.
    expect(get.message).toBe("Created");
    expect(get.headers["x-echo"]).toBe("yes");
    expect(get.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(JSON.parse(get.text)).toEqual({
      method: "GET",
      path: "/some/path",
      search: "?q=1&r=2",
      host: `127.0.0.1:${r.port}`,
      header: "hello",
      length: null,
      start: null,
    });

    // A 3 MiB chunked upload arrives whole.
    const body = Buffer.alloc(3 * 1024 * 1024, 0x61);
    const post = await nodeRequest(`${r.url}/upload`, {
      method: "POST",
      headers: { "transfer-encoding": "chunked" },
      body,
    });
    expect(JSON.parse(post.text)).toMatchObject({
      method: "POST",
      path: "/upload",
      length: body.length,
      start: "aaaaa",
    });
    expect(r.stats()).toMatchObject({ requests: 2, activeRequests: 0 });
  });

  it("S12: a streamed response body is written as it comes; HEAD gets the headers only", async () => {
    const r = await start({
      server: {
        fetch: () => {
          let i = 0;
          const stream = new ReadableStream<Uint8Array>({
            pull(controller) {
              if (i++ < 100) {
                controller.enqueue(new TextEncoder().encode(`${"x".repeat(1023)}\n`));
              } else {
                controller.close();
              }
            },
          });
          return new Response(stream, { headers: { "content-type": "text/plain" } });
        },
      },
    });
    const got = await nodeRequest(`${r.url}/stream`);
    expect(got.text.length).toBe(100 * 1024);
    const head = await nodeRequest(`${r.url}/stream`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
  });

  it("S12: a handler that returns no Response, or a header node:http refuses, is a JSON 500 with a Request-Id", async () => {
    for (const fetch of [
      () => "not a response" as unknown as Response,
      // A header value a web Response accepts and node:http refuses to write (a control character).
      () => new Response("x", { headers: { "x-name": "a\u0001b" } }),
    ]) {
      const r = await start({ server: { fetch } });
      const client = rawClient(r.port);
      await client.write("GET /x HTTP/1.1\r\nHost: t\r\n\r\n");
      const [answer] = await client.answered(1);
      expectJsonError(answer, 500, "internal_error");
    }
  });

  it("S15: a client that goes away aborts the request's signal and the handler settles", async () => {
    let aborted: () => void = () => {};
    const sawAbort = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    const r = await start({
      server: {
        fetch: (request) => {
          request.signal.addEventListener("abort", () => aborted());
          // A body that never ends on its own: only the client going away stops it.
          let cancelled = false;
          const stream = new ReadableStream<Uint8Array>({
            pull: (controller) =>
              new Promise((resolve) =>
                setTimeout(() => {
                  if (!cancelled) {
                    controller.enqueue(new Uint8Array(1024));
                  }
                  resolve();
                }, 5),
              ),
            cancel: () => {
              cancelled = true;
            },
          });
          return new Response(stream);
        },
      },
    });
    const client = rawClient(r.port);
    await client.write("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n");
    await until(() => client.received().length > 0);
    client.socket.destroy();
    await sawAbort;
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
  });

  it("S12, S15: the connection bounds hold for any fetch handler too", async () => {
    const r = await start({ server: { fetch: echo }, headersTimeoutMs: 200 });
    const slow = rawClient(r.port);
    await slow.write("GET / HTTP/1.1\r\n");
    await slow.closed;
    expectJsonError(slow.answers()[0], 408, "request_timeout");
    // Its own server, with the default headers timeout: a busy machine must not turn the 431 into a 408.
    const limited = await start({ server: { fetch: echo }, maxHeaderBytes: 1024 });
    const big = rawClient(limited.port);
    await big.write(`GET / HTTP/1.1\r\nX: ${"y".repeat(2048)}\r\n\r\n`);
    await big.closed;
    expectJsonError(big.answers()[0], 431, "header_fields_too_large");
  });
});
