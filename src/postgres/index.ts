/**
 * `imagegen-pricing/postgres`: the reference server's `Store` on PostgreSQL, for several instances
 * on one database and for state that outlives a restart. Needs the `pg` package.
 *
 * @module imagegen-pricing/postgres
 */

// The class the store rejects with: from here, the very class this entry throws, whatever the module system.
export { StoreUnavailableError } from "../server/store.js";
export type { PostgresStore, PostgresStoreOptions } from "./store.js";
export { createPostgresStore, migratePostgres } from "./store.js";
