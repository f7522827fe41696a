/**
 * The admin HTTP API end to end through `server.fetch`: every route, the token (never an API key,
 * never accepted on the service's endpoints), unknown ids, bad bodies, methods, the store down,
 * and its OpenAPI document.
 */
import { describe, expect, it, vi } from "vitest";
import { constantTimeEqual } from "../../src/server/adminToken.js";
import { ADMIN_ERRORS } from "../../src/server/errors.js";
import {
  createReferenceServer,
  type ReferenceServer,
  StoreUnavailableError,
} from "../../src/server/index.js";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { BASE, errorOf, makeServer, makeStore } from "../server/helpers.js";

/** Every text the server hashes (keys, and admin tokens as presented and as configured). */
const { hashed } = vi.hoisted(() => ({ hashed: [] as string[] }));
vi.mock("../../src/server/auth.js", async (importOriginal) => {
  const auth = await importOriginal<typeof import("../../src/server/auth.js")>();
  return {
    ...auth,
    hashApiKey: (text: string) => {
      hashed.push(text);
      return auth.hashApiKey(text);
    },
  };
});

const TOKEN = "admin-token-for-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

type Call = { method?: string; body?: unknown; headers?: Record<string, string> };

/** A request to a server: JSON bodies get their media type unless `headers` says otherwise. */
function call(
  server: ReferenceServer,
  path: string,
  { method = "GET", body, headers = ADMIN }: Call = {},
) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === "string" ? body : JSON.stringify(body);
    init.headers = { "content-type": "application/json", ...headers };
  }
  return server.fetch(new Request(BASE + path, init));
}

async function adminServer() {
  return makeServer({ adminToken: TOKEN });
}

describe("the admin API is off without a token (S12)", () => {
  it("S12: every /admin path is 404 not_found, like any unknown route, whatever the credentials", async () => {
    const server = await makeServer();
    for (const [path, method] of [
      ["/admin/users", "POST"],
      ["/admin/users/usr_x", "GET"],
      ["/admin/openapi.json", "GET"],
      ["/admin", "GET"],
    ] as const) {
      const res = await call(server, path, { method, headers: ADMIN });
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).code).toBe("not_found");
    }
  });
});

