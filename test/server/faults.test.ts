/**
 * Faults (S17): asked for through `server.admin` or `/admin/faults`, they fire on the service's
 * requests only, after the key is checked, as many times as asked, and move no credit except as
 * the request they answer would. A lost answer is the request carried out in full: `fetch`
 * rejects, a socket closes without a response, and a retry with the same key replays the task.
 */
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import {
  FAULT_KINDS,
  FAULT_LIMITS,
  FAULT_METHODS,
  FAULT_PATHS,
} from "../../src/server/controls.js";
import { AnswerLostError, type ReferenceServer } from "../../src/server/index.js";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { adminCodeOf, BASE, errorOf, makeServer, setup } from "./helpers.js";

const TOKEN = "admin-token-for-fault-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

/** An admin request through `server.fetch`. */
function adminCall(server: ReferenceServer, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { ...ADMIN };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
  }
  return server.fetch(
    new Request(BASE + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

describe("faults are off without an admin token (S17)", () => {
  it("S17: without an admin token the methods reject with controls_off and /admin/faults is 404", async () => {
    const s = await setup();
    expect(await adminCodeOf(s.admin.addFault({ kind: "internal" }))).toBe("controls_off");
    expect(await adminCodeOf(s.admin.faults())).toBe("controls_off");
    expect(await adminCodeOf(s.admin.requests())).toBe("controls_off");
    const res = await adminCall(s.server, "POST", "/admin/faults", { kind: "internal" });
    expect(res.status).toBe(404);
    expect((await s.get("/api/ping")).status).toBe(200);
  });
});

describe("the kinds of fault (S17)", () => {
  it("S17: unavailable is 503 service_unavailable with Retry-After (default 1), nothing charged, as many times as asked", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "unavailable", path: "/api/generations", times: 2 });
    await s.admin.addFault({ kind: "unavailable", path: "/api/ping", retryAfterMs: 7000 });
    for (let i = 0; i < 2; i++) {
      const res = await s.generate({ prompt: "a fox", idempotencyKey: "u-1" });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("1");
      const error = await errorOf(res);
      expect(error.code).toBe("service_unavailable");
      expect(error.requestId).toBe(res.headers.get("request-id"));
    }
    expect(await s.admin.balance(s.userId)).toBe(1000);
    expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(0);
    const ping = await s.get("/api/ping");
    expect(ping.status).toBe(503);
    expect(ping.headers.get("retry-after")).toBe("7");
    // Spent: the next requests are answered as usual.
    expect((await s.generate({ prompt: "a fox", idempotencyKey: "u-1" })).status).toBe(202);
    expect((await s.get("/api/ping")).status).toBe(200);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 18);
    expect(await s.admin.faults()).toEqual([]);
  });

  it("S17: internal is 500 internal_error in the service's error shape, nothing charged", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "internal", method: "POST", path: "/api/generations" });
    const res = await s.generate({ prompt: "a fox", idempotencyKey: "i-1" });
    expect(res.status).toBe(500);
    const error = await errorOf(res);
    expect(error.code).toBe("internal_error");
    expect(Object.keys(error)).toEqual(["message", "code", "requestId"]);
    expect(await s.admin.balance(s.userId)).toBe(1000);
    // The same key afterwards is a new task: nothing was stored under it.
    const again = await s.generate({ prompt: "a fox", idempotencyKey: "i-1" });
    expect(again.status).toBe(202);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(await s.admin.balance(s.userId)).toBe(1000 - 18);
  });

  it("S17: delay answers the normal answer (the request carried out once), then the fault is spent", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "delay", delayMs: 50, path: "/api/generations" });
    const res = await s.generate({ prompt: "a fox", idempotencyKey: "d-1" });
    expect(res.status).toBe(202);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 18);
    expect(await s.admin.faults()).toEqual([]);
  });

  it("S17, S5: lose_answer carries the request out in full and fetch rejects with AnswerLostError; a retry replays it, charged once", async () => {
    const s = await setup({ adminToken: TOKEN });
    const { faultId } = await s.admin.addFault({ kind: "lose_answer", path: "/api/generations" });
    expect(faultId).toMatch(/^flt_/);
    const body = { prompt: "a fox", modelId: "beta2", imageCount: 2, idempotencyKey: "lost-1" };
    const lost = await s.generate(body).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(AnswerLostError);
    expect((lost as Error).name).toBe("AnswerLostError");
    expect((lost as Error).message).toContain("lost on purpose");
    expect((lost as AnswerLostError).requestId).toMatch(/^req_/);
    // Carried out in full: charged and committed.
    expect(await s.admin.balance(s.userId)).toBe(1000 - 160);
    const retry = await s.generate(body);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await s.admin.balance(s.userId)).toBe(1000 - 160);
    expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
    const journal = await s.admin.requests();
    expect(journal.map((r) => r.status)).toEqual([202, 0]);
    expect(journal[1]?.requestId).toBe((lost as AnswerLostError).requestId);
  });
});

