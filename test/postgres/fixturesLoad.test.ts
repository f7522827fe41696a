/**
 * Fixtures on PostgreSQL through `createReferenceServer({ fixtures })`: one transaction per load, so
 * instances starting together load them once, and a refused load leaves nothing behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { createReferenceServer, type Fixtures, FixturesError } from "../../src/server/index.js";
import { type PostgresTestDatabase, withPostgres } from "../support/postgres.js";

let db: PostgresTestDatabase;
const stores: PostgresStore[] = [];
const newStore = async () => {
  const store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
  });
  stores.push(store);
  return store;
};
beforeAll(async () => {
  db = await withPostgres();
}, 180_000);
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await db?.drop();
});

const users = (prefix: string, count: number): Fixtures["users"] =>
  Array.from({ length: count }, (_, i) => ({
    id: `usr_${prefix}${i}`,
    credits: 100 + i,
    apiKeys: [`ck_test_${prefix}${String(i).padStart(16, "0")}`],
    assets: [`ast_${prefix}${i}`],
  }));

describe("fixtures on PostgreSQL", () => {
  it("S14: five instances loading the same fixtures at once give each user one opening grant", {
    timeout: 60_000,
  }, async () => {
    const fixtures: Fixtures = { users: users("race", 40) };
    const servers = await Promise.all(
      Array.from({ length: 5 }, async () =>
        createReferenceServer({ store: await newStore(), fixtures }),
      ),
    );
    await Promise.all(servers.map((s) => s.ready()));
    const { rows } = await db.sql<{ user_id: string; entries: string }>(
      `SELECT user_id, count(*)::text AS entries FROM "${db.schema}".ledger WHERE user_id LIKE 'usr_race%' GROUP BY user_id`,
    );
    expect(rows).toHaveLength(40);
    for (const row of rows) {
      expect(row.entries).toBe("1");
    }
    const keys = await db.sql(
      `SELECT 1 FROM "${db.schema}".api_keys WHERE user_id LIKE 'usr_race%'`,
    );
    expect(keys.rowCount).toBe(40);
  });

  it("S14: an asset another user owns, at the end of a long file, refuses the load and no user of it is committed", {
    timeout: 60_000,
  }, async () => {
    const store = await newStore();
    await createReferenceServer({
      store,
      fixtures: { users: [{ id: "usr_owner", credits: 1, assets: ["ast_owned"] }] },
    }).ready();
    const late = users("late", 50);
    const fixtures: Fixtures = {
      users: [...late, { id: "usr_last", credits: 5, assets: ["ast_fine", "ast_owned"] }],
    };
    const error = await createReferenceServer({ store, fixtures, log: () => {} })
      .ready()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FixturesError);
    expect((error as FixturesError).issues).toEqual([
      {
        path: "users[50].assets[1]",
        code: "taken",
        message: 'Asset id "ast_owned" already belongs to another user in the store.',
      },
    ]);
    const left = await db.sql(
      `SELECT 1 FROM "${db.schema}".users WHERE id LIKE 'usr_late%' OR id = 'usr_last'
       UNION ALL SELECT 1 FROM "${db.schema}".assets WHERE asset_id = 'ast_fine'
       UNION ALL SELECT 1 FROM "${db.schema}".api_keys WHERE user_id LIKE 'usr_late%'`,
    );
    expect(left.rowCount).toBe(0);
  });
});
