/**
 * The `onResponse` option of createReferenceServer: one call per answered request, through `fetch`
 * and through the Node binding alike, with method, path, status and request id and never a header
 * or a body; a hook that throws changes no answer. `imagegen-pricing serve --log` is built on it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import type { ResponseEvent } from "../../src/server/index.js";
import { BASE, makeServer } from "./helpers.js";

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe("onResponse", () => {
  it("S1: the path it is told is masked like the journal's: an API key split by slashes or the admin token split by dots never reaches serve --log, an ordinary path does", async () => {
    const events: ResponseEvent[] = [];
    const token = "adm_probe_token_0123456789abcdef";
    const server = await makeServer({ adminToken: token, onResponse: (e) => events.push(e) });
    for (const path of [
      "/api/ck_test_/Qx7mN2pL/9vR4tY8w/K3jH6fD1",
      "/api/adm_probe_.token_0123.456789abcd.ef",
      "/api/assets/ast_harbour_1/order-1042",
    ]) {
      expect((await server.fetch(new Request(`${BASE}${path}`))).status).toBe(404);
    }
    expect(events.map((e) => e.path)).toEqual([
      "/api/ck_test_/<hidden>",
      "/api/<hidden>",
      "/api/assets/ast_harbour_1/order-1042",
    ]);
  });

  it("S1, S9: is told of every request answered through fetch and through node:http, never its key or body", async () => {
    const events: ResponseEvent[] = [];
    const server = await makeServer({ onResponse: (event) => events.push(event) });
    const { userId } = await server.admin.createUser({ credits: 1000 });
    const { key } = await server.admin.createApiKey(userId);
    const auth = { authorization: `Bearer ${key}` };

    const ping = await server.fetch(new Request(`${BASE}/api/ping?x=1`, { headers: auth }));
    const missing = await server.fetch(
      new Request(`${BASE}/nothing`, { method: "POST", headers: auth, body: "{}" }),
    );
    const r = await serve({ port: 0, server, handleSignals: false });
    running.push(r);
    const quote = await fetch(`${r.url}/api/pricing/quote`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ kind: "image", modelId: "beta" }),
    });

    expect(events.map(({ method, path, status }) => [method, path, status])).toEqual([
      ["GET", "/api/ping", 200],
      ["POST", "/nothing", 404],
      ["POST", "/api/pricing/quote", 200],
    ]);
    expect(events.map((e) => e.requestId)).toEqual(
      [ping, missing, quote].map((res) => res.headers.get("request-id")),
    );
    for (const event of events) {
      expect(event.durationMs).toBeGreaterThanOrEqual(0);
      expect(Object.keys(event).sort()).toEqual([
        "durationMs",
        "method",
        "path",
        "requestId",
        "status",
      ]);
      expect(JSON.stringify(event)).not.toContain(key.slice(8));
    }
  });

  it("a hook that throws changes no answer", async () => {
    const server = await makeServer({
      onResponse: () => {
        throw new Error("a broken log");
      },
    });
    const res = await server.fetch(new Request(`${BASE}/openapi.json`));
    expect(res.status).toBe(200);
    expect(res.headers.get("request-id")).toMatch(/^req_/);
  });
});
