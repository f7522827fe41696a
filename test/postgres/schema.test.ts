import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { MAX_CREDITS } from "../../src/store/store.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type PostgresTestDatabase, withPostgres } from "../support/postgres.js";
import { sampleDraft, T0 } from "../support/storeContract.js";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

let db: PostgresTestDatabase;
let store: PostgresStore;
let userId: string;
let taskId: string;
beforeAllOrFail(async () => {
  db = await withPostgres();
  store = await createPostgresStore({ connectionString: db.connectionString, schema: db.schema });
  userId = `usr_${hex(8)}`;
  await store.createUser({ id: userId, credits: 100, multiplier: "1" }, T0);
  const apiKeyId = `apk_${hex(8)}`;
  await store.putApiKey({ id: apiKeyId, userId, mode: "test", hash: hex(32), revoked: false });
  const draft = sampleDraft(userId, [10, 10]);
  taskId = draft.id;
  await store.commitTask({ task: draft, apiKeyId }, T0);
  await store.failJob(taskId, 0, T0);
}, 180_000);
afterAll(async () => {
  await store?.close();
  await db?.drop();
});

describe("what the tables themselves refuse", () => {
  it("S13: a ledger entry can never be updated, deleted or truncated, whoever asks", async () => {
    const t = `"${db.schema}".ledger`;
    await expect(
      db.sql(`UPDATE ${t} SET credits = credits + 1 WHERE user_id = $1`, [userId]),
    ).rejects.toThrow("the ledger is append-only: UPDATE is not allowed");
    await expect(db.sql(`DELETE FROM ${t} WHERE user_id = $1`, [userId])).rejects.toThrow(
      "the ledger is append-only: DELETE is not allowed",
    );
    await expect(db.sql(`TRUNCATE ${t}`)).rejects.toThrow(
      "the ledger is append-only: TRUNCATE is not allowed",
    );
    expect((await store.ledger(userId))?.map((e) => e.kind)).toEqual(["grant", "debit", "refund"]);
  });

  it("S4: a balance below zero or above 2^53 - 1 is refused by the table", async () => {
    const t = `"${db.schema}".users`;
    await expect(db.sql(`UPDATE ${t} SET balance = -1 WHERE id = $1`, [userId])).rejects.toThrow(
      /check constraint/,
    );
    await expect(
      db.sql(`UPDATE ${t} SET balance = $2 WHERE id = $1`, [userId, `${MAX_CREDITS + 1}`]),
    ).rejects.toThrow(/check constraint/);
    const { rows } = await db.sql(
      `SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND column_name IN ('balance', 'credits')`,
      [db.schema],
    );
    expect(new Set(rows.map((r) => r.data_type))).toEqual(new Set(["bigint"]));
  });

  it("S6: a failed job can never be queued again (so never refunded twice), nor its charge changed", async () => {
    const t = `"${db.schema}".jobs`;
    await expect(
      db.sql(`UPDATE ${t} SET status = 'queued' WHERE task_id = $1 AND idx = 0`, [taskId]),
    ).rejects.toThrow("a job only moves from queued to failed");
    await expect(
      db.sql(`UPDATE ${t} SET credits = 0 WHERE task_id = $1 AND idx = 1`, [taskId]),
    ).rejects.toThrow("a job only moves from queued to failed");
    await expect(db.sql(`DELETE FROM ${t} WHERE task_id = $1`, [taskId])).rejects.toThrow(
      "a job only moves from queued to failed",
    );
    expect(await store.failJob(taskId, 0, T0)).toBe(0);
  });

  it("S2: an API key row holds only a 64-hex SHA-256: the key itself cannot be stored", async () => {
    await expect(
      store.putApiKey({
        id: `apk_${hex(8)}`,
        userId,
        mode: "test",
        hash: `ck_test_${hex(24)}`,
        revoked: false,
      }),
    ).rejects.toThrow(/check constraint/);
    const { rows } = await db.sql(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'api_keys'`,
      [db.schema],
    );
    expect(rows.map((r) => r.column_name).sort()).toEqual([
      "hash",
      "id",
      "mode",
      "revoked",
      "user_id",
    ]);
  });

  it("every table a request writes has the user id first in its primary key", async () => {
    const { rows } = await db.sql<{ table: string; first: string }>(
      `SELECT c.relname AS table, a.attname AS first
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = i.indkey[0]
       WHERE n.nspname = $1 AND i.indisprimary ORDER BY c.relname`,
      [db.schema],
    );
    expect(Object.fromEntries(rows.map((r) => [r.table, r.first]))).toEqual({
      api_keys: "id",
      assets: "user_id",
      idempotency: "user_id",
      jobs: "user_id",
      ledger: "user_id",
      migrations: "version",
      tasks: "user_id",
      users: "id",
    });
  });
});

describe("every request path is an index lookup", () => {
  it("S15: with sequential scans disabled, a whole workload through the store scans no table", {
    timeout: 60_000,
  }, async () => {
    // A schema of its own, which no other session of this file touches: its counters move only
    // with this workload. It is migrated, and its migrating sessions ended, before they are read.
    const fresh = await withPostgres();
    const migrating = new pg.Pool({
      connectionString: fresh.connectionString,
      application_name: MIGRATING,
      max: 1,
    });
    await (await createPostgresStore({ pool: migrating, schema: fresh.schema })).close();
    await migrating.end();
    await sessionsEnded(MIGRATING);
    // enable_seqscan = off leaves a sequential scan only where no index can serve the query.
    const pool = new pg.Pool({
      connectionString: fresh.connectionString,
      options: "-c enable_seqscan=off",
      application_name: WORKLOAD,
      max: 4,
    });
    const s = await createPostgresStore({ pool, schema: fresh.schema });
    const before = await scans(fresh.schema);
    const u = `usr_${hex(8)}`;
    await s.createUser({ id: u, credits: 50, multiplier: "1" }, T0);
    await s.getUser(u);
    await s.grant(u, 5, T0);
    await s.grant(`usr_${hex(8)}`, 5, T0);
    await s.setMultiplier(u, "1.5");
    const key = {
      id: `apk_${hex(8)}`,
      userId: u,
      mode: "live" as const,
      hash: hex(32),
      revoked: false,
    };
    await s.putApiKey(key);
    await s.findCaller(key.hash);
    const asset = `ast_${hex(8)}`;
    await s.putAsset(asset, u);
    await s.ownedAssets(u, [`ast_${hex(8)}`, `ast_${hex(8)}`]);
    const priced = { multiplier: "1.5" };
    const first = sampleDraft(u, [10, 10], priced);
    const claim = { key: first.request.idempotencyKey ?? "" };
    await s.commitTask({ task: first, apiKeyId: key.id, claim, assetIds: [asset] }, T0);
    await s.commitTask({ task: sampleDraft(u, [1], priced), apiKeyId: key.id, claim }, T0);
    await s.commitTask(
      { task: sampleDraft(u, [1000], priced), apiKeyId: key.id, claim: { key: "other" } },
      T0,
    );
    await s.commitTask(
      { task: sampleDraft(u, [1], priced), apiKeyId: key.id, assetIds: [`ast_${hex(8)}`] },
      T0,
    );
    await s.commitTask({ task: sampleDraft(u, [1]), apiKeyId: key.id }, T0);
    await s.findClaimedTask(u, claim.key, T0);
    await s.getTask(first.id);
    await s.failJob(first.id, 1, T0);
    await s.failJob(first.id, 1, T0);
    await s.failJob(first.id, 7, T0);
    await s.ledger(u);
    await s.revokeApiKey(key.id);
    await s.commitTask({ task: sampleDraft(u, [1], priced), apiKeyId: key.id }, T0);
    await s.close();
    await pool.end();
    await sessionsEnded(WORKLOAD);
    const after = await scans(fresh.schema);
    await fresh.drop();
    for (const [table, { seq, idx }] of Object.entries(after)) {
      if (table === "migrations") {
        continue;
      }
      expect({ table, seq: seq - (before[table]?.seq ?? 0) }).toEqual({ table, seq: 0 });
      expect(idx - (before[table]?.idx ?? 0), table).toBeGreaterThan(0);
    }
  });
});

/** The application names of the scan test's two pools, to see in pg_stat_activity when their sessions are gone. */
const MIGRATING = "imagegen-scan-test-migrating";
const WORKLOAD = "imagegen-scan-test-workload";

/**
 * Waits (bounded, about 60 s) until no session of `applicationName` is left. A session writes its
 * table counters before it leaves pg_stat_activity, so once it is gone its scans are all counted.
 */
async function sessionsEnded(applicationName: string): Promise<void> {
  for (let tries = 0; tries < 600; tries++) {
    const { rows } = await db.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [applicationName],
    );
    if (rows[0]?.n === 0) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the sessions of ${applicationName} did not end within about 60 s`);
}

/** Sequential and index scans per table of `schema`, as the ended sessions left them. */
async function scans(schema: string): Promise<Record<string, { seq: number; idx: number }>> {
  const { rows } = await db.sql<{ relname: string; seq: string; idx: string }>(
    `SELECT relname, seq_scan AS seq, coalesce(idx_scan, 0) AS idx FROM pg_stat_user_tables WHERE schemaname = $1`,
    [schema],
  );
  return Object.fromEntries(
    rows.map((r) => [r.relname, { seq: Number(r.seq), idx: Number(r.idx) }]),
  );
}
