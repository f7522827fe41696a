import { describe, expect, it } from "vitest";
import { type LogEntry, StoreUnavailableError } from "../../src/server/index.js";
import { BASE, errorOf, makeServer, makeStore, wrapStore } from "./helpers.js";

/** A server whose store can be taken down: every call rejects while `down` is set. */
async function flakyServer(
  fault: () => Error = () =>
    new StoreUnavailableError("the database is down", { retryAfterMs: 3000 }),
) {
  const base = await makeStore();
  const state = { down: false };
  const store = new Proxy(base, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") {
        return value;
      }
      return async (...args: unknown[]) => {
        if (state.down) {
          throw fault();
        }
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
  const logs: LogEntry[] = [];
  const server = await makeServer({ store, log: (e) => logs.push(e) });
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const generate = (body: unknown) =>
    server.fetch(
      new Request(`${BASE}/api/generations`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      }),
    );
  return { server, state, logs, userId, key, headers, generate };
}

describe("the store cannot be reached (S14)", () => {
  it("S14: a store rejecting with StoreUnavailableError answers 503 service_unavailable with Retry-After, and charges nothing", async () => {
    const f = await flakyServer();
    const ledger = await f.server.admin.ledger(f.userId);
    f.state.down = true;
    const body = { prompt: "a fox", modelId: "beta", idempotencyKey: "during-outage" };
    for (const res of [
      await f.generate(body),
      await f.server.fetch(new Request(`${BASE}/api/ping`, { headers: f.headers })),
      await f.server.fetch(new Request(`${BASE}/api/query/credits`, { headers: f.headers })),
    ]) {
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("3");
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const error = await errorOf(res);
      expect(error.code).toBe("service_unavailable");
      expect(error.message).toMatch(/nothing was charged/);
      expect(error.requestId).toBe(res.headers.get("request-id"));
    }
    expect(f.logs.map((l) => l.error.name)).toEqual([
      "StoreUnavailableError",
      "StoreUnavailableError",
      "StoreUnavailableError",
    ]);
    expect(JSON.stringify(f.logs)).not.toContain(f.key.slice(8));

    // The same server serves again once the store is back; the retried request is accepted once.
    f.state.down = false;
    expect(await f.server.admin.ledger(f.userId)).toEqual(ledger);
    const accepted = await f.generate(body);
    expect(accepted.status).toBe(202);
    expect(accepted.headers.get("idempotent-replayed")).toBeNull();
    expect((await f.generate(body)).headers.get("idempotent-replayed")).toBe("true");
    expect(await f.server.admin.balance(f.userId)).toBe(1000 - 25);
  });

  it("S14: a commit that fails with the store unreachable is a 503, and the ledger is unchanged", async () => {
    const base = await makeStore();
    let down = true;
    const store = wrapStore(base, {
      commitTask: async (input, now) => {
        if (down) {
          throw new StoreUnavailableError("connection reset", { retryAfterMs: 2200 });
        }
        return base.commitTask(input, now);
      },
    });
    const server = await makeServer({ store, log: () => {} });
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    const send = () =>
      server.fetch(
        new Request(`${BASE}/api/generations`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ prompt: "p", modelId: "beta", idempotencyKey: "k" }),
        }),
      );
    const res = await send();
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("3"); // whole seconds, rounded up
    expect(await server.admin.balance(userId)).toBe(100);
    expect(await server.admin.ledger(userId)).toHaveLength(1); // the opening grant only
    down = false;
    expect((await send()).status).toBe(202);
    expect(await server.admin.balance(userId)).toBe(75);
  });

  it("S14: any error named StoreUnavailableError counts, with Retry-After 1 when it gives no hint", async () => {
    const foreign = () =>
      Object.assign(new Error("pool exhausted"), { name: "StoreUnavailableError" });
    const f = await flakyServer(foreign);
    f.state.down = true;
    const res = await f.server.fetch(new Request(`${BASE}/api/ping`, { headers: f.headers }));
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    // Any other error stays a 500: only a store outage is worth a retry.
    const g = await flakyServer(() => new TypeError("a bug"));
    g.state.down = true;
    expect(
      (await g.server.fetch(new Request(`${BASE}/api/ping`, { headers: g.headers }))).status,
    ).toBe(500);
  });

  it("S14: admin calls reject with the store's StoreUnavailableError", async () => {
    const f = await flakyServer();
    f.state.down = true;
    await expect(f.server.admin.balance(f.userId)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(f.server.admin.createUser({ credits: 5 })).rejects.toMatchObject({
      retryAfterMs: 3000,
    });
    await expect(f.server.admin.grantCredits(f.userId, 5)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    f.state.down = false;
    expect(await f.server.admin.balance(f.userId)).toBe(1000);
  });
});
