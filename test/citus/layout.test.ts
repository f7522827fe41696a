/**
 * The distributed layout on a real Citus cluster (`npm run test:citus`): what `distributed: true`
 * makes of the schema, read back from Citus's own catalog, and what a store refuses without Citus.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { distributeSchema } from "../../src/postgres/citus.js";
import { MIGRATIONS } from "../../src/postgres/migrations/index.js";
import { runMigrations } from "../../src/postgres/migrations/runner.js";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { createReferenceServer } from "../../src/server/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { oneShot, type PostgresTestDatabase, withPostgres } from "../support/postgres.js";

let db: PostgresTestDatabase;
let store: PostgresStore;

beforeAllOrFail(async () => {
  db = await withPostgres();
  store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
    distributed: true,
  });
}, 45 * 60_000);

afterAll(async () => {
  await store?.close();
  await db?.drop();
});

const DISTRIBUTED = {
  users: "id",
  tasks: "user_id",
  jobs: "user_id",
  idempotency: "user_id",
  ledger: "user_id",
  assets: "user_id",
};
const DELEGATED = [
  "accept_generation",
  "commit_task",
  "create_user",
  "fail_user_job",
  "grant_credits",
];

describe("distributed: true on a Citus coordinator", () => {
  it("every table a request touches is distributed by its user id column, all co-located; api_keys is a reference table", async () => {
    const { rows } = await db.sql<{
      table: string;
      method: string;
      column: string | null;
      colocation: number;
    }>(
      `SELECT c.relname AS table, p.partmethod AS method, column_to_column_name(p.logicalrelid, p.partkey) AS column,
              p.colocationid AS colocation
       FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid
       WHERE c.relnamespace = $1::regnamespace ORDER BY c.relname`,
      [`"${db.schema}"`],
    );
    const byTable = Object.fromEntries(rows.map((r) => [r.table, r]));
    // `n`: replicated to every node (a reference table has no distribution column).
    expect(byTable.api_keys).toMatchObject({ method: "n", column: null });
    for (const [table, column] of Object.entries(DISTRIBUTED)) {
      expect(byTable[table], table).toMatchObject({ method: "h", column });
    }
    expect(new Set(Object.keys(DISTRIBUTED).map((t) => byTable[t]?.colocation)).size).toBe(1);
    // The migrations table and its advisory lock stay on the coordinator.
    expect(Object.keys(byTable).sort()).toEqual(["api_keys", ...Object.keys(DISTRIBUTED)].sort());
  });

  it("accept_generation, commit_task, fail_user_job, create_user and grant_credits are delegated by their first argument, the user, co-located with users", async () => {
    const { rows } = await db.sql<{ name: string; argument: number; colocated: boolean }>(
      `SELECT p.proname AS name, o.distribution_argument_index AS argument,
              o.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = to_regclass($2)) AS colocated
       FROM pg_dist_object o JOIN pg_proc p ON o.classid = 'pg_proc'::regclass AND o.objid = p.oid
       WHERE p.pronamespace = $1::regnamespace AND o.distribution_argument_index IS NOT NULL ORDER BY p.proname`,
      [`"${db.schema}"`, `"${db.schema}".users`],
    );
    expect(rows).toEqual(DELEGATED.map((name) => ({ name, argument: 0, colocated: true })));
  });

  it("a user's row, tasks, jobs, claims, ledger and assets are in shards of one worker; the user's task id finds them", async () => {
    const operator = createReferenceServer({ store });
    const { userId } = await operator.admin.createUser({ credits: 1000 });
    const { key } = await operator.admin.createApiKey(userId);
    const { assetId } = await operator.admin.createAsset(userId);
    const response = await operator.fetch(
      new Request("http://localhost/api/generations", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          prompt: "a fox",
          modelId: "beta",
          imageCount: 2,
          idempotencyKey: "k1",
        }),
      }),
    );
    expect(response.status).toBe(202);
    const { batch } = (await response.json()) as {
      batch: { taskId: string; results: { job: { id: string } }[] };
    };
    const firstJob = batch.results[0]?.job.id as string;
    expect((await operator.admin.failJob(firstJob)).refundedCredits).toBeGreaterThan(0);
    expect((await operator.admin.task(batch.taskId)).jobs.map((j) => j.status)).toEqual([
      "failed",
      "queued",
    ]);

    const { rows } = await db.sql<{ table: string; node: string }>(
      `SELECT t.name AS table, n.nodename || ':' || n.nodeport AS node
       FROM unnest($2::text[]) AS t (name)
       JOIN pg_dist_placement p ON p.shardid = get_shard_id_for_distribution_column(($1 || '.' || t.name)::regclass, $3::text)
       JOIN pg_dist_node n ON n.groupid = p.groupid`,
      [`"${db.schema}"`, Object.keys(DISTRIBUTED), userId],
    );
    expect(rows.length).toBe(Object.keys(DISTRIBUTED).length);
    expect(new Set(rows.map((r) => r.node)).size).toBe(1);
    // And they hold the rows: one count per table, each on that user's shard.
    const counts = await db.sql<{
      tasks: number;
      jobs: number;
      claims: number;
      entries: number;
      assets: number;
    }>(
      `SELECT (SELECT count(*) FROM "${db.schema}".tasks WHERE user_id = $1)::int AS tasks,
              (SELECT count(*) FROM "${db.schema}".jobs WHERE user_id = $1)::int AS jobs,
              (SELECT count(*) FROM "${db.schema}".idempotency WHERE user_id = $1)::int AS claims,
              (SELECT count(*) FROM "${db.schema}".ledger WHERE user_id = $1)::int AS entries,
              (SELECT count(*) FROM "${db.schema}".assets WHERE user_id = $1 AND asset_id = $2)::int AS assets`,
      [userId, assetId],
    );
    expect(counts.rows).toEqual([{ tasks: 1, jobs: 2, claims: 1, entries: 3, assets: 1 }]);
  });

  it("a second store on the distributed schema starts and changes nothing", async () => {
    const before = await db.sql(`SELECT count(*)::int AS n FROM pg_dist_partition`);
    const again = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      distributed: true,
    });
    await again.close();
    expect((await db.sql(`SELECT count(*)::int AS n FROM pg_dist_partition`)).rows).toEqual(
      before.rows,
    );
  });

  it("S14: a schema laid out at version 7 gets migration 8's accept_generation on every node on its next start", async () => {
    const older = await withPostgres();
    const pool = new pg.Pool({ connectionString: older.connectionString, max: 1 });
    try {
      // What a package of version 7 left: the schema migrated to 7 and laid out.
      await runMigrations(
        pool,
        older.schema,
        MIGRATIONS.filter((m) => m.version <= 7),
      );
      await distributeSchema(pool, older.schema);
      const bodies = async () => {
        const { rows } = await older.sql<{ result: string }>(
          "SELECT result FROM run_command_on_all_nodes($1)",
          [
            `SELECT md5(prosrc) FROM pg_proc WHERE oid = '"${older.schema}".accept_generation'::regproc`,
          ],
        );
        return new Set(rows.map((r) => r.result));
      };
      const before = await bodies();
      expect(before.size).toBe(1);
      const upgraded = await createPostgresStore({
        connectionString: older.connectionString,
        schema: older.schema,
        distributed: true,
      });
      await upgraded.close();
      const after = await bodies();
      // One body on the coordinator and both workers, and not the one of version 7.
      expect(after.size).toBe(1);
      expect([...after][0]).not.toBe([...before][0]);
      const { rows } = await older.sql<{ nodes: number }>(
        "SELECT count(*)::int AS nodes FROM run_command_on_all_nodes('SELECT 1')",
      );
      expect(rows).toEqual([{ nodes: 3 }]);
    } finally {
      await pool.end();
      await older.drop();
    }
  });

  it("distributed: true on a database without the Citus extension is refused, naming what to do", async () => {
    const name = `plain_${db.schema}`;
    await db.sql(`CREATE DATABASE ${name}`);
    try {
      const url = new URL(db.connectionString);
      url.pathname = `/${name}`;
      await expect(
        createPostgresStore({
          connectionString: url.toString(),
          schema: "imagegen",
          distributed: true,
        }),
      ).rejects.toThrow(/needs the Citus extension in this database \(CREATE EXTENSION citus/);
    } finally {
      await oneShot(db.connectionString, `DROP DATABASE ${name}`);
    }
  });
});
