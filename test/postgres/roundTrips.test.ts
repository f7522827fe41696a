/**
 * What an accepted generation costs the database through the reference server on the PostgreSQL
 * store: statements counted on the store's pool (each is one round trip), for every outcome of the
 * accept path; and what a caller answers when its key or its multiplier is changed by another
 * server on the same database.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { catalog } from "../../src/index.js";
import { createPostgresStore } from "../../src/postgres/store.js";
import { computeCharge } from "../../src/pricing/computeCharge.js";
import { normalizeRequest } from "../../src/request/normalizeRequest.js";
import { createReferenceServer, type ReferenceServer } from "../../src/server/index.js";
import { errorOf } from "../server/helpers.js";
import { type PostgresTestDatabase, recordStatements, withPostgres } from "../support/postgres.js";

const databases: { db: PostgresTestDatabase; pool: pg.Pool }[] = [];

/** A fresh schema and a pool on it, both dropped after the file's tests. */
async function database() {
  const db = await withPostgres();
  const pool = new pg.Pool({ connectionString: db.connectionString, max: 4 });
  databases.push({ db, pool });
  return { db, pool, store: () => createPostgresStore({ pool, schema: db.schema }) };
}

/** `POST /api/generations` of `body` with `key`. */
const generation = (server: ReferenceServer, key: string, body: unknown) =>
  server.fetch(
    new Request("http://localhost/api/generations", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );

afterAll(async () => {
  for (const { db, pool } of databases) {
    await pool.end();
    await db.drop();
  }
}, 60_000);

/** A server on a store whose pool records the text of every statement it sends. */
async function countingServer() {
  const { pool, store } = await database();
  const sent = recordStatements(pool);
  const server = createReferenceServer({ store: await store() });
  // Another server on the same database, as a second instance would be.
  const other = createReferenceServer({ store: await store() });
  const { userId } = await server.admin.createUser({ credits: 1000, multiplier: "1.15" });
  const { key, apiKeyId } = await server.admin.createApiKey(userId);
  const { assetId } = await server.admin.createAsset(userId);
  const generate = async (body: unknown) => {
    sent.length = 0;
    const res = await generation(server, key, body);
    const text = await res.text();
    return {
      status: res.status,
      text,
      replayed: res.headers.get("idempotent-replayed"),
      statements: sent.slice(),
    };
  };
  return { generate, assetId, other, userId, apiKeyId };
}

const LOOKUP = /FROM \S+\.api_keys k JOIN \S+\.users u/;
const ACCEPT = /\.accept_generation\(/;

describe("round trips per generation on PostgreSQL", () => {
  it("S14: a generation costs the key lookup and accept_generation, whatever its outcome: accepted, a replay, a 409 or a foreign reference", {
    timeout: 120_000,
  }, async () => {
    const { generate, assetId } = await countingServer();
    const expectTrips = (statements: string[], ...expected: RegExp[]) => {
      expect(statements).toHaveLength(expected.length);
      for (const [i, pattern] of expected.entries()) {
        expect(statements[i]).toMatch(pattern);
      }
    };
    const body = {
      prompt: "a fox",
      modelId: "beta",
      generationType: "image-to-image",
      inputAssetIds: [assetId],
    };

    const first = await generate({ ...body, idempotencyKey: "trips-0" });
    expect(first.status).toBe(202);
    expectTrips(first.statements, LOOKUP, ACCEPT);

    const accepted = await generate({ ...body, idempotencyKey: "trips-1" });
    expect(accepted.status).toBe(202);
    expectTrips(accepted.statements, LOOKUP, ACCEPT);

    const replay = await generate({ ...body, idempotencyKey: "trips-1" });
    expect([replay.status, replay.replayed]).toEqual([202, "true"]);
    expect(replay.text).toBe(accepted.text);
    expectTrips(replay.statements, LOOKUP, ACCEPT);

    const conflict = await generate({ ...body, prompt: "another fox", idempotencyKey: "trips-1" });
    expect(conflict.status).toBe(409);
    expectTrips(conflict.statements, LOOKUP, ACCEPT);

    const foreign = await generate({
      ...body,
      inputAssetIds: ["ast_nobody"],
      idempotencyKey: "trips-2",
    });
    expect(foreign.status).toBe(400);
    expectTrips(foreign.statements, LOOKUP, ACCEPT);

    const keyless = await generate({ prompt: "a fox", modelId: "beta", imageCount: 4 });
    expect(keyless.status).toBe(202);
    expectTrips(keyless.statements, LOOKUP, ACCEPT);
  });

  it("S1 S12 S15: a key revoked by another server after this one used it is refused 401 and charges nothing, for a valid body, an invalid one and a replay", {
    timeout: 120_000,
  }, async () => {
    const { generate, other, userId, apiKeyId } = await countingServer();
    const body = { prompt: "a fox", modelId: "beta", idempotencyKey: "revoked-1" };
    expect((await generate(body)).status).toBe(202);
    const balance = await other.admin.balance(userId);
    await other.admin.revokeApiKey(apiKeyId);

    for (const sent of [
      { ...body, idempotencyKey: "revoked-2" }, // would be accepted
      { ...body, modelId: "no-such-model", idempotencyKey: "revoked-3" }, // would be 400
      body, // would be replayed
    ]) {
      const answer = await generate(sent);
      expect([answer.status, JSON.parse(answer.text).error.code]).toEqual([401, "invalid_api_key"]);
      expect(answer.statements).toHaveLength(1);
      expect(answer.statements[0]).toMatch(LOOKUP);
    }
    expect(await other.admin.balance(userId)).toBe(balance);
  });

  it("S4 S14: a multiplier changed by another server after this one used the key: the next generation is charged at the new multiplier, read with the key", {
    timeout: 120_000,
  }, async () => {
    const { generate, other, userId } = await countingServer();
    const body = { prompt: "a fox", modelId: "beta", imageCount: 2 };
    const before = JSON.parse((await generate(body)).text).billing.totalCreditCost as number;
    await other.admin.setPriceMultiplier(userId, "2.3");

    const changed = await generate(body);
    expect(changed.status).toBe(202);
    const request = normalizeRequest(body);
    if (!request.success) {
      throw new Error("the body is valid");
    }
    const charge = (multiplier: string) =>
      computeCharge(request.output, { account: { multiplier } }).totalCreditCost;
    expect(before).toBe(charge("1.15"));
    expect(JSON.parse(changed.text).billing.totalCreditCost).toBe(charge("2.3"));
    // The key's lookup reads the new multiplier: one accept_generation after it.
    expect(changed.statements).toHaveLength(2);
    expect(changed.statements[0]).toMatch(LOOKUP);
    expect(changed.statements[1]).toMatch(ACCEPT);
  });

  it("S14 S17: a key given to another user by another server's reset is charged to that user, not refused", {
    timeout: 120_000,
  }, async () => {
    const { store } = await database();
    const key = "ck_test_rememberedRememberedRemembered";
    const fixtures = (id: string) => ({ users: [{ id, credits: 1000, apiKeys: [key] }] });
    const server = createReferenceServer({ store: await store(), fixtures: fixtures("usr_alice") });
    await server.ready();
    const generate = () => generation(server, key, { prompt: "a fox", modelId: "beta" });
    expect((await generate()).status).toBe(202);
    const alice = await server.admin.balance("usr_alice");
    expect(alice).toBeLessThan(1000);

    // Its fixtures give the same key to another user: its first load fails, its reset takes over.
    const other = createReferenceServer({ store: await store(), fixtures: fixtures("usr_bob") });
    await other.admin.reset();
    const answer = await generate();
    expect(answer.status).toBe(202);
    expect(await other.admin.balance("usr_bob")).toBe(alice);
  });

  it("S12 S14: before any catalog is in force, a generation by a caller whose key was since revoked is 401, not the 503 of the missing prices", {
    timeout: 120_000,
  }, async () => {
    const { store } = await database();
    const logged: string[] = [];
    const server = createReferenceServer({
      store: await store(),
      catalogs: [{ ...catalog, version: "2099-01-01" }],
      log: (entry) => logged.push(entry.message),
    });
    const other = createReferenceServer({ store: await store() });
    const { userId } = await server.admin.createUser({ credits: 1000 });
    const { key, apiKeyId } = await server.admin.createApiKey(userId);
    const generate = async () => {
      const res = await generation(server, key, { prompt: "a fox", modelId: "beta" });
      return [res.status, (await errorOf(res)).code];
    };
    expect(await generate()).toEqual([503, "service_unavailable"]);
    await other.admin.revokeApiKey(apiKeyId);
    expect(await generate()).toEqual([401, "invalid_api_key"]);
    expect(logged).toEqual(["no catalog is in force yet"]);
  });
});
