/**
 * The runner of the store's migrations: it applies them under an advisory lock so that any number
 * of instances may start at once, and refuses a database whose applied migrations are not this
 * package's.
 */
import { createHash } from "node:crypto";
import type { Pool, PoolClient } from "pg";
import { MIGRATIONS, type Migration } from "./index.js";

/**
 * Checks a schema name and returns it double-quoted for SQL. Only lowercase letters, digits and `_`
 * (not first) are accepted, at most 63 characters: such a name means the same quoted or not, so
 * `psql` users find it as they type it.
 *
 * @throws TypeError naming the rule when the name is not such an identifier.
 * @internal
 */
export function quoteSchema(schema: unknown): string {
  if (typeof schema !== "string" || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    const shown = typeof schema === "string" ? JSON.stringify(schema.slice(0, 80)) : typeof schema;
    throw new TypeError(
      "schema must be a lowercase SQL identifier (a-z, 0-9 and _, not starting with a " +
        `digit, 1 to 63 characters); got ${shown}`,
    );
  }
  return `"${schema}"`;
}

/**
 * The advisory lock key of a schema's migrations: the first 8 bytes of a SHA-256, as a signed
 * 64-bit integer (decimal string), so instances of any version agree on it.
 */
function migrationLockKey(schema: string): string {
  const digest = createHash("sha256").update(`imagegen-pricing migrations ${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/**
 * Thrown (as a rejection) by `createPostgresStore` and `migratePostgres` when a migration the
 * database applied is not the one this package holds: the SHA-256 recorded when it was applied
 * differs from the package's. The store does not start; nothing was changed.
 */
export class MigrationChecksumError extends Error {
  override readonly name = "MigrationChecksumError";
  /** The schema whose `migrations` table recorded it. */
  declare readonly schema: string;
  /** The migration's version. */
  declare readonly version: number;
  /** The package's file of that migration, under `src/postgres/migrations/`. */
  declare readonly file: string;
  /** The checksum the database recorded when it applied the migration. */
  declare readonly recorded: string;
  /** The checksum of the package's migration. */
  declare readonly expected: string;

  /**
   * Makes the error of a migration applied with other SQL than this package's.
   *
   * @param mismatch - The schema, the migration's version and file, and both checksums.
   */
  constructor(mismatch: {
    schema: string;
    version: number;
    file: string;
    recorded: string;
    expected: string;
  }) {
    super(
      `schema ${mismatch.schema}: migration ${mismatch.version} ` +
        `(src/postgres/migrations/${mismatch.file}) was applied with ` +
        `checksum ${mismatch.recorded}, but this package's has checksum ${mismatch.expected}. ` +
        "A released migration was edited, or the database's record was changed: " +
        "run a package whose migrations are the ones this database applied; " +
        "a change to the schema belongs in a new migration, never in an edited one",
    );
    Object.assign(this, mismatch);
  }
}

/**
 * Creates the schema if needed, checks every applied migration's checksum, and applies every
 * migration the schema lacks, each in its own transaction that holds the schema's advisory lock:
 * instances that start together apply each step once, the others wait and then find it applied.
 *
 * A version recorded without a checksum (applied by a package older than checksums) cannot be
 * checked after the fact: it is recorded with this package's checksum, and checked from then on.
 * Tests give an altered list of migrations. Returns the versions applied by this call; rejects with
 * MigrationChecksumError for an applied migration that is not this package's, and Error for a
 * database that is not UTF8 or at a version newer than this package knows. @internal
 */
