/**
 * `imagegen-pricing/postgres`: the reference server's `Store` on PostgreSQL, for several instances
 * on one database and for state that outlives a restart. Needs the `pg` package (`npm install pg`);
 * without it, importing this entry throws one error that says so. Its types need nothing more: a
 * `pg` `Pool` is a {@link PgPool}, and `@types/pg` is not required.
 *
 * @module imagegen-pricing/postgres
 */

// The class the store rejects with: from here, the very class this entry throws, whatever the module system.
export { StoreUnavailableError } from "../store/store.js";
export { MigrationChecksumError } from "./migrations/runner.js";
export type { PgPool, PgPoolClient, PgQuery, PgQueryable, PgResult } from "./pg.js";
export type { PostgresStore, PostgresStoreOptions } from "./store.js";
export { createPostgresStore, migratePostgres } from "./store.js";
