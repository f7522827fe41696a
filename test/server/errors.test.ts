import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ErrorBodySchema } from "../../scripts/openapi/schemas.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/server/body.js";
import type { LogEntry } from "../../src/server/index.js";
import { ORACLE_FIELDS } from "../oracle/seed.js";
import { BASE, errorOf, makeServer, makeStore, type Setup, setup, wrapStore } from "./helpers.js";

const raw = (
  s: Setup,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: BodyInit; key?: boolean } = {},
) =>
  s.server.fetch(
    new Request(BASE + path, {
      method: init.method ?? "POST",
      headers: { ...(init.key === false ? {} : s.auth), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body, duplex: "half" }),
    } as RequestInit),
  );

describe("errors and their order", () => {
  it("S12: unknown route is 404 before the key is looked at", async () => {
    const s = await setup();
    for (const path of [
      "/",
      "/api",
      "/api/ping/",
      "/api/generation",
      "/API/ping",
      "/api/query/credits/x",
    ]) {
      const res = await raw(s, path, { method: "GET", key: false });
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).code).toBe("not_found");
    }
    // the query string is not part of the route
    expect((await raw(s, "/api/ping?x=1", { method: "GET" })).status).toBe(200);
  });

  it("S12: wrong method is 405 with Allow, before the key", async () => {
    const s = await setup();
    const cases: [string, string, string][] = [
      ["GET", "/api/generations", "POST"],
      ["HEAD", "/api/generations", "POST"],
      ["PUT", "/api/pricing/quote", "POST"],
      ["POST", "/api/ping", "GET, HEAD"],
      ["DELETE", "/api/query/credits", "GET, HEAD"],
      ["OPTIONS", "/api/query/credits", "GET, HEAD"],
      ["POST", "/openapi.json", "GET, HEAD"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await raw(s, path, { method, key: false });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      if (method !== "HEAD") {
        expect((await errorOf(res)).code).toBe("method_not_allowed");
      } else {
        expect(await res.text()).toBe("");
      }
    }
  });

  it("S12: key (401) comes before media type (415), size (413) and JSON (400)", async () => {
    const s = await setup();
    const res = await raw(s, "/api/generations", {
      key: false,
      headers: { "content-type": "text/plain" },
      body: "x".repeat(2 << 20),
    });
    expect(res.status).toBe(401);
  });

  it("S12: media type (415) comes before size (413) and JSON; only application/json in UTF-8 is accepted", async () => {
    const s = await setup();
    const big = "x".repeat((1 << 20) + 1);
    for (const type of [
      undefined,
      "text/plain",
      "application/x-www-form-urlencoded",
      "application/json; charset=latin1",
      "application/jsonx",
    ]) {
      const headers: Record<string, string> = type === undefined ? {} : { "content-type": type };
      const res = await raw(s, "/api/generations", { headers, body: big });
      expect(res.status, type).toBe(415);
      expect((await errorOf(res)).code).toBe("unsupported_media_type");
    }
    for (const type of [
      "application/json",
      "Application/JSON; charset=UTF-8",
      'application/json;charset="utf-8"',
    ]) {
      const res = await raw(s, "/api/pricing/quote", {
        headers: { "content-type": type },
        body: '{"kind":"image","modelId":"beta"}',
      });
      expect(res.status, type).toBe(200);
    }
  });

  it("S12: a body over the default limit is 413 before parsing, by Content-Length and while reading the stream", async () => {
    const s = await setup();
    const json = { "content-type": "application/json" };
    const limit = DEFAULT_MAX_BODY_BYTES;
    // Invalid JSON, but too large: the size is checked first.
    const declared = await raw(s, "/api/generations", {
      headers: json,
      body: "{".repeat(limit + 1),
    });
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe("payload_too_large");
    // Exactly at the limit is read (and then judged as JSON).
    const atLimit = await raw(s, "/api/generations", {
      headers: json,
      body: `"${"x".repeat(limit - 2)}"`,
    });
    expect(atLimit.status).toBe(400);

    // A stream with no Content-Length that never ends: reading stops just past the limit.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      },
    });
    const streamed = await raw(s, "/api/generations", { headers: json, body: endless });
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(limit + 3 * 64 * 1024);

    // A Content-Length that understates the body does not get past the stream check.
    const small = await makeServer({ maxBodyBytes: 10 });
    const { userId } = await small.admin.createUser({ credits: 0 });
    const { key } = await small.admin.createApiKey(userId);
    const lying = await small.fetch(
      new Request(`${BASE}/api/pricing/quote`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "content-length": "5",
        },
        body: "{".repeat(11),
      }),
    );
    expect(lying.status).toBe(413);
  });

  it("S12: the limit is configurable", async () => {
    const server = await makeServer({ maxBodyBytes: 64 });
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    const post = (body: string) =>
      server.fetch(
        new Request(`${BASE}/api/pricing/quote`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body,
        }),
      );
    expect((await post('{"kind":"image","modelId":"beta"}')).status).toBe(200);
    expect((await post(`{"kind":"image","modelId":"beta","x":"${"y".repeat(64)}"}`)).status).toBe(
      413,
    );
  });

  it("S12: JSON (400 invalid_json) comes before request rules", async () => {
    const s = await setup();
    const utf8 = (text: string) => [...new TextEncoder().encode(text)];
    // The last: a valid generation but for one byte of invalid UTF-8 in its prompt, which a lenient
    // decoder would read as U+FFFD, and JSON.parse would then accept.
    const invalidInString = new Uint8Array([
      ...utf8('{"prompt":"'),
      0xff,
      ...utf8('","modelId":"beta2"}'),
    ]);
    for (const body of [
      "",
      "   ",
      "{",
      "{'a':1}",
      "[1,]",
      "nul",
      new Uint8Array([0x7b, 0xff, 0x7d]),
      invalidInString,
    ]) {
      const res = await raw(s, "/api/generations", {
        headers: { "content-type": "application/json" },
        body,
      });
      expect(res.status, String(body)).toBe(400);
      expect((await errorOf(res)).code).toBe("invalid_json");
    }
    // A UTF-8 byte-order mark is allowed.
    const bom = await raw(s, "/api/pricing/quote", {
      headers: { "content-type": "application/json" },
      body: `\uFEFF{"kind":"image","modelId":"beta"}`,
    });
    expect(bom.status).toBe(200);
  });

  it("S12: request rules (400) come before idempotency (409)", async () => {
    const s = await setup();
    await s.generate({ prompt: "p", idempotencyKey: "k" });
    const res = await s.generate({ prompt: "p", imageCount: 0, idempotencyKey: "k" });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe("invalid_request");
  });

  it("S12: idempotency (replay or 409) comes before assets (400) and balance (402)", async () => {
    const s = await setup({ credits: 18 });
    await s.generate({ prompt: "p", idempotencyKey: "k" });
    const body = {
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: ["nope"],
      imageCount: 4,
      idempotencyKey: "k",
    };
    const res = await s.generate(body);
    expect(res.status).toBe(409);
  });

  it("S12: assets (400 asset_not_found) come before balance (402)", async () => {
    const s = await setup({ credits: 0 });
    const res = await s.generate({
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: [s.assets[0], "nope"],
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatchObject({
      code: "asset_not_found",
      param: "inputAssetIds[1]",
    });
    const poor = await s.generate({
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: [s.assets[0]],
    });
    expect(poor.status).toBe(402);
  });

  it("S12: every response has a Request-Id header, and every failure its JSON envelope with the same id", async () => {
    const s = await setup();
    const responses = [
      await raw(s, "/nope", { method: "GET" }),
      await raw(s, "/api/ping", { method: "POST" }),
      await raw(s, "/api/ping", { method: "GET", key: false }),
      await raw(s, "/api/generations", { body: "{}" }),
      await raw(s, "/api/generations", {
        headers: { "content-type": "application/json" },
        body: "{",
      }),
      await s.generate({ prompt: "" }),
    ];
    const ids = new Set<string>();
    for (const res of responses) {
      const id = res.headers.get("request-id");
      expect(id).toMatch(/^req_[0-9a-f]{16}$/);
      ids.add(id as string);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const body = v.parse(ErrorBodySchema, await res.json());
      expect(body.error.requestId).toBe(id);
      expect(body.error.message.length).toBeGreaterThan(0);
    }
    for (const res of [
      await s.get("/api/ping"),
      await s.get("/openapi.json", {}),
      await s.generate({ prompt: "p" }),
    ]) {
      expect(res.headers.get("request-id")).toMatch(/^req_/);
      ids.add(res.headers.get("request-id") as string);
    }
    expect(ids.size).toBe(9);
  });

  it("S12: no input makes the server answer 500 or lose a credit", async () => {
    const s = await setup({ credits: 100_000 });
    const [a] = s.assets as [string];
    const value = fc.oneof(
      fc.constantFrom<unknown>(
        null,
        true,
        0,
        -1,
        1.5,
        4,
        15,
        "",
        " ",
        "1K",
        "4K",
        "auto",
        "high",
        "Auto",
        "21:9",
        "beta",
        a,
        "__proto__",
      ),
      fc.string(),
      fc.array(fc.constantFrom<unknown>(a, " ", "x", 1, null), { maxLength: 4 }),
    );
    const field = fc.constantFrom(...ORACLE_FIELDS, "cost", "__proto__", "constructor");
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.dictionary(field, value), fc.jsonValue()),
        fc.constantFrom("/api/generations", "/api/pricing/quote"),
        async (body, path) => {
          const before = await s.admin.balance(s.userId);
          const res = await s.post(path, JSON.stringify(body));
          expect([200, 202, 400, 402, 409]).toContain(res.status);
          const text = await res.text();
          expect(() => JSON.parse(text)).not.toThrow();
          const after = await s.admin.balance(s.userId);
          if (res.status === 202 && res.headers.get("idempotent-replayed") !== "true") {
            expect(before - after).toBe(JSON.parse(text).billing.totalCreditCost);
          } else {
            expect(after).toBe(before);
          }
        },
      ),
      { numRuns: 300 },
    );
    const ledger = await s.admin.ledger(s.userId);
    const debits = ledger.filter((e) => e.kind === "debit").reduce((sum, e) => sum + e.credits, 0);
    expect(await s.admin.balance(s.userId)).toBe(100_000 - debits);
  });

  it("S12: deeply nested or odd JSON is a 400, not a crash", async () => {
    const s = await setup();
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    for (const body of [
      deep,
      `{"prompt":${deep}}`,
      `{"inputAssetIds":${deep}}`,
      '{"__proto__":{"prompt":"x"}}',
      '"just a string"',
      "12",
      "null",
    ]) {
      const res = await s.post("/api/generations", body);
      expect(res.status).toBe(400);
    }
  });

  it("S12: an unexpected throw becomes a JSON 500 with a Request-Id, logged without the key or the body", async () => {
    const logs: LogEntry[] = [];
    const base = await makeStore();
    let failing = false;
    const store = wrapStore(base, {
      getUser: async (id) => {
        if (failing) {
          throw new Error("disk on fire");
        }
        return base.getUser(id);
      },
    });
    const server = await makeServer({ store, log: (e) => logs.push(e) });
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    failing = true;
    const res = await server.fetch(
      new Request(`${BASE}/api/query/credits`, { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text).error.code).toBe("internal_error");
    expect(JSON.parse(text).error.requestId).toBe(res.headers.get("request-id"));
    expect(text).not.toContain(key);
    expect(logs).toHaveLength(1);
    expect(logs[0]?.requestId).toBe(res.headers.get("request-id"));
    expect(logs[0]?.error.message).toBe("disk on fire");
    expect(JSON.stringify(logs)).not.toContain(key);
  });
});
