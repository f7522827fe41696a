/**
 * The request journal (S17): the last requests to the service's endpoints, newest first, through
 * `admin.requests()` and `GET /admin/requests?limit=N`; never a key, a token or a prompt, and the
 * same size whatever the traffic.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_JOURNAL_LIMIT, JOURNAL_CAPACITY } from "../../src/server/controls.js";
import type { ReferenceServer, RequestRecord } from "../../src/server/index.js";
import { ledgerBalance } from "../support/ledger.js";
import { adminCodeOf, BASE, errorOf, type Setup, setup } from "./helpers.js";

const TOKEN = "admin-token-for-journal-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };

/** The balance equals the sum of the ledger (S13). */
const expectBalanceIsLedger = async (s: Setup) =>
  expect(await s.admin.balance(s.userId)).toBe(ledgerBalance(await s.admin.ledger(s.userId)));

const journalOf = async (server: ReferenceServer, query = "") => {
  const res = await server.fetch(new Request(`${BASE}/admin/requests${query}`, { headers: ADMIN }));
  return {
    res,
    body: res.status === 200 ? ((await res.json()) as { requests: RequestRecord[] }) : undefined,
  };
};

describe("the request journal (S17)", () => {
  it("S17: each service request, newest first: id, method, path, status, time by the server's clock, key id, idempotency key, issue codes", async () => {
    let clock = Date.parse("2026-03-01T12:00:00.000Z");
    const s = await setup({ adminToken: TOKEN, now: () => clock });
    const ping = await s.get("/api/ping");
    clock += 1000;
    const accepted = await s.generate({ prompt: "a secret prompt", idempotencyKey: "order-7" });
    clock += 1000;
    const uuid = "3f2a6c1e-9b7d-4e5f-8a1b-2c3d4e5f6a7b";
    await s.generate({ prompt: "p" }, { "idempotency-key": uuid });
    const bad = await s.post("/api/pricing/quote", {
      kind: "image",
      modelId: "nope",
      imageCount: 0,
    });
    expect(bad.status).toBe(400);
    const badCodes = ((await errorOf(bad)).issues as { code: string }[]).map((i) => i.code);
    await s.get("/api/ping", {}); // no key: 401, no key id
    await s.server.fetch(new Request(`${BASE}/admin/users/${s.userId}`, { headers: ADMIN })); // not journaled

    const { res, body } = await journalOf(s.server);
    expect(res.status).toBe(200);
    const list = body?.requests ?? [];
    expect(list.map((r) => [r.method, r.path, r.status])).toEqual([
      ["GET", "/api/ping", 401],
      ["POST", "/api/pricing/quote", 400],
      ["POST", "/api/generations", 202],
      ["POST", "/api/generations", 202],
      ["GET", "/api/ping", 200],
    ]);
    const [unauthenticated, quote, withHeader, withBody, first] = list as [
      RequestRecord,
      RequestRecord,
      RequestRecord,
      RequestRecord,
      RequestRecord,
    ];
    expect(first).toEqual({
      requestId: ping.headers.get("request-id"),
      method: "GET",
      path: "/api/ping",
      status: 200,
      at: "2026-03-01T12:00:00.000Z",
      durationMs: expect.any(Number),
      apiKeyId: s.apiKeyId,
    });
    expect(withBody).toMatchObject({
      requestId: accepted.headers.get("request-id"),
      at: "2026-03-01T12:00:01.000Z",
    });
    expect(withBody.idempotencyKey).toBe("order-7");
    expect(withHeader.idempotencyKey).toBe(uuid);
    expect(quote.issueCodes).toEqual(badCodes);
    expect(quote.issueCodes?.length).toBeGreaterThan(0);
    expect(unauthenticated.apiKeyId).toBeUndefined();
    expect(first.durationMs).toBeGreaterThanOrEqual(0);
    const text = JSON.stringify(list);
    expect(text).not.toContain("secret prompt");
    expect(text).not.toContain(s.key.slice(8));
    expect(text).not.toContain(TOKEN);
    // The same list in process.
    expect(await s.admin.requests({ limit: 2 })).toEqual(list.slice(0, 2));
  });

  it("S17: never a key or a token: a key in the path, the idempotency key or the body is masked, and a prompt is never kept", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.get(`/api/nothing/${s.key}`);
    await s.get(`/api/ping/${TOKEN}`);
    await s.generate({ prompt: "a fox" }, { "idempotency-key": s.key });
    await s.generate({ prompt: "a fox", idempotencyKey: `k-${s.key}` });
    await s.generate({ prompt: "a fox" }, { "idempotency-key": TOKEN });
    const list = await s.admin.requests();
    expect(list).toHaveLength(5);
    const text = JSON.stringify(list);
    expect(text).not.toContain(s.key.slice(8));
    expect(text).not.toContain(TOKEN);
    expect(list[4]?.path).toBe("/api/nothing/<hidden>");
    expect(list[0]?.idempotencyKey).toBe("<hidden>");
  });

  it("S1 S17: a secret split by its sender is masked by what it is: the admin token with dots as the idempotency key, an API key with slashes in the path; ordinary values stay readable", async () => {
    const token = "adm_probe_token_0123456789abcdef";
    const s = await setup({ adminToken: token });
    const splitToken = "adm_probe_.token_0123.456789abcd.ef";
    const splitKey = "/api/ck_test_/Qx7mN2pL/9vR4tY8w/K3jH6fD1";
    await s.generate({ prompt: "a fox" }, { "idempotency-key": splitToken });
    await s.generate({ prompt: "a fox", idempotencyKey: `order-${splitToken.toUpperCase()}` });
    await s.get(splitKey);
    await s.get("/API/CK.Live.Qx7mN2pL.9vR4tY8w");
    await s.generate({ prompt: "a fox" }, { "idempotency-key": "order-1042" });
    await s.get("/api/assets/ast_harbour_1");
    const list = await s.admin.requests({ limit: 6 });
    expect(list.map((r) => [r.path, r.idempotencyKey])).toEqual([
      ["/api/assets/ast_harbour_1", undefined],
      ["/api/generations", "order-1042"],
      ["/API/CK.Live.<hidden>", undefined],
      ["/api/ck_test_/<hidden>", undefined],
      ["/api/generations", "order-<hidden>"],
      ["/api/generations", "<hidden>"],
    ]);
    const text = JSON.stringify(list);
    for (const piece of ["Qx7mN2pL", "9vR4tY8w", "K3jH6fD1", "456789abcd", "token_0123"]) {
      expect(text.toLowerCase()).not.toContain(piece.toLowerCase());
    }
    await expectBalanceIsLedger(s);
  });

  it("S17: the idempotency key is masked, then cut: a valid one is never cut, a longer one ends in ...", async () => {
    const s = await setup({ adminToken: TOKEN });
    const valid = "ab ".repeat(42).trim(); // 125 characters, no run long enough to hide
    await s.generate({ prompt: "a fox" }, { "idempotency-key": valid });
    await s.generate({ prompt: "a fox" }, { "idempotency-key": "ab ".repeat(100) });
    const [long, whole] = await s.admin.requests({ limit: 2 });
    expect(whole).toMatchObject({ status: 202, idempotencyKey: valid });
    expect(long?.status).toBe(400);
    expect(long?.idempotencyKey).toBe(`${"ab ".repeat(43).slice(0, 128)}...`);
    await expectBalanceIsLedger(s);
  });

  it("S17: a long idempotency key straddling the cut: the secret after it is hidden whole, no piece of it recorded", async () => {
    const s = await setup({ adminToken: TOKEN });
    const secret = "Qx7ZrLm2Wp4Tn6Yv8KsD3fGh";
    // 120 characters before the secret: a cut at 128 before masking would keep its first 8.
    const key = `${"a.".repeat(56)}ck.test.${secret}`;
    await s.generate({ prompt: "a fox" }, { "idempotency-key": key });
    await s.generate({ prompt: "a fox", idempotencyKey: key });
    // The method is masked before it is cut too: a cut at 16 would keep 6 characters of the secret.
    const method = await s.server.fetch(
      new Request(`${BASE}/api/ping`, { method: `A.ck_test_${secret}`, headers: s.auth }),
    );
    expect(method.status).toBe(405);
    const list = await s.admin.requests({ limit: 3 });
    expect(list.map((r) => [r.method, r.status])).toEqual([
      ["A.<hidden>", 405],
      ["POST", 400],
      ["POST", 400],
    ]);
    for (const entry of list.slice(1)) {
      expect(entry.idempotencyKey).toBe(`${"a.".repeat(56)}ck.test.<hidden>`);
    }
    const text = JSON.stringify(list);
    for (let i = 0; i + 4 <= secret.length; i++) {
      expect(text).not.toContain(secret.slice(i, i + 4));
    }
    await expectBalanceIsLedger(s);
  });

  it("S17: a UUID-shaped admin token is never shown, in upper or lower case; any other UUID is shown as sent", async () => {
    const token = "3f2a6c1e-9b7d-4e5f-8a1b-2c3d4e5f6a7b";
    const s = await setup({ adminToken: token });
    const other = "9C1B2A3D-4E5F-4A6B-8C7D-0E1F2A3B4C5D";
    for (const key of [token, token.toUpperCase(), `  ${token.toUpperCase()} `, other]) {
      await s.generate({ prompt: "a fox" }, { "idempotency-key": key });
    }
    const list = await s.admin.requests({ limit: 4 });
    expect(list.map((r) => r.idempotencyKey)).toEqual([other, "<hidden>", "<hidden>", "<hidden>"]);
    expect(JSON.stringify(list).toLowerCase()).not.toContain(token);
    await expectBalanceIsLedger(s);
  });

  it("S17: a ring buffer: the newest 1,000 requests whatever the traffic; limit defaults to 100 and is 1 to 1,000", async () => {
    const s = await setup({ adminToken: TOKEN });
    const total = JOURNAL_CAPACITY + 50;
    for (let i = 0; i < total; i++) {
      await s.get(`/api/ping?i=${i}`);
    }
    const all = await s.admin.requests({ limit: JOURNAL_CAPACITY });
    expect(all).toHaveLength(JOURNAL_CAPACITY);
    expect(await s.admin.requests()).toHaveLength(DEFAULT_JOURNAL_LIMIT);
    const ids = new Set(all.map((r) => r.requestId));
    expect(ids.size).toBe(JOURNAL_CAPACITY);
    const last = await s.get("/api/ping");
    expect((await s.admin.requests({ limit: 1 }))[0]?.requestId).toBe(
      last.headers.get("request-id"),
    );
    expect(await s.admin.requests({ limit: JOURNAL_CAPACITY })).toHaveLength(JOURNAL_CAPACITY);

    const { body } = await journalOf(s.server, "?limit=3");
    expect(body?.requests).toHaveLength(3);
    for (const bad of ["0", "1001", "abc", "1.5", "-1", "", "1&limit=2"]) {
      const { res } = await journalOf(s.server, `?limit=${bad}`);
      expect(res.status, bad).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_request");
      expect(error.param).toBe("limit");
      expect(error.message + JSON.stringify(error.issues)).toContain("from 1 to 1000");
    }
    expect(await adminCodeOf(s.admin.requests({ limit: 0 }))).toBe("invalid_limit");
    // Only a limit left out is the default: null and every other non-integer are refused.
    for (const limit of [null, "5", 1.5, Number.NaN, true, [5], {}]) {
      expect(
        await adminCodeOf(s.admin.requests({ limit } as unknown as { limit: number })),
        String(limit),
      ).toBe("invalid_limit");
    }
    expect(await s.admin.requests({})).toHaveLength(DEFAULT_JOURNAL_LIMIT);
  });

  it("S17: the idempotency key of every attempt is recorded, from the header or the body, also when a fault answers it", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.admin.addFault({ kind: "unavailable", path: "/api/generations", times: 2 });
    await s.admin.addFault({ kind: "internal", path: "/api/generations" });
    const attempt = (headers?: Record<string, string>) =>
      s.generate({ prompt: "a fox", idempotencyKey: "retry-7" }, headers);
    const statuses = [
      (await attempt()).status,
      (await attempt({ "idempotency-key": "retry-7" })).status,
      (await attempt()).status,
      (await attempt()).status,
    ];
    expect(statuses).toEqual([503, 503, 500, 202]);
    const list = await s.admin.requests({ limit: 4 });
    expect(list.map((r) => [r.status, r.idempotencyKey])).toEqual([
      [202, "retry-7"],
      [500, "retry-7"],
      [503, "retry-7"],
      [503, "retry-7"],
    ]);
    expect(JSON.stringify(list)).not.toContain("a fox");
  });

  it("S17: a reset empties the journal; without an admin token there is no journal", async () => {
    const s = await setup({ adminToken: TOKEN });
    await s.get("/api/ping");
    expect(await s.admin.requests()).toHaveLength(1);
    await s.admin.reset();
    expect(await s.admin.requests()).toEqual([]);
    const off = await setup();
    await off.get("/api/ping");
    expect(await adminCodeOf(off.admin.requests())).toBe("controls_off");
  });
});
