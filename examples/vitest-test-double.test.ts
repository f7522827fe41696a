/**
 * Recipe: the reference server as the test double of a Vitest suite, in process: reset before each
 * test, a price change crossed with the test clock, an answer lost after its charge and the keyed
 * retry that replays it, and the request journal. The last test does the same over HTTP with
 * `serve()`. examples/python/test_reference_server.py tells the same story from Python.
 */
import { catalog, defineCatalog } from "imagegen-pricing";
import { type RunningServer, serve } from "imagegen-pricing/node";
import { AnswerLostError, createReferenceServer } from "imagegen-pricing/server";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";

const KEY = "ck_test_recipe_0000000000000001";
const USER = "usr_recipe";

/** The built-in catalog from 2100-01-01, with beta2 at 4K costing 130 instead of 120. */
const from2100 = defineCatalog({
  ...catalog,
  version: "2100-01-01",
  models: {
    ...catalog.models,
    beta2: {
      ...catalog.models.beta2,
      prices: { ...catalog.models.beta2.prices, "4K": { low: 130 } },
    },
  },
});

const server = createReferenceServer({
  adminToken: "admin-token-for-tests",
  fixtures: { users: [{ id: USER, credits: 1000, apiKeys: [KEY] }] },
  catalogs: [catalog, from2100],
});

/** A request with the fixture's key: a GET without a body, else a POST of it as JSON. */
const request = (base: string, path: string, body?: unknown, idempotencyKey?: string) =>
  new Request(`${base}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: {
      authorization: `Bearer ${KEY}`,
      "content-type": "application/json",
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** Back to the fixtures, the clock on real time, no fault waiting and an empty journal. */
beforeEach(() => server.admin.reset());

describe("recipe: Vitest with the server as a test double, in process", () => {
  it("S17, P8: the test clock crosses a price change: quoted before, quoted and charged the new price after", async () => {
    const quote = async () =>
      (
        await server.fetch(
          request("http://test.local", "/api/pricing/quote", {
            kind: "image",
            modelId: "beta2",
            resolution: "4K",
            quality: "low",
          }),
        )
      ).json();

    await server.admin.setClock({ now: "2099-12-31T23:59:59Z" });
    expect(await quote()).toMatchObject({
      credits: 120,
      catalogVersion: catalog.version,
      nextChange: { version: "2100-01-01", effectiveAt: "2100-01-01T00:00:00.000Z", credits: 130 },
    });

    await server.admin.setClock({ advanceMs: 1000 });
    expect(await quote()).toMatchObject({ credits: 130, catalogVersion: "2100-01-01" });
    const accepted = await server.fetch(
      request("http://test.local", "/api/generations", {
        prompt: "a lighthouse",
        modelId: "beta2",
        resolution: "4K",
      }),
    );
    expect((await accepted.json()).billing).toEqual({
      totalCreditCost: 130,
      balanceAfterCredits: 870,
    });
  });

  it("S17, S5: a lose_answer fault rejects server.fetch with AnswerLostError after the charge; the keyed retry replays it, charged once; the journal shows both", async () => {
    const { apiKeyId } = await (
      await server.fetch(request("http://test.local", "/api/ping"))
    ).json();
    await server.admin.addFault({ kind: "lose_answer", path: "/api/generations", apiKeyId });
    const generate = () =>
      server.fetch(
        request(
          "http://test.local",
          "/api/generations",
          { prompt: "a red fox", modelId: "beta2" },
          "order-1042",
        ),
      );

    await expect(generate()).rejects.toBeInstanceOf(AnswerLostError);
    expect(await server.admin.balance(USER)).toBe(1000 - 80); // carried out in full: beta2 at 2K is 80

    const retry = await generate();
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await server.admin.balance(USER)).toBe(1000 - 80);
    expect((await server.admin.ledger(USER)).map((e) => [e.kind, e.credits])).toEqual([
      ["grant", 1000],
      ["debit", 80],
    ]);

    // Newest first, since the reset: the replay, the lost answer (status 0), the ping.
    const journal = await server.admin.requests({ limit: 10 });
    expect(journal.map((r) => [r.path, r.status, r.apiKeyId, r.idempotencyKey])).toEqual([
      ["/api/generations", 202, apiKeyId, "order-1042"],
      ["/api/generations", 0, apiKeyId, "order-1042"],
      ["/api/ping", 200, apiKeyId, undefined],
    ]);
    expect(JSON.stringify(journal)).not.toMatch(/ck_test_|red fox/);
  });

  it("S17: a reset brings the fixtures back, the clock on real time, and clears the faults and the journal", async () => {
    await server.admin.setClock({ now: "2100-06-01T00:00:00Z" });
    await server.admin.addFault({ kind: "unavailable", path: "/api/ping" });
    await server.fetch(
      request("http://test.local", "/api/generations", { prompt: "a boat", modelId: "beta2" }),
    );
    expect(await server.admin.balance(USER)).toBe(1000 - 80);

    await server.admin.reset();
    const clock = await server.admin.clock();
    expect(clock.frozen).toBe(false);
    expect(Date.parse(clock.now)).toBeLessThan(Date.parse("2100-06-01T00:00:00Z")); // real time again
    expect(await server.admin.faults()).toEqual([]);
    expect(await server.admin.requests()).toEqual([]);
    expect(await server.admin.ledger(USER)).toEqual([
      expect.objectContaining({ kind: "grant", credits: 1000 }),
    ]);
  });
});

describe("recipe: the same double over HTTP with serve()", () => {
  let running: RunningServer;
  beforeAll(async () => {
    running = await serve({ port: 0, server, handleSignals: false });
  });
  afterAll(() => running.close());

  it("S17, S5: over a socket a lost answer is a closed connection (fetch rejects with a TypeError); the keyed retry replays it, charged once", async () => {
    const { url } = running;
    const { apiKeyId } = await (await fetch(request(url, "/api/ping"))).json();
    await server.admin.addFault({ kind: "lose_answer", path: "/api/generations", apiKeyId });
    const generate = () =>
      fetch(
        request(url, "/api/generations", { prompt: "a red fox", modelId: "beta2" }, "order-1043"),
      );

    await expect(generate()).rejects.toBeInstanceOf(TypeError);
    const retry = await generate();
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await server.admin.balance(USER)).toBe(1000 - 80);
  });
});
