/**
 * CORS (the `cors` option): off by default, a preflight from an allowed origin answered 204 with
 * what a browser needs, and every answer to an allowed origin readable by the page.
 */
import { describe, expect, it } from "vitest";
import { BASE, errorOf, makeServer, setup } from "./helpers.js";

const PAGE = "http://127.0.0.1:5173";

/** The names an answer's `Vary` lists. */
/** The `Access-Control-*` headers of an answer. */
const accessControl = (res: Response) => {
  const names: string[] = [];
  res.headers.forEach((_, name) => {
    if (name.startsWith("access-control-")) {
      names.push(name);
    }
  });
  return names;
};

const varied = (res: Response) =>
  (res.headers.get("vary") ?? "").split(",").map((name) => name.trim());

const preflight = (origin: string, path = "/api/generations") =>
  new Request(BASE + path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type",
    },
  });

describe("CORS", () => {
  it("is off by default: a preflight is 405 as before, and answers carry no Access-Control header", async () => {
    const s = await setup();
    const res = await s.server.fetch(preflight(PAGE));
    expect(res.status).toBe(405);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const ping = await s.get("/api/ping", { ...s.auth, origin: PAGE });
    expect(ping.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a preflight from an allowed origin with 204 and the origin, methods, headers and max-age", async () => {
    const server = await makeServer({ cors: [PAGE, "https://app.example"] });
    const res = await server.fetch(preflight(PAGE));
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(res.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")).toBe(
      "Authorization, Content-Type, Idempotency-Key, X-Retry-Count",
    );
    expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
    expect(varied(res)).toContain("Origin");
    expect(res.headers.get("request-id")).toMatch(/^req_/);
    // Another origin gets what it got without CORS.
    const other = await server.fetch(preflight("http://127.0.0.1:9999"));
    expect(other.status).toBe(405);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.headers.get("vary")).toBe("Origin");
  });

  it("adds Allow-Origin and Expose-Headers (Request-Id, Retry-After, ...) to every answer of an allowed origin, errors too", async () => {
    const s = await setup({ cors: [PAGE] });
    const ok = await s.get("/api/ping", { ...s.auth, origin: PAGE });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(PAGE);
    expect(ok.headers.get("vary")).toBe("Origin");
    const exposed = (ok.headers.get("access-control-expose-headers") ?? "").split(", ");
    for (const name of ["Request-Id", "Retry-After", "Idempotent-Replayed"]) {
      expect(exposed).toContain(name);
    }
    const denied = await s.get("/api/ping", { origin: PAGE });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe(PAGE);
    const notAllowed = await s.get("/api/ping", { ...s.auth, origin: "http://127.0.0.1:1" });
    expect(notAllowed.headers.get("access-control-allow-origin")).toBeNull();
  });

  it('"*" allows any origin, without Vary', async () => {
    const s = await setup({ cors: "*" });
    const res = await s.server.fetch(preflight("http://localhost:3000", "/api/ping"));
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(varied(res)).not.toContain("Origin");
    const ping = await s.get("/api/ping", { ...s.auth, origin: "http://localhost:3000" });
    expect(ping.headers.get("access-control-allow-origin")).toBe("*");
    // An OPTIONS that is not a preflight is answered as before.
    const plain = await s.server.fetch(
      new Request(`${BASE}/api/ping`, { method: "OPTIONS", headers: { origin: PAGE } }),
    );
    expect(plain.status).toBe(405);
  });

  it("S17: the admin API answers no preflight and carries no Access-Control header, whatever cors says", async () => {
    const token = "admin-token-for-cors-tests";
    const listed = await makeServer({ cors: [PAGE], adminToken: token });
    const server = await makeServer({ cors: "*", adminToken: token });
    for (const path of [
      "/admin/users",
      "/admin/openapi.json",
      "/admin/reset",
      "/admin/clock",
      "/admin/faults",
      "/admin/requests",
    ]) {
      for (const [name, each] of [
        ["*", server],
        ["a list", listed],
      ] as const) {
        const res = await each.fetch(preflight(PAGE, path));
        expect(res.status, `${path} with ${name}`).toBe(405);
        expect((await errorOf(res)).code).toBe("method_not_allowed");
        expect(accessControl(res), path).toEqual([]);
      }
    }
    const doc = await server.fetch(
      new Request(`${BASE}/admin/openapi.json`, {
        headers: { origin: PAGE, authorization: `Bearer ${token}` },
      }),
    );
    expect(doc.status).toBe(200);
    expect(accessControl(doc)).toEqual([]);
    // A page's wrong tokens are never sent: no wrong token is counted, and the right one still works.
    expect(
      (
        await server.fetch(
          new Request(`${BASE}/admin/openapi.json`, {
            headers: { authorization: `Bearer ${token}` },
          }),
        )
      ).status,
    ).toBe(200);
  });

  it("S12: without CORS, a preflight to the admin API is 405 like any method a path lacks, before the token", async () => {
    const server = await makeServer({ adminToken: "admin-token-for-cors-tests" });
    const res = await server.fetch(preflight(PAGE, "/admin/users"));
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect((await errorOf(res)).code).toBe("method_not_allowed");
  });

  it("refuses an option that is not an origin, naming it and the form", async () => {
    for (const bad of [
      [],
      ["127.0.0.1:5173"],
      ["http://127.0.0.1:5173/app"],
      ["ftp://x"],
      ["http://u:p@x"],
    ]) {
      await expect(makeServer({ cors: bad })).rejects.toThrow(
        /scheme:\/\/host\[:port\]|non-empty list/,
      );
    }
  });
});
