import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import { makeServer } from "./helpers.js";

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start() {
  const server = await makeServer();
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  const r = await serve({ port: 0, server, handleSignals: false });
  running.push(r);
  return { server, userId, key, r };
}

/** A raw HTTP/1.1 request, so that headers like Content-Length are exactly what the test says. */
function raw(url: string, method: string, headers: Record<string, string>, body?: string | Buffer) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    text: string;
  }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("serve() over real HTTP on 127.0.0.1", () => {
  it("S9, S10: ping and credits over HTTP, bound to 127.0.0.1 on a free port", async () => {
    const { key, userId, r } = await start();
    expect(r.host).toBe("127.0.0.1");
    expect(r.url).toBe(`http://127.0.0.1:${r.port}`);
    const ping = await fetch(`${r.url}/api/ping`, { headers: { authorization: `bearer ${key}` } });
    expect(ping.status).toBe(200);
    expect(ping.headers.get("request-id")).toMatch(/^req_/);
    expect(await ping.json()).toMatchObject({ ok: true, authProvider: "api_key", userId });
    const credits = await fetch(`${r.url}/api/query/credits`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await credits.json()).toMatchObject({ creditBalance: 1000, currency: "credits" });
  });

  it("S3, S5: a generation over HTTP, then its replay with Idempotent-Replayed", async () => {
    const { key, r } = await start();
    const post = () =>
      fetch(`${r.url}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          prompt: "over the wire",
          modelId: "beta",
          imageCount: 2,
          idempotencyKey: "wire-1",
        }),
      });
    const [a, b] = await Promise.all([post(), post()]);
    const texts = [await a.text(), await b.text()];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(texts[0]).toBe(texts[1]);
    expect(
      [a.headers.get("idempotent-replayed"), b.headers.get("idempotent-replayed")].sort(),
    ).toEqual(["true", null].sort());
    expect(JSON.parse(texts[0] as string).billing).toEqual({
      totalCreditCost: 50,
      balanceAfterCredits: 950,
    });
  });

  it("S12: 404, 405 with Allow, 401, 415 and a declared 413 over HTTP", async () => {
    const { key, r } = await start();
    const auth = { authorization: `Bearer ${key}` };
    expect((await raw(`${r.url}/nope`, "GET", {})).status).toBe(404);
    const wrong = await raw(`${r.url}/api/ping`, "DELETE", {});
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe("GET, HEAD");
    expect((await raw(`${r.url}/api/ping`, "GET", {})).status).toBe(401);
    expect(
      (
        await raw(
          `${r.url}/api/generations`,
          "POST",
          { ...auth, "content-type": "text/plain" },
          "{}",
        )
      ).status,
    ).toBe(415);
    const big = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const tooLarge = await raw(
      `${r.url}/api/generations`,
      "POST",
      { ...auth, "content-type": "application/json" },
      big,
    );
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.text).error.code).toBe("payload_too_large");
    const chunked = await raw(
      `${r.url}/api/generations`,
      "POST",
      { ...auth, "content-type": "application/json", "transfer-encoding": "chunked" },
      big,
    );
    expect(chunked.status).toBe(413);
    const openapi = await raw(`${r.url}/openapi.json`, "GET", {});
    expect(JSON.parse(openapi.text).openapi).toBe("3.1.0");
  });

  it("close() stops the server: new connections are refused", async () => {
    const { r } = await start();
    await r.close();
    await expect(fetch(`${r.url}/openapi.json`)).rejects.toThrow();
  });
});
