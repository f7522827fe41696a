/**
 * The key lookup on a real Citus cluster (`npm run test:citus`): on the distributed layout the store
 * looks a key up through `find_caller`, which reads the key from the reference table and then the
 * user by its id, so it reaches one shard of `users`; the join it replaces reaches every shard. The
 * shards a statement reaches are counted from Citus's own log of the commands it sends to workers.
 */
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { distributeSchema } from "../../src/postgres/citus.js";
import { MIGRATIONS } from "../../src/postgres/migrations/index.js";
import { runMigrations } from "../../src/postgres/migrations/runner.js";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type PostgresTestDatabase, recordStatements, withPostgres } from "../support/postgres.js";

let db: PostgresTestDatabase;
let store: PostgresStore;
const opened: { end: () => Promise<void> }[] = [];
const dropped: PostgresTestDatabase[] = [];

beforeAllOrFail(async () => {
  db = await withPostgres();
  dropped.push(db);
  store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
    distributed: true,
  });
}, 45 * 60_000);

afterAll(async () => {
  await store?.close();
  for (const resource of opened) {
    await resource.end().catch(() => {});
  }
  for (const database of dropped) {
    await database.drop();
  }
}, 120_000);

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A user with a multiplier and a live key of theirs, made through the store. */
async function caller(on: PostgresStore, multiplier: string) {
  const userId = `usr_${hex(6)}`;
  expect(await on.createUser({ id: userId, credits: 100, multiplier }, 1)).toBe(true);
  const key = {
    id: `apk_${hex(6)}`,
    userId,
    mode: "live" as const,
    hash: createHash("sha256").update(hex(16)).digest("hex"),
    revoked: false,
  };
  expect(await on.putApiKey(key)).toBe(true);
  return { userId, key };
}

/**
 * A connection of its own on which Citus logs each command it sends to a worker (the client gets
 * them as notices): `reached` runs one statement and names the shards of a table those commands
 * named.
 */
async function loggingClient(on: PostgresTestDatabase) {
  const schema = on.schema;
  const client = new pg.Client({ connectionString: on.connectionString });
  await client.connect();
  opened.push(client);
  const notices: string[] = [];
  client.on("notice", (notice) => notices.push(notice.message ?? ""));
  await client.query("SET citus.log_remote_commands = on");
  await client.query("SET client_min_messages = log");
  const reached = async (text: string, values: unknown[], table: string) => {
    notices.length = 0;
    const { rows } = await client.query(text, values);
    const shard = new RegExp(`\\b${schema}\\.${table}_(\\d+)\\b`, "g");
    const named = notices
      .map((message) => [...message.matchAll(shard)].map((m) => Number(m[1])))
      .filter((ids) => ids.length > 0);
    const commands = named.length;
    const shards = named.flat();
    return { rows, commands, shards: [...new Set(shards)].sort((a, b) => a - b) };
  };
  return { client, reached };
}

/** The shard of `users` that holds a user. */
async function shardOf(schema: string, userId: string): Promise<number> {
  const { rows } = await db.sql<{ shard: string }>(
    "SELECT get_shard_id_for_distribution_column($1::regclass, $2::text) AS shard",
    [`"${schema}".users`, userId],
  );
  return Number(rows[0]?.shard);
}

const JOIN = (s: string) => `SELECT k.id, k.user_id, k.mode, k.hash, k.revoked, u.multiplier
  FROM ${s}.api_keys k JOIN ${s}.users u ON u.id = k.user_id WHERE k.hash = $1`;
const FIND_CALLER = (s: string) =>
  `SELECT id, user_id, mode, hash, revoked, multiplier FROM ${s}.find_caller($1)`;

