/**
 * What Node would answer itself, answered by serve() as the service (S12): a request without Host,
 * an unknown expectation, CONNECT, and `Expect: 100-continue` (the body asked for only when it is
 * read, so an over-limit body is refused before `100 Continue`). Raw sockets, byte for byte.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/server/body.js";
import { createReferenceServer } from "../../src/server/index.js";
import { expectJsonError, rawClient, start } from "./helpers.js";

async function world() {
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  return { server, key, userId };
}

/** A fetch handler that is not a reference server, reading the body only when `/read` is asked. */
async function reader(request: Request): Promise<Response> {
  const read = new URL(request.url).pathname === "/read";
  const length = read ? (await request.text()).length : null;
  const text = JSON.stringify({ length });
  // A Content-Length, so a raw client knows when the whole answer has arrived.
  return new Response(text, {
    status: 200,
    headers: { "content-type": "application/json", "content-length": String(text.length) },
  });
}

/** Sends bytes and waits for the server to close the connection; answers what came back. */
async function exchange(port: number, bytes: string) {
  const client = rawClient(port);
  await client.write(bytes).catch(() => {});
  await client.closed;
  return client;
}

describe("serve(): Node's own answers are the service's (S12)", async () => {
  const { server, key, userId } = await world();
  const handlers = [
    ["a reference server", server],
    ["any fetch handler", { fetch: reader }],
  ] as const;

  for (const [name, handler] of handlers) {
    it(`S12: HTTP/1.1 without Host, or with two, is a JSON 400 with a Request-Id (${name})`, async () => {
      const r = await start({ server: handler });
      for (const request of [
        "GET /api/ping HTTP/1.1\r\n\r\n",
        "GET /api/ping HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
      ]) {
        const client = await exchange(r.port, request);
        const body = expectJsonError(client.answers()[0], 400, "bad_request");
        expect(body.error.message).toContain("Host");
        expect(client.answers()).toHaveLength(1);
      }
    });

    it(`S12: Expect other than 100-continue is a JSON 417 with a Request-Id (${name})`, async () => {
      const r = await start({ server: handler });
      const client = await exchange(
        r.port,
        "GET /api/ping HTTP/1.1\r\nHost: t\r\nExpect: foo\r\n\r\n",
      );
      const body = expectJsonError(client.answers()[0], 417, "expectation_failed");
      expect(body.error.message).toContain("100-continue");
    });

    it(`S12: CONNECT is a JSON 405 with Allow and a Request-Id, not a closed connection (${name})`, async () => {
      const r = await start({ server: handler });
      const client = await exchange(
        r.port,
        "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
      );
      expectJsonError(client.answers()[0], 405, "method_not_allowed");
      expect(client.answers()[0]?.headers.allow).toBe("GET, HEAD, POST");
    });
  }

  it("S12: a request target that makes no URL is a JSON 400 with a Request-Id, and nothing is handled", async () => {
    const r = await start({ server });
    const client = await exchange(r.port, "GET /api\\ping HTTP/1.1\r\nHost: t\r\n\r\n");
    expectJsonError(client.answers()[0], 400, "bad_request");
    expect(client.answers()).toHaveLength(1);
    expect(r.stats().requests).toBe(0);
  });

  it("S12: HTTP/1.0 without Host is served as usual", async () => {
    const r = await start({ server });
    const client = await exchange(
      r.port,
      `GET /api/ping HTTP/1.0\r\nAuthorization: Bearer ${key}\r\n\r\n`,
    );
    expect(client.answers()[0]?.status).toBe(200);
  });

  it("S12: Expect: 100-continue with a Content-Length over the limit is a JSON 413 before any 100 Continue", async () => {
    const r = await start({ server });
    const client = await exchange(
      r.port,
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${DEFAULT_MAX_BODY_BYTES + 1}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(client.received().toString("latin1")).not.toContain("100 Continue");
    expectJsonError(client.answers()[0], 413, "payload_too_large");
    expect(client.answers()).toHaveLength(1);
  });

  it("S12: Expect: 100-continue with a wrong key is a JSON 401 before any 100 Continue", async () => {
    const r = await start({ server });
    const client = await exchange(
      r.port,
      "POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ck_test_not_a_real_key_000000\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\n\r\n",
    );
    expect(client.received().toString("latin1")).not.toContain("100 Continue");
    expectJsonError(client.answers()[0], 401, "invalid_api_key");
  });

  it("S12: Expect: 100-continue with a body the server reads gets 100 Continue, then its answer", async () => {
    const r = await start({ server });
    const body = JSON.stringify({ prompt: "a fox", modelId: "beta2" });
    const client = rawClient(r.port);
    await client.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    const [interim] = await client.answered(1);
    expect(interim?.status).toBe(100);
    await client.write(body);
    const answers = await client.answered(2);
    expect(answers[1]?.status).toBe(202);
    expect(await server.admin.balance(userId)).toBeLessThan(1000);
  });

  it("S12: any fetch handler: 100 Continue is sent when it reads the body, never when it answers without", async () => {
    const r = await start({ server: { fetch: reader } });
    const unread = await exchange(
      r.port,
      "POST /skip HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
    );
    expect(unread.received().toString("latin1")).not.toContain("100 Continue");
    expect(unread.answers()[0]?.status).toBe(200);

    const read = rawClient(r.port);
    await read.write(
      "POST /read HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n",
    );
    const [interim] = await read.answered(1);
    expect(interim?.status).toBe(100);
    await read.write("hello");
    const answers = await read.answered(2);
    expect(answers[1]?.status).toBe(200);
    expect(JSON.parse(answers[1]?.body ?? "{}")).toEqual({ length: 5 });
  });
});
