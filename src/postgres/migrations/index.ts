/**
 * The PostgreSQL schema of the store as numbered migrations, one file each, oldest first, with the
 * checksum that lets a database prove it applied the very SQL this package holds.
 *
 * Every table a request touches has the user id first in its primary key, so each transaction of a
 * request touches one user's rows and the tables can be distributed by user id. `api_keys` is the
 * exception by design (looked up by hash before the user is known): a small table that a
 * distributed deployment replicates to every node.
 */
import { createHash } from "node:crypto";
import * as initial from "./0001_initial.sql.js";
import * as heldCredits from "./0002_held_credits.sql.js";
import * as ledgerFunctions from "./0003_ledger_functions.sql.js";
import * as commitTaskTotal from "./0004_commit_task_total.sql.js";
import * as distributable from "./0005_distributable.sql.js";
import * as acceptGeneration from "./0006_accept_generation.sql.js";
import * as findCaller from "./0007_find_caller.sql.js";
import * as acceptFewerStatements from "./0008_accept_fewer_statements.sql.js";

/** One step of the schema: applied once, in its own transaction, in version order. */
export type Migration = {
  /** 1, 2, 3 ...: the order of application, recorded in the `migrations` table. */
  readonly version: number;
  /** What the step does, in a few words. */
  readonly name: string;
  /** The file under `src/postgres/migrations/` that holds its SQL. */
  readonly file: string;
  /** The SQL as the file has it, `:schema` where the schema name goes: what the checksum covers. */
  readonly text: string;
  /** SHA-256 of {@link Migration.text}, lowercase hex: the same for every schema. */
  readonly checksum: string;
  /** The statements, given the quoted schema name. */
  readonly sql: (schema: string) => string;
};

/**
 * The checksum of a migration's SQL, as 64 lowercase hex digits: SHA-256 of the text with its
 * schema placeholder left as is, so one migration has one checksum whichever schema it ran in.
 */
export function migrationChecksum(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Describes a migration given its version, its file and what the file exports. */
function migration(
  version: number,
  file: string,
  { name, sql: text }: { name: string; sql: string },
): Migration {
  return {
    version,
    name,
    file,
    text,
    checksum: migrationChecksum(text),
    sql: (s) => text.replaceAll(":schema", s),
  };
}

/**
 * Every migration, oldest first. A released migration is never edited: a change is a new file and
 * a new line here (test/package/releasedMigrations.test.ts compares each with `checksums.json`).
 */
export const MIGRATIONS: readonly Migration[] = [
  migration(1, "0001_initial.sql.ts", initial),
  migration(2, "0002_held_credits.sql.ts", heldCredits),
  migration(3, "0003_ledger_functions.sql.ts", ledgerFunctions),
  migration(4, "0004_commit_task_total.sql.ts", commitTaskTotal),
  migration(5, "0005_distributable.sql.ts", distributable),
  migration(6, "0006_accept_generation.sql.ts", acceptGeneration),
  migration(7, "0007_find_caller.sql.ts", findCaller),
  migration(8, "0008_accept_fewer_statements.sql.ts", acceptFewerStatements),
];

/** The schema version this package brings the database to. */
export const LATEST_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