describe("the key lookup on the distributed layout", () => {
  it("S2: find_caller reaches the one shard of users that holds the key's user, where the join reaches every shard; both answer the same row", async () => {
    const s = `"${db.schema}"`;
    const { userId, key } = await caller(store, "1.15");
    const { reached } = await loggingClient(db);
    const { rows: shardRows } = await db.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_dist_shard WHERE logicalrelid = $1::regclass",
      [`${s}.users`],
    );
    const shardCount = shardRows[0]?.n ?? 0;
    expect(shardCount).toBeGreaterThan(1);

    // The old lookup: its filter is on the reference table, so Citus cannot prune users.
    const join = await reached(JOIN(s), [key.hash], "users");
    expect(join.shards.length).toBeGreaterThan(1);
    expect(join.shards.length).toBe(shardCount);

    const routed = await reached(FIND_CALLER(s), [key.hash], "users");
    expect(routed.commands).toBe(1);
    expect(routed.shards).toEqual([await shardOf(db.schema, userId)]);
    // The key itself is read from one placement of the reference table (the coordinator's, or one worker's).
    expect(
      (await reached(FIND_CALLER(s), [key.hash], "api_keys")).shards.length,
    ).toBeLessThanOrEqual(1);

    const expected = {
      id: key.id,
      user_id: userId,
      mode: "live",
      hash: key.hash,
      revoked: false,
      multiplier: "1.15",
    };
    expect(join.rows).toEqual([expected]);
    expect(routed.rows).toEqual([expected]);
    // An unknown hash reaches no shard of users at all.
    const unknown = await reached(FIND_CALLER(s), [hex(32)], "users");
    expect([unknown.rows, unknown.commands]).toEqual([[], 0]);
  });

  it("S2: findCaller on the distributed layout is one statement, find_caller, and answers as the join: the key, its user's multiplier, revoked or not; an unknown hash gives undefined", async () => {
    // A store given its own pool, and started without `distributed: true`: it reads the layout.
    const pool = new pg.Pool({ connectionString: db.connectionString, max: 2 });
    opened.push(pool);
    const sent = recordStatements(pool);
    const undeclared = await createPostgresStore({ pool, schema: db.schema });
    try {
      for (const on of [store, undeclared]) {
        const { userId, key } = await caller(on, "1.15");
        sent.length = 0;
        expect(await undeclared.findCaller(key.hash)).toEqual({ key, multiplier: "1.15" });
        expect(sent).toHaveLength(1);
        expect(sent[0]).toMatch(/\.find_caller\(\$1\)/);

        expect(await on.setMultiplier(userId, "0.85")).toBe(true);
        expect(await on.revokeApiKey(key.id)).toBe(true);
        expect(await on.findCaller(key.hash)).toEqual({
          key: { ...key, revoked: true },
          multiplier: "0.85",
        });
        expect(await on.findCaller(hex(32))).toBeUndefined();
      }
    } finally {
      await undeclared.close();
    }
  });

  it("S2: a schema laid out on Citus at version 6 gets find_caller from migration 7 on its next start, and the lookup reaches one shard", async () => {
    const older = await withPostgres();
    dropped.push(older);
    const pool = new pg.Pool({ connectionString: older.connectionString, max: 1 });
    opened.push(pool);
    // What a package of version 6 left: the schema migrated to 6 and laid out, without find_caller.
    expect(
      await runMigrations(
        pool,
        older.schema,
        MIGRATIONS.filter((m) => m.version <= 6),
      ),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    await distributeSchema(pool, older.schema);
    const { rows: before } = await older.sql("SELECT to_regproc($1) AS f", [
      `"${older.schema}".find_caller`,
    ]);
    expect(before).toEqual([{ f: null }]);

    const upgraded = await createPostgresStore({
      connectionString: older.connectionString,
      schema: older.schema,
      distributed: true,
    });
    try {
      const { userId, key } = await caller(upgraded, "2");
      expect(await upgraded.findCaller(key.hash)).toEqual({ key, multiplier: "2" });
      const { reached } = await loggingClient(older);
      const routed = await reached(FIND_CALLER(`"${older.schema}"`), [key.hash], "users");
      expect(routed.shards).toEqual([await shardOf(older.schema, userId)]);
    } finally {
      await upgraded.close();
    }
  });
});
