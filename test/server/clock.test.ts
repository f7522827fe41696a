/**
 * The test clock (S17): read by everything that reads the time (the catalog in force, quotes'
 * nextChange, ledger and task times, idempotency windows), frozen or moved forward through the admin
 * API and `server.admin`, never backward, one per server instance, and behind the admin token.
 */
import { describe, expect, it } from "vitest";
import { type Catalog, catalog, defineCatalog } from "../../src/index.js";
import { ADMIN_TOKEN_THROTTLE } from "../../src/server/adminToken.js";
import { AdminError, createReferenceServer, type ReferenceServer } from "../../src/server/index.js";
import { ledgerBalance } from "../support/ledger.js";
import { adminCodeOf, BASE, errorOf, makeStore, setup } from "./helpers.js";

const TOKEN = "clock-admin-token-for-tests";
const ADMIN = { authorization: `Bearer ${TOKEN}` };
const { beta2 } = catalog.models;

/** From 2027-01-01: beta2 4K low 120 -> 130 credits. */
const V2: Catalog = defineCatalog({
  ...catalog,
  version: "2027-01-01",
  models: {
    ...catalog.models,
    beta2: { ...beta2, prices: { ...beta2.prices, "4K": { low: 130 } } },
  },
});
/** 2027-01-01T00:00:00.000Z, when V2 takes effect. */
const CHANGE = Date.UTC(2027, 0, 1);
/** Real time in these tests: a day before the change, moved only by the test. */
const REAL_START = CHANGE - 86_400_000;
const SPEC = { kind: "image", modelId: "beta2", resolution: "4K", quality: "low" };

type ClockView = { now: string; frozen: boolean };