describe("what a fault matches (S17)", () => {
  it("S17: a fault fires after authentication: an unauthenticated request is answered 401 and leaves it waiting", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "internal" });
    const res = await s.get("/api/ping", {});
    expect(res.status).toBe(401);
    expect(
      (await s.get("/api/ping", { authorization: "Bearer ck_test_not-a-key-of-this-server" }))
        .status,
    ).toBe(401);
    expect((await s.admin.faults())[0]?.timesLeft).toBe(1);
    expect((await s.get("/api/ping")).status).toBe(500);
  });

  it("S17: apiKeyId scopes a fault to one client's key; method and path must match exactly", async () => {
    const s = await setup({ adminToken: TOKEN });
    const other = await s.admin.createApiKey(s.userId);
    const asOther = { authorization: `Bearer ${other.key}` };
    await s.admin.addFault({
      kind: "internal",
      apiKeyId: other.apiKeyId,
      method: "GET",
      path: "/api/query/credits",
    });
    expect((await s.get("/api/query/credits")).status).toBe(200); // another key
    expect((await s.get("/api/ping", asOther)).status).toBe(200); // another path
    expect((await s.post("/api/query/credits", {}, asOther)).status).toBe(405); // another method: answered as usual
    expect((await s.get("/api/query/credits/", asOther)).status).toBe(404); // not the same path
    expect((await s.admin.faults())[0]?.timesLeft).toBe(1);
    expect((await s.get("/api/query/credits", asOther)).status).toBe(500);
    // A HEAD counts as its GET.
    await s.admin.addFault({ kind: "internal", method: "GET", path: "/api/ping" });
    expect(
      (await s.server.fetch(new Request(`${BASE}/api/ping`, { method: "HEAD", headers: s.auth })))
        .status,
    ).toBe(500);
  });

  it("S17: a fault never touches the admin routes or /openapi.json, whatever it matches", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "internal", times: 5 });
    expect((await adminCall(s.server, "GET", `/admin/users/${s.userId}`)).status).toBe(200);
    expect((await adminCall(s.server, "GET", "/admin/faults")).status).toBe(200);
    expect((await s.server.fetch(new Request(`${BASE}/openapi.json`))).status).toBe(200);
    expect((await s.admin.faults())[0]?.timesLeft).toBe(5);
  });

  it("S17: concurrent requests fire a fault exactly as many times as asked", async () => {
    const s = await setup({ adminToken: TOKEN, credits: 10_000 });
    await s.admin.addFault({ kind: "unavailable", path: "/api/generations", times: 3 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.generate({ prompt: "a fox", idempotencyKey: `c-${i}` }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 503)).toHaveLength(3);
    expect(statuses.filter((x) => x === 202)).toHaveLength(7);
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 7 * 18);
  });
});

