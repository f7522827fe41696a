/**
 * Real PostgreSQL for tests: the database of a vitest run (a throwaway cluster made from the
 * machine's server binaries, or `DATABASE_URL`), a fresh schema per test file, and clusters a test
 * may stop and start (re-exported from postgresCluster.ts).
 *
 * One cluster serves a whole vitest run: the global setup (postgres.globalSetup.ts) starts it the
 * first time a test file asks for it, so runs without PostgreSQL tests never pay for it. Nothing
 * here skips: without a server, the asking test fails and says how to install one.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";

export { type PostgresCluster, startPostgres } from "./postgresCluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the global setup answers `GET /url` with the run's cluster (started on first ask). */
    postgresBroker: string;
  }
}

/**
 * The connection string of this run's database: `DATABASE_URL` when set, else the run's throwaway
 * cluster (started on the first call of the run).
 *
 * @returns A `postgres://` URL.
 * @throws Error with postgresCluster.ts's `INSTALL_HINT` when there is no PostgreSQL to run.
 */
export async function postgresUrl(): Promise<string> {
  if (process.env.DATABASE_URL) {
    return process.env.DATABASE_URL;
  }
  const broker = inject("postgresBroker");
  if (!broker) {
    throw new Error(
      "vitest.config.ts must list test/support/postgres.globalSetup.ts in globalSetup",
    );
  }
  const response = await fetch(`${broker}/url`);
  const text = await response.text();
  if (!response.ok) {
    throw new Error(text);
  }
  return text;
}

/**
 * The layout and bounds of the stores a test makes: `{ distributed: true }` in the Citus run
 * (`npm run test:citus` sets `IMAGEGEN_TEST_CITUS=1`, and its broker gives a Citus coordinator),
 * and generous time bounds in both. Spread into every `createPostgresStore` call, so one test runs
 * on both.
 *
 * @returns The options to add.
 */
export function storeLayout(): {
  distributed?: true;
  connectionTimeoutMs: number;
  statementTimeoutMs: number;
} {
  // Bounds, not speed checks: these tests send bursts of hundreds of commits at two stores' pools, and
  // on a loaded machine a commit can wait longer than the default 5 s for a pooled connection or for
  // the user's row; on Citus each statement is also a hop more (coordinator, then worker). The
  // statement bound stays under the client's 10 s query bound. The tests of the bounds themselves
  // (silentNetwork, outage) make their own stores.
  const bounds = { connectionTimeoutMs: 60_000, statementTimeoutMs: 9_000 };
  return process.env.IMAGEGEN_TEST_CITUS === "1" ? { distributed: true, ...bounds } : bounds;
}

/**
 * The query that counts the sessions of one application waiting on a lock, as a test watches a
 * commit queue on a row it holds: \`pg_stat_activity\` on one PostgreSQL; on Citus, the worker
 * sessions that run a delegated call wait, so \`citus_stat_activity\` is read across the nodes and
 * each session is matched to the coordinator's session it runs for (its global pid).
 *
 * @returns The SQL, with the application name as \`$1\`, giving \`n\`.
 */
export function lockWaitersQuery(): string {
  if (process.env.IMAGEGEN_TEST_CITUS !== "1") {
    return "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'";
  }
  return `SELECT count(*)::int AS n FROM citus_stat_activity w
    JOIN citus_stat_activity c ON c.global_pid = w.global_pid AND NOT c.is_worker_query
    WHERE c.application_name = $1 AND w.wait_event_type = 'Lock'`;
}

/** A schema of its own on this run's database, for one test file (or one test). */
export type PostgresTestDatabase = {
  readonly connectionString: string;
  /** A fresh, unused schema name (`t_` and 16 hex digits). */
  readonly schema: string;
  /** Runs one statement on a connection of its own. */
  sql<R extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<pg.QueryResult<R>>;
  /** Drops the schema and everything in it. */
  drop(): Promise<void>;
};

/**
 * Picks a fresh schema on this run's database: pass `{ connectionString, schema }` to
 * `createPostgresStore`, as many times as instances are wanted.
 *
 * @returns The connection string, the schema, a one-shot `sql()` and `drop()`.
 */
export async function withPostgres(): Promise<PostgresTestDatabase> {
  const connectionString = await postgresUrl();
  const schema = `t_${randomBytes(8).toString("hex")}`;
  return {
    connectionString,
    schema,
    sql: (text, values) => oneShot(connectionString, text, values),
    drop: () =>
      oneShot(connectionString, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).then(() => {}),
  };
}

/**
 * Runs one statement on a new connection and closes it.
 *
 * @param connectionString - Where.
 * @param text - The SQL.
 * @param values - Its parameters.
 * @returns The result.
 */
export async function oneShot<R extends pg.QueryResultRow = pg.QueryResultRow>(
  connectionString: string,
  text: string,
  values?: unknown[],
): Promise<pg.QueryResult<R>> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await client.query<R>(text, values);
  } finally {
    await client.end();
  }
}

/**
 * The reconciliation query of docs/postgres.md (its ```sql reconcile block), as printed there, on
 * another schema: the tests run the very query the docs give operators.
 *
 * @param schema - The schema to run it on.
 * @returns The SQL: one row per user whose balance is not grants - debits + refunds.
 */
export function reconcileQuery(schema: string): string {
  const doc = readFileSync(new URL("../../docs/postgres.md", import.meta.url), "utf8");
  const query = /```sql reconcile\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!query) {
    throw new Error("docs/postgres.md has no ```sql reconcile block");
  }
  return query.replaceAll("imagegen.", `"${schema}".`);
}

/**
 * Makes a pool record the text of every statement sent through `pool.query` (what a store sends),
 * so that a test can count a request's statements and see which they are.
 *
 * @param pool - The pool a store is given.
 * @returns The texts sent so far, in order (empty it with `length = 0` between requests).
 */
export function recordStatements(pool: pg.Pool): string[] {
  const sent: string[] = [];
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    const first = args[0] as string | { text: string };
    sent.push(typeof first === "string" ? first : first.text);
    return query(...args);
  }) as typeof pool.query;
  return sent;
}
