/**
 * The distributed layout of the store's schema on Citus: every table a request touches distributed
 * by user id and co-located, the API keys a reference table (copied to every node), and the
 * functions that take a user first delegated to the node that holds that user.
 */

import type { Pool, PoolClient } from "pg";
import { quoteSchema, withMigrationLock } from "./migrations/runner.js";

/**
 * The tables distributed by user id, each after the tables its foreign keys point at (Citus
 * distributes a referencing table only once the referenced one is distributed).
 */
const DISTRIBUTED_TABLES: readonly (readonly [table: string, column: string])[] = [
  ["users", "id"],
  ["tasks", "user_id"],
  ["jobs", "user_id"],
  ["idempotency", "user_id"],
  ["ledger", "user_id"],
  ["assets", "user_id"],
];

/** Looked up by hash before the user is known: a copy on every node answers it locally. */
const REFERENCE_TABLES: readonly string[] = ["api_keys"];

/**
 * The functions that take the user first, with that argument: a call is sent whole to the node
 * that holds the user's rows, and runs there in one round trip.
 */
const DISTRIBUTED_FUNCTIONS: readonly (readonly [signature: string, argument: string])[] = [
  [
    "commit_task(text, text, text, text, bigint, bigint, bigint, json, boolean, integer, " +
      "text, text, bigint[], bigint)",
    "p_user",
  ],
  [
    "accept_generation(text, text, text, text, bigint, bigint, bigint, json, boolean, " +
      "integer, text, text, bigint[], bigint, text[])",
    "p_user",
  ],
  ["fail_user_job(text, text, integer, bigint)", "p_user"],
  ["create_user(text, bigint, text, bigint)", "p_id"],
  ["grant_credits(text, bigint, bigint)", "p_user"],
];

/** What a store with `distributed: true` says on a database without Citus. */
const NO_CITUS =
  "distributed: true needs the Citus extension in this database " +
  "(CREATE EXTENSION citus on the coordinator, " +
  "with shared_preload_libraries = 'citus' on every node; docs/postgres.md, Citus), " +
  "and the store must connect to the coordinator";

/**
 * Whether the schema is laid out on Citus (its `users` distributed): a store that connects without
 * `distributed: true` to a schema laid out before still takes the distributed layout's queries.
 * `requireCitus` (`distributed: true`) refuses a database without Citus before anything is created.
 *
 * @throws Error naming what to install and where to connect, when Citus is required and missing.
 * @internal
 */
export async function isDistributed(
  pool: Pool,
  schema: string,
  requireCitus = false,
): Promise<boolean> {
  const { rows } = await pool.query<{ citus: boolean }>(
    "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus",
  );
  if (!rows[0]?.citus) {
    if (requireCitus) {
      throw new Error(NO_CITUS);
    }
    return false;
  }
  return isDistributedTable(pool, `${quoteSchema(schema)}.users`);
}

/** Whether a table (schema-qualified) is distributed or a reference table. */
async function isDistributedTable(db: Pool | PoolClient, table: string): Promise<boolean> {
  const { rows } = await db.query(
    "SELECT 1 FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)",
    [table],
  );
  return rows.length > 0;
}

/**
 * Lays a migrated schema out on Citus, once: distributes what is not yet distributed, in its own
 * transaction per table or function under the schema's migration lock (an advisory lock of the
 * coordinator, where every migration runs), so instances that start together do each step once.
 * Already distributed tables and functions are left as they are. Run on the coordinator, as the
 * role that owns the schema. Returns the tables and functions this call distributed. @internal
 */
export async function distributeSchema(pool: Pool, schema: string): Promise<string[]> {
  const s = quoteSchema(schema);
  return withMigrationLock(pool, schema, async (client, locked) => {
    const done: string[] = [];
    const step = (what: string, pending: () => Promise<boolean>, apply: () => Promise<unknown>) =>
      locked(async () => {
        // The triggers of jobs and ledger read nothing but their own row (append-only,
        // forward-only), which is what Citus asks of a trigger on a distributed table: they then
        // run on each shard.
        await client.query("SET LOCAL citus.enable_unsafe_triggers = on");
        if (await pending()) {
          await apply();
          done.push(what);
        }
      });
    const undistributed = async (table: string) =>
      !(await isDistributedTable(client, `${s}.${table}`));
    for (const table of REFERENCE_TABLES) {
      await step(
        table,
        () => undistributed(table),
        () => client.query("SELECT create_reference_table($1::regclass)", [`${s}.${table}`]),
      );
    }
    const [anchor] = DISTRIBUTED_TABLES[0] ?? ["users"];
    for (const [table, column] of DISTRIBUTED_TABLES) {
      await step(
        table,
        () => undistributed(table),
        () =>
          client.query("SELECT create_distributed_table($1::regclass, $2, colocate_with => $3)", [
            `${s}.${table}`,
            column,
            table === anchor ? "default" : `${s}.${anchor}`,
          ]),
      );
    }
    for (const [signature, argument] of DISTRIBUTED_FUNCTIONS) {
      const name = `${s}.${signature}`;
      await step(
        signature.slice(0, signature.indexOf("(")),
        async () => {
          const { rows: found } = await client.query(
            "SELECT 1 FROM pg_dist_object " +
              `WHERE classid = 'pg_proc'::regclass AND objid = $1::regprocedure
               AND distribution_argument_index IS NOT NULL`,
            [name],
          );
          return found.length === 0;
        },
        () =>
          client.query(
            "SELECT create_distributed_function($1::regprocedure, $2, colocate_with => $3)",
            [name, argument, `${s}.${anchor}`],
          ),
      );
    }
    return done;
  });
}