/** A user (10000 credits) on a server with the history [built-in, V2], an admin token and real time the test moves. */
async function onClock(options: { idempotencyTtlMs?: number } = {}) {
  const real = { now: REAL_START };
  const s = await setup({
    catalogs: [catalog, V2],
    now: () => real.now,
    credits: 10_000,
    adminToken: TOKEN,
    ...options,
  });
  const adminHttp = (
    path: string,
    init: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    s.server.fetch(
      new Request(BASE + path, {
        method: init.method ?? "GET",
        headers: {
          ...(init.headers ?? ADMIN),
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
      }),
    );
  const setClock = async (body: unknown) => {
    const res = await adminHttp("/admin/clock", { method: "POST", body });
    expect(res.status, JSON.stringify(body)).toBe(200);
    return (await res.json()) as ClockView;
  };
  const getClock = async () => {
    const res = await adminHttp("/admin/clock");
    expect(res.status).toBe(200);
    return (await res.json()) as ClockView;
  };
  const quoteOf = async () => {
    const res = await s.post("/api/pricing/quote", SPEC);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      credits: number;
      catalogVersion: string;
      nextChange?: { version: string; credits: number };
    };
  };
  return { ...s, real, adminHttp, setClock, getClock, quoteOf };
}

const iso = (ms: number) => new Date(ms).toISOString();

describe("the test clock (S17)", () => {
  it("S17: GET /admin/clock is real time and running until it is moved; admin.clock() says the same", async () => {
    const s = await onClock();
    expect(await s.getClock()).toEqual({ now: iso(REAL_START), frozen: false });
    s.real.now += 1234;
    expect(await s.getClock()).toEqual({ now: iso(REAL_START + 1234), frozen: false });
    expect(await s.server.admin.clock()).toEqual({ now: iso(REAL_START + 1234), frozen: false });
  });

  it("S17: freezing the clock across a price change changes a quote's price and its nextChange", async () => {
    const s = await onClock();
    expect(await s.setClock({ now: iso(CHANGE - 1) })).toEqual({
      now: iso(CHANGE - 1),
      frozen: true,
    });
    const before = await s.quoteOf();
    expect(before).toMatchObject({
      credits: 120,
      catalogVersion: "2026-11-20",
      nextChange: { version: "2027-01-01", credits: 130 },
    });

    // Real time moves on; the frozen clock does not.
    s.real.now += 60_000;
    expect(await s.getClock()).toEqual({ now: iso(CHANGE - 1), frozen: true });

    expect(await s.setClock({ now: "2027-01-01T00:00:00Z" })).toEqual({
      now: iso(CHANGE),
      frozen: true,
    });
    const after = await s.quoteOf();
    expect(after).toMatchObject({ credits: 130, catalogVersion: "2027-01-01" });
    expect(after).not.toHaveProperty("nextChange");
  });

  it("S17: a generation after advanceMs crosses the change is charged the new price; its ledger entry and task carry the clock's time", async () => {
    const s = await onClock();
    await s.setClock({ now: iso(CHANGE - 1000) });
    const early = await s.generate({ prompt: "a fox", modelId: "beta2", resolution: "4K" });
    expect(early.status).toBe(202);
    expect(
      ((await early.json()) as { billing: { totalCreditCost: number } }).billing.totalCreditCost,
    ).toBe(120);

    expect(await s.setClock({ advanceMs: 1000 })).toEqual({ now: iso(CHANGE), frozen: true });
    s.real.now += 5_000; // real time is not what is recorded
    const res = await s.generate({ prompt: "a fox", modelId: "beta2", resolution: "4K" });
    expect(res.status).toBe(202);
    const body = (await res.json()) as {
      batch: { taskId: string };
      billing: { totalCreditCost: number };
    };
    expect(body.billing.totalCreditCost).toBe(130);

    const task = await s.admin.task(body.batch.taskId);
    expect(task).toMatchObject({
      createdAt: iso(CHANGE),
      catalogVersion: "2027-01-01",
      totalCreditCost: 130,
    });
    const ledger = await s.admin.ledger(s.userId);
    expect(ledger.map((e) => [e.kind, e.credits, e.at])).toEqual([
      ["grant", 10_000, iso(REAL_START)],
      ["debit", 120, iso(CHANGE - 1000)],
      ["debit", 130, iso(CHANGE)],
    ]);
    // The refund of a job is written at the clock's now too.
    await s.setClock({ advanceMs: 7 });
    await s.admin.failJob(task.jobs[0]?.jobId ?? "");
    expect((await s.admin.ledger(s.userId)).at(-1)).toMatchObject({
      kind: "refund",
      credits: 130,
      at: iso(CHANGE + 7),
    });
  });

  it("S17: an instant before the clock's now is refused naming now, and the clock is unchanged", async () => {
    const s = await onClock();
    await s.setClock({ now: iso(CHANGE) });
    for (const now of [
      iso(CHANGE - 1),
      iso(REAL_START),
      "2026-12-31T23:59:59.999Z",
      "2027-01-01T00:30:00+01:00",
    ]) {
      const res = await s.adminHttp("/admin/clock", { method: "POST", body: { now } });
      expect(res.status, now).toBe(400);
      const error = await errorOf(res);
      expect(error).toMatchObject({ code: "invalid_request", param: "now" });
      expect(error.issues).toEqual([
        expect.objectContaining({ path: "now", code: "clock_backward" }),
      ]);
      const message = (error.issues?.[0] as { message?: string } | undefined)?.message;
      expect(message).toContain("never runs backward");
      expect(message).toContain(iso(CHANGE));
      expect(await s.getClock()).toEqual({ now: iso(CHANGE), frozen: true });
    }
    // The same instant is not backward: it is accepted, and changes nothing.
    expect(await s.setClock({ now: iso(CHANGE) })).toEqual({ now: iso(CHANGE), frozen: true });

    // The admin method refuses the same way, with an AdminError naming the field.
    const refused = s.server.admin.setClock({ now: iso(CHANGE - 1) });
    await expect(refused).rejects.toBeInstanceOf(AdminError);
    expect(await adminCodeOf(s.server.admin.setClock({ now: iso(CHANGE - 1) }))).toBe(
      "invalid_clock",
    );
    await expect(s.server.admin.setClock({ now: iso(CHANGE - 1) })).rejects.toThrow(/^now /);
    expect(await s.server.admin.clock()).toEqual({ now: iso(CHANGE), frozen: true });
  });

  it("S17: bad clock bodies are 400 invalid_request naming the field and the allowed values, and change nothing", async () => {
    const s = await onClock();
    await s.setClock({ now: iso(CHANGE) });
    const cases: [body: unknown, param: string, code: string, says: RegExp][] = [
      [{}, "", "required", /now .*advanceMs .*frozen/],
      [{ frozen: "yes" }, "frozen", "invalid_frozen", /true or false/],
      [{ frozen: null }, "frozen", "invalid_frozen", /true or false/],
      [{ now: 1_798_761_600_000 }, "now", "invalid_instant", /ISO 8601/],
      [{ now: "tomorrow" }, "now", "invalid_instant", /ISO 8601/],
      [{ now: "2027-01-01T10:00:00" }, "now", "invalid_instant", /Z or an offset/],
      [{ now: "2027-02-30T00:00:00Z" }, "now", "invalid_instant", /ISO 8601/],
      [{ advanceMs: -1 }, "advanceMs", "invalid_advance", /from 0 to/],
      [{ advanceMs: 1.5 }, "advanceMs", "invalid_advance", /whole milliseconds/],
      [{ advanceMs: "1000" }, "advanceMs", "invalid_advance", /whole milliseconds/],
      [{ advanceMs: 8.64e15 }, "advanceMs", "invalid_advance", /from 0 to/],
      [{ now: "+275760-09-13T00:00:00.000Z" }, "now", "invalid_instant", /ISO 8601/],
      [{ speed: 2 }, "speed", "unknown_field", /now .*advanceMs .*frozen/],
      [
        { now: iso(CHANGE + 1), advanceMs: 5 },
        "advanceMs",
        "one_change",
        /only one of now, advanceMs and frozen/,
      ],
      [[], "", "invalid_type", /JSON object/],
      ["5", "", "invalid_type", /JSON object/],
    ];
    for (const [body, param, code, says] of cases) {
      const res = await s.adminHttp("/admin/clock", { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_request");
      expect(error.param, JSON.stringify(body)).toBe(param);
      expect(error.issues, JSON.stringify(body)).toEqual([
        expect.objectContaining({ path: param, code }),
      ]);
      expect(
        (error.issues?.[0] as { message?: string } | undefined)?.message,
        JSON.stringify(body),
      ).toMatch(says);
    }
    const notJson = await s.adminHttp("/admin/clock", { method: "POST", body: "{now" });
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).code).toBe("invalid_json");
    expect(await s.getClock()).toEqual({ now: iso(CHANGE), frozen: true });
  });

  it("S17: advancing a running clock runs it ahead of real time by that much; frozen: true stops it where it is", async () => {
    const s = await onClock();
    expect(await s.setClock({ advanceMs: 5000 })).toEqual({
      now: iso(REAL_START + 5000),
      frozen: false,
    });
    s.real.now += 10;
    expect(await s.getClock()).toEqual({ now: iso(REAL_START + 5010), frozen: false });
    expect(await s.setClock({ frozen: true })).toEqual({
      now: iso(REAL_START + 5010),
      frozen: true,
    });
    s.real.now += 10;
    expect(await s.getClock()).toEqual({ now: iso(REAL_START + 5010), frozen: true });
  });

  it("S17: frozen: false runs the clock again from its now when that is ahead of real time, and on real time once real time has passed it", async () => {
    const s = await onClock();
    await s.setClock({ now: iso(REAL_START + 60_000) });
    s.real.now += 1000;
    // Ahead of real time: it runs on from the frozen instant, never back to real time.
    expect(await s.setClock({ frozen: false })).toEqual({
      now: iso(REAL_START + 60_000),
      frozen: false,
    });
    s.real.now += 500;
    expect(await s.getClock()).toEqual({ now: iso(REAL_START + 60_500), frozen: false });

    // Frozen behind real time (real time caught up): running again is real time.
    await s.setClock({ frozen: true });
    s.real.now += 120_000;
    expect(await s.setClock({ frozen: false })).toEqual({
      now: iso(REAL_START + 1500 + 120_000),
      frozen: false,
    });
  });

  it("S17: an idempotency window crossed with advanceMs: the retry inside it is a replay, the one after it a new task, charged again", async () => {
    const s = await onClock({ idempotencyTtlMs: 60_000 });
    await s.setClock({ frozen: true });
    const body = {
      prompt: "a fox",
      modelId: "beta2",
      resolution: "4K",
      idempotencyKey: "window-1",
    };
    const first = await s.generate(body);
    expect(first.status).toBe(202);
    const { batch } = (await first.json()) as { batch: { taskId: string } };

    await s.setClock({ advanceMs: 59_999 });
    const replay = await s.generate(body);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(((await replay.json()) as { batch: { taskId: string } }).batch.taskId).toBe(
      batch.taskId,
    );
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 120);

    await s.setClock({ advanceMs: 1 });
    const fresh = await s.generate(body);
    expect(fresh.status).toBe(202);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(((await fresh.json()) as { batch: { taskId: string } }).batch.taskId).not.toBe(
      batch.taskId,
    );
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 240);
  });

  it("S17: the clock is per server instance: freezing one server's clock does not move another's on the same store", async () => {
    const store = await makeStore();
    const real = { now: REAL_START };
    const a = createReferenceServer({ store, now: () => real.now, adminToken: TOKEN });
    const b = createReferenceServer({ store, now: () => real.now, adminToken: TOKEN });
    await a.admin.setClock({ now: iso(CHANGE) });
    expect(await a.admin.clock()).toEqual({ now: iso(CHANGE), frozen: true });
    expect(await b.admin.clock()).toEqual({ now: iso(REAL_START), frozen: false });
  });

  it("S17: the admin token's throttle runs on real time, so a frozen clock never keeps an address locked out", async () => {
    const s = await onClock();
    await s.setClock({ frozen: true });
    const wrong = { authorization: "Bearer not-the-admin-token-at-all" };
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures; i++) {
      expect((await s.adminHttp("/admin/clock", { headers: wrong })).status).toBe(401);
    }
    expect((await s.adminHttp("/admin/clock")).status).toBe(429);
    s.real.now += ADMIN_TOKEN_THROTTLE.windowMs;
    expect(await s.getClock()).toEqual({ now: iso(REAL_START), frozen: true });
  });
});

