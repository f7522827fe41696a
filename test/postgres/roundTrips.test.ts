/**
 * What an accepted generation costs the database through the reference server on the PostgreSQL
 * store: statements counted on the store's pool (each is one round trip), for every outcome of the
 * accept path.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore } from "../../src/postgres/store.js";
import { createReferenceServer } from "../../src/server/index.js";
import { type PostgresTestDatabase, recordStatements, withPostgres } from "../support/postgres.js";

let database: { db: PostgresTestDatabase; pool: pg.Pool; sent: string[] } | undefined;

afterAll(async () => {
  if (!database) return;
  await database.pool.end();
  await database.db.drop();
}, 60_000);

/** A server on a store whose pool records the text of every statement it sends. */
async function countingServer() {
  const db = await withPostgres();
  const pool = new pg.Pool({ connectionString: db.connectionString, max: 4 });
  const sent = recordStatements(pool);
  database = { db, pool, sent };
  const store = await createPostgresStore({ pool, schema: db.schema });
  const server = createReferenceServer({ store });
  const { userId } = await server.admin.createUser({ credits: 1000, multiplier: "1.15" });
  const { key } = await server.admin.createApiKey(userId);
  const { assetId } = await server.admin.createAsset(userId);
  const generate = async (body: unknown) => {
    sent.length = 0;
    const res = await server.fetch(
      new Request("http://localhost/api/generations", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    return { status: res.status, replayed: res.headers.get("idempotent-replayed"), statements: sent.slice() };
  };
  return { generate, assetId };
}

describe("round trips per generation on PostgreSQL", () => {
  it("S14: accepted (with or without a client key), replayed, 409 or refused for a foreign reference: each costs two statements, the key lookup and accept_generation", {
    timeout: 120_000,
  }, async () => {
    const { generate, assetId } = await countingServer();
    const twoTrips = (statements: string[]) => {
      expect(statements).toHaveLength(2);
      expect(statements[0]).toMatch(/FROM \S+\.api_keys k JOIN \S+\.users u/);
      expect(statements[1]).toMatch(/\.accept_generation\(/);
    };
    const body = { prompt: "a fox", modelId: "beta", generationType: "image-to-image", inputAssetIds: [assetId] };

    const accepted = await generate({ ...body, idempotencyKey: "trips-1" });
    expect(accepted.status).toBe(202);
    twoTrips(accepted.statements);

    const replay = await generate({ ...body, idempotencyKey: "trips-1" });
    expect([replay.status, replay.replayed]).toEqual([202, "true"]);
    twoTrips(replay.statements);

    const conflict = await generate({ ...body, prompt: "another fox", idempotencyKey: "trips-1" });
    expect(conflict.status).toBe(409);
    twoTrips(conflict.statements);

    const foreign = await generate({ ...body, inputAssetIds: ["ast_nobody"], idempotencyKey: "trips-2" });
    expect(foreign.status).toBe(400);
    twoTrips(foreign.statements);

    const keyless = await generate({ prompt: "a fox", modelId: "beta", imageCount: 4 });
    expect(keyless.status).toBe(202);
    twoTrips(keyless.statements);
  });
});
