/**
 * Checksums of applied migrations: recorded when a migration is applied, compared with the
 * package's on every start, and a schema whose record is not the package's migration is refused,
 * untouched. A schema migrated before checksums gets them recorded on its next start.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { MigrationChecksumError } from "../../src/postgres/index.js";
import {
  MIGRATIONS,
  type Migration,
  migrationChecksum,
} from "../../src/postgres/migrations/index.js";
import { runMigrations } from "../../src/postgres/migrations/runner.js";
import { createPostgresStore, migratePostgres } from "../../src/postgres/store.js";
import { oneShot, type PostgresTestDatabase, withPostgres } from "../support/postgres.js";
import { T0 } from "../support/storeContract.js";

const dropped: PostgresTestDatabase[] = [];
const roles: string[] = [];
afterAll(async () => {
  for (const d of dropped) {
    await d.drop();
  }
  for (const role of roles) {
    await dropped[0]?.sql(`DROP ROLE IF EXISTS "${role}"`);
  }
}, 60_000);

async function fresh(): Promise<PostgresTestDatabase> {
  const db = await withPostgres();
  dropped.push(db);
  return db;
}

async function recorded(
  db: PostgresTestDatabase,
): Promise<{ version: number; checksum: string | null }[]> {
  const { rows } = await db.sql<{ version: number; checksum: string | null }>(
    `SELECT version, checksum FROM "${db.schema}".migrations ORDER BY version`,
  );
  return rows;
}

const expected = (upTo = Number.POSITIVE_INFINITY) =>
  MIGRATIONS.filter((m) => m.version <= upTo).map((m) => ({
    version: m.version,
    checksum: m.checksum,
  }));

/** A schema as a package before checksums left it: its `migrations` table has no checksum column. */
async function preChecksumSchema(db: PostgresTestDatabase, upTo: number): Promise<void> {
  const s = `"${db.schema}"`;
  await db.sql(`CREATE SCHEMA ${s}`);
  await db.sql(
    `CREATE TABLE ${s}.migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  for (const m of MIGRATIONS.filter((m) => m.version <= upTo)) {
    await db.sql(m.sql(s));
    await db.sql(`INSERT INTO ${s}.migrations (version, name) VALUES ($1, $2)`, [
      m.version,
      m.name,
    ]);
  }
}

/** Runs the runner with a list of migrations of the test's, on a pool of its own. */
async function runWith(
  db: PostgresTestDatabase,
  migrations: readonly Migration[],
): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: db.connectionString, max: 1 });
  try {
    return await runMigrations(pool, db.schema, migrations);
  } finally {
    await pool.end();
  }
}

/** A migration of the package with other SQL, as an edit of its file would make it. */
function edited(m: Migration, text: string): Migration {
  return {
    ...m,
    text,
    checksum: migrationChecksum(text),
    sql: (schema) => text.replaceAll(":schema", schema),
  };
}

describe("migration checksums", () => {
  it("applying a migration records its checksum: SHA-256 of its SQL, the same in every schema", async () => {
    const a = await fresh();
    const b = await fresh();
    await migratePostgres({ connectionString: a.connectionString, schema: a.schema });
    await (
      await createPostgresStore({ connectionString: b.connectionString, schema: b.schema })
    ).close();
    expect(await recorded(a)).toEqual(expected());
    expect(await recorded(b)).toEqual(expected());
  });

  it("a start on a schema whose recorded checksum is not the package's is refused, naming the version, the file and both checksums", async () => {
    const db = await fresh();
    const s = `"${db.schema}"`;
    await migratePostgres({ connectionString: db.connectionString, schema: db.schema });
    const other = "f".repeat(64);
    await db.sql(`UPDATE ${s}.migrations SET checksum = $1 WHERE version = 1`, [other]);
    const first = MIGRATIONS[0];
    if (!first) {
      throw new Error("no migration 1");
    }

    for (const start of [
      () => createPostgresStore({ connectionString: db.connectionString, schema: db.schema }),
      () => migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ]) {
      const error = await start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MigrationChecksumError);
      expect(error).toMatchObject({
        name: "MigrationChecksumError",
        schema: db.schema,
        version: 1,
        file: "0001_initial.sql.ts",
        recorded: other,
        expected: first.checksum,
      });
      const message = (error as Error).message;
      expect(message).toContain(
        `schema ${db.schema}: migration 1 (src/postgres/migrations/0001_initial.sql.ts)`,
      );
      expect(message).toContain(`checksum ${other}`);
      expect(message).toContain(`checksum ${first.checksum}`);
      expect(message).toContain("belongs in a new migration, never in an edited one");
    }
    // Refused untouched: the record is as it was.
    expect(await recorded(db)).toEqual([{ version: 1, checksum: other }, ...expected().slice(1)]);
  });

  it("a package whose released migration was edited is refused before it applies anything newer", async () => {
    const db = await fresh();
    await migratePostgres({ connectionString: db.connectionString, schema: db.schema });
    const last = MIGRATIONS.at(-1);
    if (!last) {
      throw new Error("no migration");
    }
    const changed = edited(last, `${last.text}\nCREATE TABLE :schema.edited (id integer);\n`);
    const next: Migration = edited(
      { ...last, version: last.version + 1, name: "next", file: "9999_next.sql.ts" },
      "\nCREATE TABLE :schema.next (id integer);\n",
    );
    const list = [...MIGRATIONS.slice(0, -1), changed, next];

    const error = await runWith(db, list).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MigrationChecksumError);
    expect(error).toMatchObject({
      version: last.version,
      file: last.file,
      recorded: last.checksum,
      expected: changed.checksum,
    });
    const { rows } = await db.sql<{ edited: boolean; next: boolean }>(
      "SELECT to_regclass($1) IS NOT NULL AS edited, to_regclass($2) IS NOT NULL AS next",
      [`"${db.schema}".edited`, `"${db.schema}".next`],
    );
    expect(rows).toEqual([{ edited: false, next: false }]);
    expect(await recorded(db)).toEqual(expected());

    // The same change as a new migration is applied, and recorded with its own checksum.
    expect(await runWith(db, [...MIGRATIONS, next])).toEqual([next.version]);
    expect(await recorded(db)).toEqual([
      ...expected(),
      { version: next.version, checksum: next.checksum },
    ]);
  });

  it("a schema migrated before checksums gets each applied version's checksum recorded on its next start, and starts", async () => {
    const db = await fresh();
    await preChecksumSchema(db, MIGRATIONS.length);
    const store = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
    });
    try {
      expect(await store.createUser({ id: "usr_pre", credits: 5, multiplier: "1" }, T0)).toBe(true);
    } finally {
      await store.close();
    }
    expect(await recorded(db)).toEqual(expected());
    // From then on they are checked.
    await db.sql(`UPDATE "${db.schema}".migrations SET checksum = $1 WHERE version = 2`, [
      "0".repeat(64),
    ]);
    await expect(
      migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ).rejects.toThrow(MigrationChecksumError);
  });

  it("on a schema migrated before checksums and behind, the old versions are recorded and the new ones applied with theirs", async () => {
    const db = await fresh();
    await preChecksumSchema(db, 1);
    expect(
      await migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ).toMatchObject({
      applied: MIGRATIONS.slice(1).map((m) => m.version),
    });
    expect(await recorded(db)).toEqual(expected());
  });

  it("a version recorded without a checksum beside checksummed ones (an older package's instance) is recorded on the next start", async () => {
    const db = await fresh();
    await migratePostgres({ connectionString: db.connectionString, schema: db.schema });
    await db.sql(`UPDATE "${db.schema}".migrations SET checksum = NULL WHERE version = 2`);
    expect(
      await migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ).toMatchObject({ applied: [] });
    expect(await recorded(db)).toEqual(expected());
  });

  it("a role that may not record checksums, on a schema migrated before them, is told to migrate as the owner", async () => {
    const db = await fresh();
    await preChecksumSchema(db, MIGRATIONS.length);
    const role = `ig_reader_${randomBytes(6).toString("hex")}`;
    const password = randomBytes(12).toString("hex");
    roles.push(role);
    await db.sql(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}'`);
    await db.sql(`GRANT USAGE ON SCHEMA "${db.schema}" TO "${role}"`);
    await db.sql(`GRANT SELECT ON ALL TABLES IN SCHEMA "${db.schema}" TO "${role}"`);
    const url = new URL(db.connectionString);
    url.username = role;
    url.password = password;
    await expect(
      createPostgresStore({ connectionString: url.toString(), schema: db.schema }),
    ).rejects.toThrow(
      `schema ${db.schema}'s migrations table has no checksums yet, and this role may not record them: run migratePostgres as the role that owns the tables first`,
    );
    // Nothing was recorded; the owner's migration then records them, and the role starts.
    const columns = await oneShot(
      db.connectionString,
      "SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'migrations' AND column_name = 'checksum'",
      [db.schema],
    );
    expect(columns.rows).toEqual([{ n: 0 }]);
    await migratePostgres({ connectionString: db.connectionString, schema: db.schema });
    await (
      await createPostgresStore({ connectionString: url.toString(), schema: db.schema })
    ).close();
  });
});
