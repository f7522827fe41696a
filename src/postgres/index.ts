/**
 * `imagegen-pricing/postgres`: the reference server's `Store` on PostgreSQL, for several instances
 * on one database and for state that outlives a restart. Needs the `pg` package (`npm install pg`);
 * without it, importing this entry throws one error that says so. A pool of yours is a `pg` `Pool`
 * (its type from `@types/pg`, which TypeScript users of this option install).
 *
 * @module imagegen-pricing/postgres
 */

// The class the store rejects with: from here, the very class this entry throws, whatever the
// module system.
export { StoreUnavailableError } from "../store/store.js";
export { MigrationChecksumError } from "./migrations/runner.js";
export type { PostgresStoreOptions } from "./store.js";
export { migratePostgres } from "./store.js";

import { createPostgresStore as open, type PostgresStoreOptions } from "./store.js";

/** The reference server's store on PostgreSQL: pass it as `createReferenceServer({ store })`. */
export type PostgresStore = {
  /** Ends the pool the store made (a pool passed in is yours to end, after this). */
  close(): Promise<void>;
  /** The schema the store's tables are in. */
  readonly schema: string;
};

/**
 * Creates the reference server's store on PostgreSQL, after creating or upgrading its tables in
 * `schema`.
 *
 * Any number of instances (processes, machines) may use one schema at once: accepting a task and
 * refunding a job are each one transaction, so they never overdraw, never charge an idempotency
 * key twice and never refund a job twice. Races lost to another instance (deadlocks, serialization
 * failures) are retried inside the store, at most 5 runs. When the database cannot be reached or
 * does not answer within the bounds of the options (a stopped server, a silent network), a method
 * rejects with `StoreUnavailableError`, and the connection it used is destroyed, never reused. The
 * pool makes new connections once the database is back.
 *
 * @param options - `connectionString` or `pool` (exactly one), `schema` (default `"imagegen"`), and
 *   the timeouts (`connectionTimeoutMs` 5000 and `statementTimeoutMs` 5000 for the store's
 *   own pool, `queryTimeoutMs` 10000 for any pool).
 * @returns The store, once its schema is up to date; `close()` ends the pool it made.
 * @throws TypeError for a schema name that is not a lowercase identifier, not exactly one of
 *   `connectionString` and `pool`, or a pool's own timeout given with `pool`; RangeError for a
 *   timeout that is not whole milliseconds; StoreUnavailableError when the database cannot be
 * reached;
 *   MigrationChecksumError when a migration the schema applied is not this package's; Error when
 * the
 *   schema is at a version newer than this package.
 */
export function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  return open(options);
}