describe("the admin token and API keys do not cross (S1)", () => {
  it("S1: no token is 401 missing_admin_token with a Bearer challenge; a wrong token is 401 invalid_admin_token", async () => {
    const server = await adminServer();
    for (const headers of [
      {},
      { authorization: `Basic ${btoa(`admin:${TOKEN}`)}` },
      { authorization: TOKEN },
    ]) {
      const res = await call(server, "/admin/users", {
        method: "POST",
        body: { credits: 1 },
        headers,
      });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="admin"');
      const error = await errorOf(res);
      expect(error.code).toBe("missing_admin_token");
      expect(error.requestId).toBe(res.headers.get("request-id"));
    }
    for (const token of [
      `${TOKEN}x`,
      TOKEN.slice(0, -1),
      "a",
      TOKEN.toUpperCase(),
      `${TOKEN} ${TOKEN}`,
    ]) {
      const res = await call(server, "/admin/users/usr_x", {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status, token).toBe(401);
      expect((await errorOf(res)).code).toBe("invalid_admin_token");
    }
    // The scheme is case-insensitive, the token is not.
    expect(
      (await call(server, "/admin/openapi.json", { headers: { authorization: `bEaReR ${TOKEN}` } }))
        .status,
    ).toBe(200);
  });

  it("S1: an API key gets 401 under /admin/ (never echoed), and the admin token gets 401 on every service endpoint", async () => {
    const server = await adminServer();
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    const asKey = { authorization: `Bearer ${key}` };
    expect((await call(server, "/api/ping", { headers: asKey })).status).toBe(200);

    for (const [path, method] of [
      [`/admin/users/${userId}`, "GET"],
      [`/admin/users/${userId}/grants`, "POST"],
      ["/admin/openapi.json", "GET"],
    ] as const) {
      const res = await call(server, path, {
        method,
        headers: asKey,
        ...(method === "POST" ? { body: { credits: 5 } } : {}),
      });
      expect(res.status, path).toBe(401);
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe("invalid_admin_token");
      expect(text).not.toContain(key.slice(8));
    }
    expect(await server.admin.balance(userId)).toBe(100);

    for (const [path, method] of [
      ["/api/ping", "GET"],
      ["/api/query/credits", "GET"],
      ["/api/pricing/quote", "POST"],
      ["/api/generations", "POST"],
    ] as const) {
      const body = method === "POST" ? { kind: "image", modelId: "beta" } : undefined;
      const res = await call(server, path, { method, headers: ADMIN, ...(body ? { body } : {}) });
      expect(res.status, path).toBe(401);
      const text = await res.text();
      expect(JSON.parse(text).error.code).toBe("invalid_api_key");
      expect(text).not.toContain(TOKEN);
    }
  });

  it("S1: the token is compared as SHA-256 digests in constant time, never as text", async () => {
    hashed.length = 0;
    const server = createReferenceServer({ store: await makeStore(), adminToken: TOKEN });
    expect(
      (await call(server, "/admin/openapi.json", { headers: { authorization: "Bearer a-guess" } }))
        .status,
    ).toBe(401);
    expect((await call(server, "/admin/openapi.json")).status).toBe(200);
    // Both the presented token and the configured one went through the hash; the configured one once.
    expect(hashed.filter((t) => t === "a-guess")).toHaveLength(1);
    expect(hashed.filter((t) => t === TOKEN)).toHaveLength(2); // once as the expected digest, once as presented

    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abd", "abc")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });

  it("S1: a bad admin token is refused when the server is made, without echoing it", () => {
    for (const token of [
      "",
      "has space",
      "tab\there",
      "ck_test_looks_like_a_key_0000",
      "CK_admin",
      "é-accent",
      "x".repeat(257),
    ]) {
      let error: unknown;
      try {
        createReferenceServer({ adminToken: token });
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(token)).toBeInstanceOf(TypeError);
      if (token.length > 3) {
        expect((error as Error).message).not.toContain(token);
      }
    }
    expect(() => createReferenceServer({ adminToken: 42 as unknown as string })).toThrow(TypeError);
    expect(() => createReferenceServer({ adminToken: "t" })).toThrow(TypeError);
    expect(() => createReferenceServer({ adminToken: "x".repeat(16) })).not.toThrow();
    expect(() => createReferenceServer({ adminToken: "x".repeat(256) })).not.toThrow();
  });
});

describe("every admin route (S2, S6, S13)", () => {
  it("S13: users, keys, assets, multiplier, grants, a generation, jobs, tasks, refunds and the ledger over HTTP", async () => {
    const server = await adminServer();

    const created = await call(server, "/admin/users", {
      method: "POST",
      body: { credits: 500, multiplier: "1.150" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get("request-id")).toMatch(/^req_/);
    const { userId } = (await created.json()) as { userId: string };
    expect(userId).toMatch(/^usr_/);

    const user = await call(server, `/admin/users/${userId}`);
    expect(user.status).toBe(200);
    expect(await user.json()).toEqual({ userId, balance: 500, multiplier: "1.15" });

    // A key is the one answer that carries a key, whole, once.
    const keyRes = await call(server, `/admin/users/${userId}/api-keys`, { method: "POST" });
    expect(keyRes.status).toBe(201);
    expect(keyRes.headers.get("cache-control")).toBe("no-store");
    const { apiKeyId, key } = (await keyRes.json()) as { apiKeyId: string; key: string };
    expect(apiKeyId).toMatch(/^apk_/);
    expect(key).toMatch(/^ck_test_[A-Za-z0-9_-]{32}$/);
    const live = await call(server, `/admin/users/${userId}/api-keys`, {
      method: "POST",
      body: { mode: "live" },
    });
    expect(((await live.json()) as { key: string }).key).toMatch(/^ck_live_/);
    const withEmptyObject = await call(server, `/admin/users/${userId}/api-keys`, {
      method: "POST",
      body: {},
    });
    expect(((await withEmptyObject.json()) as { key: string }).key).toMatch(/^ck_test_/);

    const assetRes = await call(server, `/admin/users/${userId}/assets`, { method: "POST" });
    expect(assetRes.status).toBe(201);
    const { assetId } = (await assetRes.json()) as { assetId: string };
    expect(assetId).toMatch(/^ast_/);

    const multiplier = await call(server, `/admin/users/${userId}/multiplier`, {
      method: "PUT",
      body: { multiplier: 2.3 },
    });
    expect(multiplier.status).toBe(200);
    expect(await multiplier.json()).toEqual({ userId, multiplier: "2.3" });

    const grant = await call(server, `/admin/users/${userId}/grants`, {
      method: "POST",
      body: { credits: 100 },
    });
    expect(grant.status).toBe(200);
    expect(await grant.json()).toEqual({ userId, balance: 600 });

    // The key works on the service: beta at 2.3 is 25 x 2.3 = 57.5, rounded half-up to 58 per image.
    const generation = await call(server, "/api/generations", {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: {
        prompt: "a fox",
        modelId: "beta",
        imageCount: 2,
        generationType: "image-to-image",
        inputAssetIds: [assetId],
      },
    });
    expect(generation.status).toBe(202);
    const accepted = (await generation.json()) as {
      batch: { taskId: string; results: { job: { id: string } }[] };
      billing: { totalCreditCost: number };
    };
    const [job0, job1] = accepted.batch.results.map((r) => r.job.id) as [string, string];
    const perJob = accepted.billing.totalCreditCost / 2;

    const task = await call(server, `/admin/tasks/${accepted.batch.taskId}`);
    expect(task.status).toBe(200);
    expect(await task.json()).toMatchObject({
      taskId: accepted.batch.taskId,
      userId,
      multiplier: "2.3",
      referenceCount: 1,
    });
    const job = await call(server, `/admin/jobs/${job1}`);
    expect(await job.json()).toEqual({
      jobId: job1,
      taskId: accepted.batch.taskId,
      status: "queued",
      credits: perJob,
    });

    const failed = await call(server, `/admin/jobs/${job0}/fail`, { method: "POST" });
    expect(failed.status).toBe(200);
    expect(await failed.json()).toEqual({ refundedCredits: perJob });
    const again = await call(server, `/admin/jobs/${job0}/fail`, { method: "POST", body: {} });
    expect(await again.json()).toEqual({ refundedCredits: 0 });

    const ledger = await call(server, `/admin/users/${userId}/ledger`);
    expect(ledger.status).toBe(200);
    const { entries } = (await ledger.json()) as {
      entries: { kind: string; credits: number; jobId?: string; at: string }[];
    };
    expect(entries.map((e) => [e.kind, e.credits])).toEqual([
      ["grant", 500],
      ["grant", 100],
      ["debit", perJob * 2],
      ["refund", perJob],
    ]);
    expect(entries[3]?.jobId).toBe(job0);
    expect(new Date(entries[0]?.at ?? "").toISOString()).toBe(entries[0]?.at);
    expect(await server.admin.balance(userId)).toBe(600 - perJob);

    const revoked = await call(server, `/admin/api-keys/${apiKeyId}/revoke`, { method: "POST" });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ apiKeyId });
    expect(
      (await call(server, "/api/ping", { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(401);
    // Revoking again is fine, as with admin.revokeApiKey.
    expect(
      (await call(server, `/admin/api-keys/${apiKeyId}/revoke`, { method: "POST" })).status,
    ).toBe(200);
  });

  it("S12: an unknown id is 404 with a code naming what is unknown, and a key-shaped id is not echoed", async () => {
    const server = await adminServer();
    const key = "ck_test_0123456789abcdef0123456789";
    for (const [path, method, code] of [
      ["/admin/users/usr_nobody", "GET", "unknown_user"],
      ["/admin/users/usr_nobody/ledger", "GET", "unknown_user"],
      ["/admin/users/usr_nobody/assets", "POST", "unknown_user"],
      ["/admin/users/usr_nobody/api-keys", "POST", "unknown_user"],
      [`/admin/users/${key}`, "GET", "unknown_user"],
      ["/admin/api-keys/apk_nothing/revoke", "POST", "unknown_api_key"],
      ["/admin/jobs/job_0000000000000000_0/fail", "POST", "unknown_job"],
      ["/admin/jobs/not-a-job/fail", "POST", "unknown_job"],
      ["/admin/jobs/job_0000000000000000_0", "GET", "unknown_job"],
      ["/admin/tasks/task_0000000000000000", "GET", "unknown_task"],
    ] as const) {
      const res = await call(server, path, { method });
      expect(res.status, path).toBe(404);
      const text = await res.text();
      expect(JSON.parse(text).error.code, path).toBe(code);
      expect(text).not.toContain(key.slice(8));
    }
    for (const [path, body] of [
      ["/admin/users/usr_nobody/grants", { credits: 1 }],
      ["/admin/users/usr_nobody/multiplier", { multiplier: "1" }],
    ] as const) {
      const res = await call(server, path, {
        method: path.endsWith("multiplier") ? "PUT" : "POST",
        body,
      });
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).code).toBe("unknown_user");
    }
    // Path ids are percent-decoded; a malformed escape names nothing.
    const { userId } = await server.admin.createUser({ credits: 3 });
    expect((await call(server, `/admin/users/${encodeURIComponent(userId)}`)).status).toBe(200);
    expect((await call(server, "/admin/users/%E0%A4%A")).status).toBe(404);
  });

  it("S12: bad bodies are 400 naming every field and the values allowed; nothing changes", async () => {
    const server = await adminServer();
    const { userId } = await server.admin.createUser({ credits: 10 });

    const bad = await call(server, "/admin/users", {
      method: "POST",
      body: { credits: -1, multiplier: "abc", extra: true },
    });
    expect(bad.status).toBe(400);
    const error = await errorOf(bad);
    expect(error.code).toBe("invalid_request");
    expect(error.param).toBe("extra");
    expect(error.issues).toEqual([
      {
        path: "extra",
        code: "unknown_field",
        message: '"extra" is not a field of this request; use credits, multiplier.',
      },
      {
        path: "credits",
        code: "invalid_credits",
        message: "credits must be a non-negative whole number; received -1.",
      },
      {
        path: "multiplier",
        code: "invalid_multiplier",
        message: expect.stringContaining(
          'multiplier must be a plain decimal from 0 to 1000 of at most 32 characters (such as "1.15")',
        ),
      },
    ]);

    const cases: [string, string, unknown, string, string][] = [
      ["/admin/users", "POST", {}, "credits", "required"],
      ["/admin/users", "POST", { credits: 1.5 }, "credits", "invalid_credits"],
      ["/admin/users", "POST", { credits: 2 ** 53 }, "credits", "credits_too_large"],
      ["/admin/users", "POST", [], "", "invalid_type"],
      ["/admin/users", "POST", "null", "", "invalid_type"],
      [`/admin/users/${userId}/grants`, "POST", { credits: "5" }, "credits", "invalid_credits"],
      [
        `/admin/users/${userId}/grants`,
        "POST",
        { credits: Number.MAX_SAFE_INTEGER },
        "credits",
        "credits_too_large",
      ],
      [`/admin/users/${userId}/multiplier`, "PUT", {}, "multiplier", "required"],
      [
        `/admin/users/${userId}/multiplier`,
        "PUT",
        { multiplier: -1 },
        "multiplier",
        "invalid_multiplier",
      ],
      [`/admin/users/${userId}/api-keys`, "POST", { mode: "prod" }, "mode", "invalid_mode"],
      [
        `/admin/users/${userId}/assets`,
        "POST",
        { assetId: "ast_mine" },
        "assetId",
        "unknown_field",
      ],
    ];
    for (const [path, method, body, param, code] of cases) {
      const res = await call(server, path, { method, body });
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      const e = await errorOf(res);
      expect(e.code).toBe("invalid_request");
      expect(e.param).toBe(param);
      expect(
        (e.issues?.[0] as { code?: string } | undefined)?.code,
        `${path} ${JSON.stringify(body)}`,
      ).toBe(code);
    }
    const mode = await errorOf(
      await call(server, `/admin/users/${userId}/api-keys`, {
        method: "POST",
        body: { mode: "prod" },
      }),
    );
    expect((mode.issues?.[0] as { message?: string } | undefined)?.message).toBe(
      'mode must be "live" or "test"; received "prod".',
    );
    expect(await server.admin.balance(userId)).toBe(10);
    expect(await server.admin.user(userId)).toEqual({ userId, balance: 10, multiplier: "1" });
  });

  it("S12: the body reader's rules hold here too: 415 media type, 400 invalid JSON, 413 size", async () => {
    const server = createReferenceServer({
      store: await makeStore(),
      adminToken: TOKEN,
      maxBodyBytes: 64,
    });
    const { userId } = await server.admin.createUser({ credits: 10 });
    const post = (path: string, body: string, headers: Record<string, string>) =>
      server.fetch(
        new Request(BASE + path, { method: "POST", body, headers: { ...ADMIN, ...headers } }),
      );

    const noType = await post("/admin/users", '{"credits":1}', {});
    expect(noType.status).toBe(415);
    expect((await errorOf(noType)).code).toBe("unsupported_media_type");
    expect(
      (await post("/admin/users", '{"credits":1}', { "content-type": "text/plain" })).status,
    ).toBe(415);
    const notJson = await post("/admin/users", "{credits:1}", {
      "content-type": "application/json",
    });
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).code).toBe("invalid_json");
    const big = await post(
      "/admin/users",
      JSON.stringify({ credits: 1, multiplier: "1".padEnd(80, "0") }),
      {
        "content-type": "application/json",
      },
    );
    expect(big.status).toBe(413);
    expect((await errorOf(big)).code).toBe("payload_too_large");

    // A route whose body is optional takes an empty body whatever its media type; anything else must be JSON.
    const empty = (headers: Record<string, string>) =>
      server.fetch(
        new Request(`${BASE}/admin/users/${userId}/assets`, {
          method: "POST",
          headers: { ...ADMIN, ...headers },
        }),
      );
    expect((await empty({})).status).toBe(201);
    expect((await empty({ "content-type": "application/json" })).status).toBe(201);
    expect((await post(`/admin/users/${userId}/assets`, "", {})).status).toBe(201); // fetch sends text/plain
    expect(
      (await post(`/admin/users/${userId}/assets`, "{}", { "content-type": "text/plain" })).status,
    ).toBe(415);
    expect(
      (await post(`/admin/users/${userId}/assets`, "{}", { "content-type": "application/json" }))
        .status,
    ).toBe(201);
    expect(
      (
        await post(`/admin/users/${userId}/assets`, "x".repeat(100), {
          "content-type": "application/json",
        })
      ).status,
    ).toBe(413);
    expect(
      (await post(`/admin/users/${userId}/api-keys`, "[1]", { "content-type": "application/json" }))
        .status,
    ).toBe(400);
  });

  it("S12: an unknown admin path is 404 and a wrong method is 405 with Allow; HEAD answers like GET", async () => {
    const server = await adminServer();
    const { userId } = await server.admin.createUser({ credits: 10 });
    for (const path of [
      "/admin",
      "/admin/",
      "/admin/users/",
      `/admin/users/${userId}/`,
      "/admin/nothing",
      "/admin/users//ledger",
    ]) {
      const res = await call(server, path);
      expect(res.status, path).toBe(404);
      expect((await errorOf(res)).code).toBe("not_found");
    }
    for (const [path, method, allow] of [
      ["/admin/users", "GET", "POST"],
      [`/admin/users/${userId}`, "DELETE", "GET, HEAD"],
      [`/admin/users/${userId}/multiplier`, "POST", "PUT"],
      [`/admin/users/${userId}/ledger`, "POST", "GET, HEAD"],
      ["/admin/jobs/job_1_0/fail", "GET", "POST"],
      ["/admin/openapi.json", "POST", "GET, HEAD"],
    ] as const) {
      const res = await call(server, path, { method });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe(allow);
      expect((await errorOf(res)).code).toBe("method_not_allowed");
    }
    const head = await call(server, `/admin/users/${userId}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("S14: with the store unreachable an admin route answers 503 with Retry-After, and the error is logged", async () => {
    const base = await makeStore();
    let down = false;
    const store = new Proxy(base, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function") {
          return value;
        }
        return async (...args: unknown[]) => {
          if (down) {
            throw new StoreUnavailableError("down", { retryAfterMs: 2000 });
          }
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    });
    const logs: unknown[] = [];
    const server = createReferenceServer({ store, adminToken: TOKEN, log: (e) => logs.push(e) });
    down = true;
    const res = await call(server, "/admin/users", { method: "POST", body: { credits: 5 } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    expect((await errorOf(res)).code).toBe("service_unavailable");
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain(TOKEN);
  });
});

describe("the admin OpenAPI document (S12)", () => {
  it("S12: GET /admin/openapi.json (behind the token) is createAdminOpenApiDocument(), listing every route and code", async () => {
    const server = await adminServer();
    const res = await call(server, "/admin/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, unknown>>;
      info: { license: { name: string } };
      servers: unknown[];
    };
    expect(doc).toEqual(JSON.parse(JSON.stringify(createAdminOpenApiDocument())));
    expect(doc.info.license.name).toBe("MIT");
    expect(doc.servers.length).toBeGreaterThan(0);
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    expect(routes.sort()).toEqual(
      [
        "POST /admin/users",
        "GET /admin/users/{userId}",
        "POST /admin/users/{userId}/api-keys",
        "POST /admin/users/{userId}/assets",
        "PUT /admin/users/{userId}/multiplier",
        "POST /admin/users/{userId}/grants",
        "GET /admin/users/{userId}/ledger",
        "POST /admin/api-keys/{apiKeyId}/revoke",
        "GET /admin/jobs/{jobId}",
        "POST /admin/jobs/{jobId}/fail",
        "GET /admin/tasks/{taskId}",
        "POST /admin/faults",
        "GET /admin/faults",
        "DELETE /admin/faults",
        "DELETE /admin/faults/{faultId}",
        "GET /admin/requests",
        "GET /admin/openapi.json",
        "POST /admin/reset",
        "GET /admin/clock",
        "POST /admin/clock",
      ].sort(),
    );
    const codes = JSON.stringify(doc);
    for (const code of Object.keys(ADMIN_ERRORS)) {
      expect(codes).toContain(`"${code}"`);
    }
  });
});
