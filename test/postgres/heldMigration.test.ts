/**
 * Migration 2 on a schema with data from version 1: `users.held` starts as the credits of each
 * user's queued jobs, so the bound a grant keeps (S15) counts what version 1 accepted too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/postgres/migrations/index.js";
import { createPostgresStore, migratePostgres } from "../../src/postgres/store.js";
import { MAX_CREDITS } from "../../src/store/store.js";
import { type PostgresTestDatabase, withPostgres } from "../support/postgres.js";
import { T0 } from "../support/storeContract.js";

let db: PostgresTestDatabase;
beforeAll(async () => {
  db = await withPostgres();
}, 180_000);
afterAll(async () => {
  await db?.drop();
});

describe("migration 2: credits held by queued jobs", () => {
  it("S15: held is summed from version 1's queued jobs, and the grant bound and refunds use it", {
    timeout: 60_000,
  }, async () => {
    const s = `"${db.schema}"`;
    const version1 = MIGRATIONS.find((m) => m.version === 1);
    if (!version1) {
      throw new Error("no migration 1");
    }
    // A schema as version 1 of the package left it.
    await db.sql(`CREATE SCHEMA ${s}`);
    await db.sql(
      `CREATE TABLE ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    await db.sql(version1.sql(s));
    await db.sql(`INSERT INTO ${s}.migrations (version, name) VALUES (1, $1)`, [version1.name]);
    await db.sql(
      `INSERT INTO ${s}.users (id, balance, multiplier) VALUES ('usr_a', $1, '1'), ('usr_b', 7, '1')`,
      [MAX_CREDITS],
    );
    await db.sql(
      `INSERT INTO ${s}.api_keys (id, user_id, mode, hash) VALUES ('apk_a', 'usr_a', 'test', $1)`,
      ["a".repeat(64)],
    );
    const commit = (task: string, jobs: number[]) =>
      db.sql(
        `SELECT outcome FROM ${s}.commit_task('usr_a', $1, 'apk_a', NULL, NULL, $2, $2, '{}', false, 0, '1', 'v', $3, $4)`,
        [task, T0, jobs, jobs.reduce((a, b) => a + b, 0)],
      );
    await commit("task_1", [30, 20]);
    await commit("task_2", [5]);
    await db.sql(`SELECT ${s}.fail_job('task_1', 0, $1)`, [T0]);

    expect(
      await migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ).toMatchObject({
      applied: MIGRATIONS.slice(1).map((m) => m.version),
    });
    const { rows } = await db.sql<{ id: string; balance: string; held: string }>(
      `SELECT id, balance::text, held::text FROM ${s}.users ORDER BY id`,
    );
    expect(rows).toEqual([
      { id: "usr_a", balance: String(MAX_CREDITS - 25), held: "25" },
      { id: "usr_b", balance: "7", held: "0" },
    ]);

    const store = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
    });
    try {
      expect(await store.grant("usr_a", 1, T0)).toEqual({
        ok: false,
        reason: "balance_too_large",
        balance: MAX_CREDITS - 25,
        held: 25,
      });
      expect(await store.failJob("task_1", 1, T0)).toBe(20);
      expect(await store.failJob("task_2", 0, T0)).toBe(5);
      expect((await store.getUser("usr_a"))?.balance).toBe(MAX_CREDITS);
      const after = await db.sql<{ held: string }>(
        `SELECT held::text FROM ${s}.users WHERE id = 'usr_a'`,
      );
      expect(after.rows).toEqual([{ held: "0" }]);
    } finally {
      await store.close();
    }
  });
});