describe("the fault routes (S17)", () => {
  it("S17: POST /admin/faults is 201 { faultId }, GET lists them with the count left, DELETE removes one or all", async () => {
    const s = await setup({ adminToken: TOKEN });
    const created = await adminCall(s.server, "POST", "/admin/faults", {
      kind: "unavailable",
      method: "POST",
      path: "/api/generations",
      apiKeyId: s.apiKeyId,
      times: 3,
      retryAfterS: 5,
    });
    expect(created.status).toBe(201);
    const { faultId } = (await created.json()) as { faultId: string };
    expect(faultId).toMatch(/^flt_[0-9a-f]{16}$/);
    await s.admin.addFault({ kind: "delay", delayMs: 0 });
    expect((await s.generate({ prompt: "a fox" })).status).toBe(503);

    const listed = await adminCall(s.server, "GET", "/admin/faults");
    expect(listed.status).toBe(200);
    const { faults } = (await listed.json()) as {
      faults: { faultId: string; timesLeft: number }[];
    };
    expect(faults).toEqual([
      {
        faultId,
        kind: "unavailable",
        method: "POST",
        path: "/api/generations",
        apiKeyId: s.apiKeyId,
        retryAfterMs: 5000, // asked as the deprecated retryAfterS: 5
        timesLeft: 2,
      },
      { faultId: expect.stringMatching(/^flt_/), kind: "delay", delayMs: 0, timesLeft: 1 },
    ]);
    const removed = await adminCall(s.server, "DELETE", `/admin/faults/${faultId}`);
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({ faultId });
    const again = await adminCall(s.server, "DELETE", `/admin/faults/${faultId}`);
    expect(again.status).toBe(404);
    expect((await errorOf(again)).code).toBe("unknown_fault");
    expect(await adminCodeOf(s.admin.removeFault(faultId))).toBe("unknown_fault");

    const cleared = await adminCall(s.server, "DELETE", "/admin/faults");
    expect(cleared.status).toBe(200);
    expect(await cleared.json()).toEqual({ removed: 1 });
    expect(await s.admin.faults()).toEqual([]);
    expect((await adminCall(s.server, "PUT", "/admin/faults")).headers.get("allow")).toBe(
      "POST, GET, HEAD, DELETE",
    );
  });

  it("S17: a bad fault is 400 naming the field, its snake_case code and the allowed values, and nothing is added", async () => {
    const s = await setup({ adminToken: TOKEN });
    const cases: [unknown, string, RegExp, string][] = [
      [{ kind: "explode" }, "kind", new RegExp(FAULT_KINDS.join(", ")), "invalid_kind"],
      [
        {},
        "kind",
        /kind is required: one of unavailable, internal, delay, lose_answer/,
        "required",
      ],
      [
        { kind: "internal", times: 0 },
        "times",
        /times must be a whole number from 1 to 1000/,
        "invalid_times",
      ],
      [{ kind: "internal", times: 1001 }, "times", /from 1 to 1000/, "invalid_times"],
      [{ kind: "internal", times: 1.5 }, "times", /whole number/, "invalid_times"],
      [
        { kind: "delay", delayMs: 60_001 },
        "delayMs",
        /delayMs must be a whole number from 0 to 60000/,
        "invalid_delay_ms",
      ],
      [{ kind: "delay" }, "delayMs", /delayMs is required with kind delay/, "required"],
      [{ kind: "internal", delayMs: 5 }, "delayMs", /only for kind delay/, "invalid_delay_ms"],
      [
        { kind: "unavailable", retryAfterS: 0 },
        "retryAfterS",
        /from 1 to 3600/,
        "invalid_retry_after_s",
      ],
      [
        { kind: "unavailable", retryAfterMs: 3_600_001 },
        "retryAfterMs",
        /from 1 to 3600000/,
        "invalid_retry_after_ms",
      ],
      [
        { kind: "unavailable", retryAfterMs: 2000, retryAfterS: 2 },
        "retryAfterS",
        /not both/,
        "invalid_retry_after_s",
      ],
      [
        { kind: "internal", retryAfterMs: 2000 },
        "retryAfterMs",
        /only for kind unavailable/,
        "invalid_retry_after_ms",
      ],
      [{ kind: "internal", method: "DELETE" }, "method", /one of GET, POST/, "invalid_method"],
      [
        { kind: "internal", path: "/admin/users" },
        "path",
        /one of \/api\/generations, \/api\/pricing\/quote, \/api\/ping, \/api\/query\/credits/,
        "invalid_path",
      ],
      [
        { kind: "internal", apiKeyId: "ck_test_AbCdEfGhIjKlMnOpQrStUvWxYz012345" },
        "apiKeyId",
        /never the key/,
        "invalid_api_key_id",
      ],
      [
        { kind: "internal", colour: "red" },
        "colour",
        /not a field of a fault; use method, path, apiKeyId, kind/,
        "unknown_field",
      ],
    ];
    for (const [body, param, message, code] of cases) {
      const res = await adminCall(s.server, "POST", "/admin/faults", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const text = await res.text();
      expect(text).not.toContain("AbCdEfGhIjKlMnOp");
      const error = JSON.parse(text).error as {
        code: string;
        param: string;
        issues: { code: string; message: string }[];
      };
      expect(error.code).toBe("invalid_request");
      expect(error.param, JSON.stringify(body)).toBe(param);
      expect(error.issues.map((i) => i.message).join(" "), JSON.stringify(body)).toMatch(message);
      expect(
        error.issues.map((i) => i.code),
        JSON.stringify(body),
      ).toContain(code);
    }
    expect(await adminCodeOf(s.admin.addFault({ kind: "nope" } as never))).toBe("invalid_fault");
    expect(await s.admin.faults()).toEqual([]);
  });
});

describe("the controls in the admin OpenAPI document (S17)", () => {
  it("S17: every control route has a request example and an answer example, and the document's values are the server's", () => {
    const doc = createAdminOpenApiDocument() as unknown as {
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: Record<string, unknown>;
            parameters?: { example?: unknown }[];
            responses: Record<string, { content?: Record<string, { example?: unknown }> }>;
          }
        >
      >;
      components: {
        schemas: Record<
          string,
          { properties: Record<string, { enum?: string[]; maximum?: number }> }
        >;
      };
    };
    const routes: [string, string][] = [
      ["/admin/faults", "post"],
      ["/admin/faults", "get"],
      ["/admin/faults", "delete"],
      ["/admin/faults/{faultId}", "delete"],
      ["/admin/requests", "get"],
    ];
    for (const [path, method] of routes) {
      const operation = doc.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      const answer = Object.entries(operation?.responses ?? {}).find(([status]) =>
        status.startsWith("2"),
      )?.[1];
      expect(answer?.content?.["application/json"]?.example, `${method} ${path}`).toBeDefined();
      if (method === "post") {
        const content = operation?.requestBody?.content as Record<string, { example?: unknown }>;
        expect(content["application/json"]?.example).toBeDefined();
      }
    }
    expect(doc.paths["/admin/requests"]?.get?.parameters?.[0]?.example).toBeDefined();
    expect(doc.paths["/admin/faults/{faultId}"]?.delete?.parameters?.[0]?.example).toBeDefined();
    const fields = doc.components.schemas.NewFault?.properties ?? {};
    expect(fields.kind?.enum).toEqual([...FAULT_KINDS]);
    expect(fields.path?.enum).toEqual([...FAULT_PATHS]);
    expect(fields.method?.enum).toEqual([...FAULT_METHODS]);
    expect(fields.times?.maximum).toBe(FAULT_LIMITS.maxTimes);
    expect(fields.delayMs?.maximum).toBe(FAULT_LIMITS.maxDelayMs);
    expect(fields.retryAfterMs?.maximum).toBe(FAULT_LIMITS.maxRetryAfterMs);
    expect(fields.retryAfterS?.maximum).toBe(FAULT_LIMITS.maxRetryAfterS);
  });
});

/** Sends raw HTTP/1.1 bytes and resolves with every byte the server sent before closing the connection. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error("the connection stayed open for 30 s"));
    }, 30_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {}); // a reset is a close too
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    socket.write(text);
  });
}

describe("a lost answer over a socket (S17)", () => {
  it("S17, S5: through serve(), lose_answer closes the connection without a response; a retry replays the task, charged once", async () => {
    const server = await makeServer({ adminToken: TOKEN });
    const { userId } = await server.admin.createUser({ credits: 1000 });
    const { key } = await server.admin.createApiKey(userId);
    const r = await serve({ port: 0, server, handleSignals: false });
    running.push(r);
    await server.admin.addFault({ kind: "lose_answer", method: "POST", path: "/api/generations" });
    const body = JSON.stringify({
      prompt: "a fox",
      modelId: "beta2",
      imageCount: 2,
      idempotencyKey: "socket-1",
    });
    const request =
      `POST /api/generations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    expect(await rawExchange(r.port, request)).toBe("");
    expect(await server.admin.balance(userId)).toBe(1000 - 160);

    const retry = await fetch(`${r.url}/api/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body,
    });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await server.admin.balance(userId)).toBe(1000 - 160);
  });
});