describe("the test clock's last instant (S17)", () => {
  /** 9999-12-31T23:59:59.999Z: the latest instant the clock shows. */
  const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
  /** 9999-01-01T00:00:00.000Z: the latest a running clock may be set to. */
  const LATEST_RUNNING = Date.UTC(9999, 0, 1);
  /** The latest instant a `Date` holds. */
  const DATE_MAX = 8.64e15;

  /** A refused clock change: 400 naming `param`, the issue `code`, a message naming `bound`, and the clock as it was. */
  async function refused(
    s: Awaited<ReturnType<typeof onClock>>,
    body: unknown,
    param: string,
    code: string,
    bound: string,
  ) {
    const before = await s.getClock();
    const res = await s.adminHttp("/admin/clock", { method: "POST", body });
    expect(res.status, JSON.stringify(body)).toBe(400);
    const error = await errorOf(res);
    expect(error).toMatchObject({ code: "invalid_request", param });
    expect(error.issues).toEqual([
      expect.objectContaining({ path: param, code, message: expect.stringContaining(bound) }),
    ]);
    expect(await s.getClock()).toEqual(before);
  }

  /** A generation answered 202, and the user's ledger, balance and journal readable after it, balance equal to the ledger. */
  async function chargedAndReadable(s: Awaited<ReturnType<typeof onClock>>, at: string) {
    const res = await s.generate({ prompt: "a fox", modelId: "beta2", resolution: "4K" });
    expect(res.status).toBe(202);
    const { batch } = (await res.json()) as { batch: { taskId: string } };
    expect((await s.admin.task(batch.taskId)).createdAt).toBe(at);
    const ledger = await s.admin.ledger(s.userId);
    expect(ledger.at(-1)).toMatchObject({ kind: "debit", at });
    expect(ledgerBalance(ledger)).toBe(await s.admin.balance(s.userId));
    const http = await s.adminHttp(`/admin/users/${s.userId}/ledger`);
    expect(http.status).toBe(200);
    expect((await s.admin.requests({ limit: 1 }))[0]).toMatchObject({ status: 202, at });
  }

  it("S17: a move past the last instant is 400 naming the field and the bound, and the clock stays as it was", async () => {
    const s = await onClock();
    // What a Date can hold is further still: the probe's advance, 20 ms short of it.
    await refused(
      s,
      { advanceMs: DATE_MAX - REAL_START - 20 },
      "advanceMs",
      "invalid_advance",
      iso(LATEST_RUNNING),
    );
    await refused(
      s,
      { advanceMs: LATEST_RUNNING - REAL_START + 1 },
      "advanceMs",
      "invalid_advance",
      iso(LATEST_RUNNING),
    );
    await refused(
      s,
      { now: "9999-12-31T23:59:59.999-00:01" },
      "now",
      "invalid_instant",
      iso(LATEST),
    );
    // A running clock may be put a year inside the bound, no further.
    expect(await s.setClock({ advanceMs: LATEST_RUNNING - REAL_START })).toEqual({
      now: iso(LATEST_RUNNING),
      frozen: false,
    });
    await refused(s, { advanceMs: 1 }, "advanceMs", "invalid_advance", iso(LATEST_RUNNING));
    // Frozen, it may stand at the bound itself, and move no further.
    expect(await s.setClock({ now: iso(LATEST) })).toEqual({ now: iso(LATEST), frozen: true });
    await refused(s, { advanceMs: 1 }, "advanceMs", "invalid_advance", iso(LATEST));
    // Running again from the bound would cross it: refused, and it stays frozen there.
    await refused(s, { frozen: false }, "frozen", "invalid_frozen", iso(LATEST_RUNNING));
    expect(await adminCodeOf(s.admin.setClock({ frozen: false }))).toBe("invalid_clock");
    await chargedAndReadable(s, iso(LATEST));
  });

  it("S17: a running clock near its bound stops at the last instant: every answer, the ledger and the journal stay readable", async () => {
    const s = await onClock();
    expect(await s.setClock({ advanceMs: LATEST_RUNNING - REAL_START })).toEqual({
      now: iso(LATEST_RUNNING),
      frozen: false,
    });
    // Real time runs past what a Date holds (a server left running, a `now` of the test's): the
    // clock stands at its last instant rather than pass it.
    s.real.now = DATE_MAX + 1000;
    expect(await s.getClock()).toEqual({ now: iso(LATEST), frozen: false });
    expect((await s.get("/api/query/credits")).status).toBe(200);
    expect((await s.post("/api/pricing/quote", SPEC)).status).toBe(200);
    await chargedAndReadable(s, iso(LATEST));
    await s.admin.grantCredits(s.userId, 5);
    expect((await s.admin.ledger(s.userId)).at(-1)).toMatchObject({
      kind: "grant",
      credits: 5,
      at: iso(LATEST),
    });
    const { userId } = await s.admin.createUser({ credits: 7 });
    expect(await s.admin.ledger(userId)).toEqual([{ kind: "grant", credits: 7, at: iso(LATEST) }]);
    // A reset puts it back on real time.
    s.real.now = REAL_START;
    await s.admin.reset();
    expect(await s.getClock()).toEqual({ now: iso(REAL_START), frozen: false });
  });

  it("S17: a time past the last instant already in a store (written by an older version) reads as the bound, and the ledger answers", async () => {
    const store = await makeStore();
    const server = createReferenceServer({ store, adminToken: TOKEN });
    const userId = `usr_past_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    expect(await store.createUser({ id: userId, credits: 5, multiplier: "1" }, DATE_MAX + 5)).toBe(
      true,
    );
    expect(await server.admin.ledger(userId)).toEqual([
      { kind: "grant", credits: 5, at: iso(LATEST) },
    ]);
    const res = await server.fetch(
      new Request(`${BASE}/admin/users/${userId}/ledger`, { headers: ADMIN }),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ entries: [{ kind: "grant", credits: 5, at: iso(LATEST) }] });
  });
});

describe("the test-double controls are the admin API's (S17)", () => {
  const controls = [
    ["/admin/reset", "POST"],
    ["/admin/clock", "GET"],
    ["/admin/clock", "POST"],
  ] as const;
  const call = (
    server: ReferenceServer,
    path: string,
    method: string,
    headers: Record<string, string>,
  ) =>
    server.fetch(
      new Request(BASE + path, {
        method,
        headers: {
          ...headers,
          ...(method === "POST" ? { "content-type": "application/json" } : {}),
        },
        ...(method === "POST"
          ? { body: path === "/admin/clock" ? JSON.stringify({ advanceMs: 1 }) : "{}" }
          : {}),
      }),
    );

  it("S17: every control is 401 without the admin token, with an API key or with a wrong token, and changes nothing", async () => {
    const s = await onClock();
    for (const [path, method] of controls) {
      for (const headers of [{}, s.auth, { authorization: "Bearer wrong-admin-token-xyz" }]) {
        const res = await call(s.server, path, method, headers);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(["missing_admin_token", "invalid_admin_token"]).toContain((await errorOf(res)).code);
      }
    }
    expect(await s.getClock()).toEqual({ now: iso(REAL_START), frozen: false });
    expect(await s.admin.balance(s.userId)).toBe(10_000);
  });

  it("S17: without an admin token configured every control is 404 not_found, like any unknown route", async () => {
    const s = await setup();
    for (const [path, method] of controls) {
      for (const headers of [{}, s.auth, ADMIN]) {
        const res = await call(s.server, path, method, headers);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect((await errorOf(res)).code).toBe("not_found");
      }
    }
  });

  it("S17: the admin document describes each control with a request example and an answer example", async () => {
    const s = await onClock();
    const res = await s.adminHttp("/admin/openapi.json");
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    type Content = { "application/json": { examples: Record<string, { value: unknown }> } };
    const answer = (op: Record<string, unknown>) =>
      (op.responses as Record<string, { content: Content }>)["200"]?.content["application/json"]
        .examples ?? {};
    const request = (op: Record<string, unknown>) =>
      (op.requestBody as { content: Content }).content["application/json"].examples;
    const reset = doc.paths["/admin/reset"]?.post ?? {};
    const get = doc.paths["/admin/clock"]?.get ?? {};
    const post = doc.paths["/admin/clock"]?.post ?? {};
    expect(Object.values(request(reset)).map((e) => e.value)).toEqual([{}]);
    expect(Object.values(answer(reset))[0]?.value).toMatchObject({
      reset: true,
      clock: { frozen: false },
    });
    expect(Object.values(answer(get))[0]?.value).toEqual({
      now: "2027-01-01T00:00:00.000Z",
      frozen: true,
    });
    expect(Object.values(request(post)).map((e) => e.value)).toEqual([
      { now: "2027-01-01T00:00:00Z" },
      { advanceMs: 86_400_000 },
      { frozen: false },
    ]);
    expect(Object.keys(answer(post)).length).toBeGreaterThan(0);
  });
});
