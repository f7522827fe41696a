/**
 * A fetch handler whose promise rejects gets no answer over a socket (S12): the connection is
 * closed with nothing written, as when a server goes away mid-request, never a 500 that would tell
 * the client its request failed when its work may be done. The server goes on serving.
 */
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { createReferenceServer } from "../../src/server/index.js";
import { rawClient, start, until } from "./helpers.js";

/** A request with node:http: its answer's status, or the client's error code when none came. */
function outcome(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status?: number; error?: string }>((resolve) => {
    const req = httpRequest(
      url,
      { method: init.method ?? "GET", headers: init.headers ?? {}, agent: false },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(init.body);
  });
}

describe("serve(): a fetch that rejects (S12)", () => {
  it("S12: a request carried out in full whose fetch then rejects gets no answer, only a closed connection; the next connection is served", async () => {
    const server = createReferenceServer();
    const { userId } = await server.admin.createUser({ credits: 1000 });
    const { key } = await server.admin.createApiKey(userId);
    // A wrapper that carries the generation out, then loses its answer on purpose.
    const losing = {
      fetch: async (request: Request) => {
        const response = await server.fetch(request);
        if (new URL(request.url).pathname === "/api/generations") {
          await response.text();
          throw new Error("the answer is lost");
        }
        return response;
      },
    };
    const r = await start({ server: losing });
    const generation = JSON.stringify({
      prompt: "a fox",
      modelId: "beta2",
      imageCount: 1,
      idempotencyKey: "lost-1",
    });
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };

    const lost = await outcome(`${r.url}/api/generations`, {
      method: "POST",
      headers,
      body: generation,
    });
    expect(lost).toEqual({ error: "ECONNRESET" }); // node:http's "socket hang up"
    expect(await server.admin.balance(userId)).toBeLessThan(1000); // the work was done

    // Byte for byte: nothing at all was written before the close, no 500.
    const raw = rawClient(r.port);
    await raw.write(
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${generation.length}\r\n\r\n${generation}`,
    );
    await raw.closed;
    expect(raw.received().length).toBe(0);

    // The next connection is served as usual.
    expect(await outcome(`${r.url}/api/ping`, { headers })).toEqual({ status: 200 });
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
  });

  it("S12: a fetch that throws or rejects at once is a closed connection too, for each of several requests", async () => {
    for (const fetch of [
      (): Response => {
        throw new Error("boom");
      },
      async (): Promise<Response> => Promise.reject(new Error("boom")),
    ]) {
      const r = await start({ server: { fetch } });
      for (let i = 0; i < 3; i++) {
        const client = rawClient(r.port);
        await client.write("GET /x HTTP/1.1\r\nHost: t\r\n\r\n");
        await client.closed;
        expect(client.received().length).toBe(0);
      }
      expect(r.stats()).toMatchObject({ requests: 3, activeRequests: 0 });
    }
  });
});