export async function runMigrations(
  pool: Pool,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const s = quoteSchema(schema);
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  return withMigrationLock(pool, schema, async (client, locked) => {
    // Ids, keys and prompts are Unicode: in another encoding the first emoji would fail a request.
    const { rows: encoding } = await client.query<{ name: string }>(
      "SELECT current_setting('server_encoding') AS name",
    );
    if (encoding[0]?.name !== "UTF8") {
      throw new Error(
        `the database's encoding is ${encoding[0]?.name}; the store needs UTF8 (CREATE ` +
          "DATABASE ... ENCODING 'UTF8' TEMPLATE template0)",
      );
    }
    await locked(async () => {
      // Looked up first: CREATE ... IF NOT EXISTS would still demand the CREATE privilege, which a
      // role that only uses an existing schema need not have.
      const { rows } = await client.query<{ schema: boolean; table: boolean; checksum: boolean }>(
        `SELECT to_regnamespace($1) IS NOT NULL AS schema, to_regclass($2) IS NOT NULL AS table,
           EXISTS (SELECT 1 FROM pg_attribute a
                   WHERE a.attrelid = to_regclass($2) AND a.attname = 'checksum' ` +
          "AND NOT a.attisdropped) AS checksum",
        [s, `${s}.migrations`],
      );
      if (!rows[0]?.schema) {
        await client.query(`CREATE SCHEMA ${s}`);
      }
      if (!rows[0]?.table) {
        await client.query(
          `CREATE TABLE ${s}.migrations (
             version integer PRIMARY KEY,
             name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now(),
             checksum text CHECK (checksum ~ '^[0-9a-f]{64}$')
           )`,
        );
      } else if (!rows[0]?.checksum) {
        // A schema migrated before checksums: nullable, so that an instance of an older package,
        // which records versions without one, keeps working beside this one.
        await ownerOnly(schema, () =>
          client.query(
            `ALTER TABLE ${s}.migrations ADD COLUMN checksum text CHECK (checksum ~ ` +
              "'^[0-9a-f]{64}$')",
          ),
        );
      }
    });
    const applied: number[] = [];
    for (const migration of migrations) {
      await locked(async () => {
        const current = await checkApplied(client, schema, migrations, latest);
        if (current >= migration.version) {
          return;
        }
        await client.query(migration.sql(s));
        await client.query(
          `INSERT INTO ${s}.migrations (version, name, checksum) VALUES ($1, $2, $3)`,
          [migration.version, migration.name, migration.checksum],
        );
        applied.push(migration.version);
      });
    }
    return applied;
  });
}

/**
 * Runs `work` on a connection of its own, destroyed rather than reused when anything fails;
 * `locked` runs one step of it as a transaction that first takes the schema's migration lock, so
 * instances that start together do each step once. @internal
 */
export async function withMigrationLock<T>(
  pool: Pool,
  schema: string,
  work: (client: PoolClient, locked: <R>(step: () => Promise<R>) => Promise<R>) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  const locked = async <R>(step: () => Promise<R>): Promise<R> => {
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [migrationLockKey(schema)]);
      const result = await step();
      await client.query("COMMIT");
      return result;
    } catch (error) {
      // A failed rollback leaves a connection that is destroyed below anyway.
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
  };
  try {
    const result = await work(client, locked);
    client.release();
    return result;
  } catch (error) {
    client.release(true);
    throw error;
  }
}

/**
 * Reads what the schema applied, refuses a version newer than `latest` or a recorded checksum that
 * is not the package's, and records the package's checksum where none was recorded.
 *
 * @returns The newest applied version (0 for none).
 */
async function checkApplied(
  client: PoolClient,
  schema: string,
  migrations: readonly Migration[],
  latest: number,
): Promise<number> {
  const s = quoteSchema(schema);
  const { rows } = await client.query<{ version: number; checksum: string | null }>(
    `SELECT version, checksum FROM ${s}.migrations ORDER BY version`,
  );
  const current = rows.reduce((max, row) => Math.max(max, row.version), 0);
  if (current > latest) {
    throw new Error(
      `schema ${schema} is at version ${current}, newer than this package's ${latest}: ` +
        "upgrade imagegen-pricing",
    );
  }
  const unrecorded: Migration[] = [];
  for (const row of rows) {
    const migration = migrations.find((m) => m.version === row.version);
    if (!migration) {
      throw new Error(
        `schema ${schema} records migration ${row.version}, which this package does not have`,
      );
    }
    if (row.checksum === null) {
      unrecorded.push(migration);
    } else if (row.checksum !== migration.checksum) {
      throw new MigrationChecksumError({
        schema,
        version: migration.version,
        file: migration.file,
        recorded: row.checksum,
        expected: migration.checksum,
      });
    }
  }
  for (const migration of unrecorded) {
    await ownerOnly(schema, () =>
      client.query(
        `UPDATE ${s}.migrations SET checksum = $2 WHERE version = $1 AND checksum IS NULL`,
        [migration.version, migration.checksum],
      ),
    );
  }
  return current;
}

/**
 * Runs a change to the `migrations` table, which only the tables' owner may make: a role with
 * fewer rights is told to migrate as the owner first, rather than only "permission denied".
 */
async function ownerOnly<T>(schema: string, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code !== "42501") {
      throw error; // insufficient_privilege
    }
    throw new Error(
      `schema ${schema}'s migrations table has no checksums yet, ` +
        "and this role may not record them: " +
        "run migratePostgres as the role that owns the tables first " +
        "(docs/postgres.md, Least privilege)",
      { cause: error },
    );
  }
}
