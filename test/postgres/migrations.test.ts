import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/postgres/index.js";
import { LATEST_VERSION, MIGRATIONS } from "../../src/postgres/migrations/index.js";
import { createPostgresStore, migratePostgres } from "../../src/postgres/store.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type PostgresTestDatabase, withPostgres } from "../support/postgres.js";
import { T0 } from "../support/storeContract.js";

let db: PostgresTestDatabase;
const dropped: PostgresTestDatabase[] = [];
beforeAllOrFail(async () => {
  db = await withPostgres();
  dropped.push(db);
}, 180_000);
afterAll(async () => {
  for (const d of dropped) {
    await d.drop();
  }
});

describe("migrations", () => {
  it("S14: five instances starting at once on a fresh schema apply each migration exactly once", {
    timeout: 60_000,
  }, async () => {
    const stores = await Promise.all(
      Array.from({ length: 5 }, () =>
        createPostgresStore({ connectionString: db.connectionString, schema: db.schema }),
      ),
    );
    try {
      const { rows } = await db.sql<{ version: number; checksum: string }>(
        `SELECT version, checksum FROM "${db.schema}".migrations ORDER BY version`,
      );
      expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, checksum: m.checksum })));
      // Every instance works on the one schema.
      for (const [i, store] of stores.entries()) {
        expect(await store.createUser({ id: `usr_${i}`, credits: i, multiplier: "1" }, T0)).toBe(
          true,
        );
      }
      expect(await stores[0]?.getUser("usr_4")).toEqual({
        id: "usr_4",
        balance: 4,
        multiplier: "1",
      });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it("starting again applies nothing and keeps the data", async () => {
    expect(
      await migratePostgres({ connectionString: db.connectionString, schema: db.schema }),
    ).toEqual({
      applied: [],
      version: LATEST_VERSION,
    });
    const store = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
    });
    try {
      expect((await store.getUser("usr_3"))?.balance).toBe(3);
    } finally {
      await store.close();
    }
  });

  it("migratePostgres on a fresh schema applies every version, in order", async () => {
    const fresh = await withPostgres();
    dropped.push(fresh);
    expect(
      await migratePostgres({ connectionString: fresh.connectionString, schema: fresh.schema }),
    ).toEqual({
      applied: MIGRATIONS.map((m) => m.version),
      version: LATEST_VERSION,
    });
  });

  it("a schema already at a newer version than this package is refused, untouched", async () => {
    const fresh = await withPostgres();
    dropped.push(fresh);
    await migratePostgres({ connectionString: fresh.connectionString, schema: fresh.schema });
    await fresh.sql(
      `INSERT INTO "${fresh.schema}".migrations (version, name) VALUES ($1, 'from the future')`,
      [LATEST_VERSION + 1],
    );
    await expect(
      createPostgresStore({ connectionString: fresh.connectionString, schema: fresh.schema }),
    ).rejects.toThrow(
      `is at version ${LATEST_VERSION + 1}, newer than this package's ${LATEST_VERSION}`,
    );
  });

  it("the schema name must be a lowercase identifier; it is quoted, never spliced raw", async () => {
    for (const schema of [
      'x"; DROP SCHEMA public; --',
      "Imagegen",
      "1abc",
      "",
      "a".repeat(64),
      "a-b",
    ]) {
      await expect(
        createPostgresStore({ connectionString: db.connectionString, schema }),
        schema,
      ).rejects.toThrow(TypeError);
    }
    await expect(
      createPostgresStore({ connectionString: db.connectionString, schema: "a".repeat(63) }),
    ).resolves.toBeDefined();
    await db.sql(`DROP SCHEMA "${"a".repeat(63)}" CASCADE`);
  });

  it("exactly one of connectionString and pool is required; a given pool is used and not ended", async () => {
    await expect(createPostgresStore({ schema: db.schema })).rejects.toThrow(
      /exactly one of `connectionString` and `pool`/,
    );
    const pool = new pg.Pool({ connectionString: db.connectionString });
    await expect(
      createPostgresStore({ pool, connectionString: db.connectionString }),
    ).rejects.toThrow(TypeError);
    const store = await createPostgresStore({ pool, schema: db.schema });
    expect((await store.getUser("usr_2"))?.balance).toBe(2);
    await store.close();
    expect((await pool.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await pool.end();
  });

  it("S14: starting against a database that cannot be reached rejects with StoreUnavailableError", async () => {
    // Port 1 on the loopback: nothing listens there, whereas a port freed a moment ago may be taken
    // again by another process of a busy run.
    const error = await createPostgresStore({
      connectionString: "postgres://nobody@127.0.0.1:1/none",
    }).catch((e) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe("the database cannot be reached (migrating the schema)");
  });
});
