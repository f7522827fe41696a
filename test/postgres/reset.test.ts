/**
 * The PostgreSQL store's reset (S17): every table of its own schema emptied and the fixtures loaded
 * again in one transaction, the migrations record kept, the ledger append-only again right after,
 * other schemas untouched, and refused to a role that does not own the tables (the least-privilege
 * server role of docs/postgres.md), with nothing emptied.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import {
  createPostgresStore,
  migratePostgres,
  type PostgresStore,
} from "../../src/postgres/store.js";
import { createReferenceServer } from "../../src/server/index.js";
import {
  lockWaitersQuery,
  oneShot,
  type PostgresTestDatabase,
  withPostgres,
} from "../support/postgres.js";

const databases: PostgresTestDatabase[] = [];
const stores: PostgresStore[] = [];
const pools: pg.Pool[] = [];
const roles: string[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  await Promise.all(pools.map((p) => p.end()));
  for (const db of databases) {
    await db.drop();
  }
  const [db] = databases;
  for (const role of roles) {
    await db?.sql(`DROP ROLE IF EXISTS "${role}"`);
  }
}, 60_000);

async function freshStore() {
  const db = await withPostgres();
  databases.push(db);
  const store = await createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
  });
  stores.push(store);
  return { db, store };
}

/** A user with a grant, a key, an asset, a task with two jobs, one of them failed and refunded. */
async function fill(store: PostgresStore) {
  const server = createReferenceServer({ store, idempotencyTtlMs: 60_000 });
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  await server.admin.createAsset(userId);
  const res = await server.fetch(
    new Request("http://local/api/generations", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        prompt: "a fox",
        modelId: "beta2",
        resolution: "4K",
        imageCount: 2,
        idempotencyKey: "k",
      }),
    }),
  );
  expect(res.status).toBe(202);
  const { batch } = (await res.json()) as { batch: { results: { job: { id: string } }[] } };
  await server.admin.failJob(batch.results[0]?.job.id ?? "");
  return { server, userId };
}

/** The number of rows in each table of a schema. */
async function rowCounts(
  db: PostgresTestDatabase,
  schema = db.schema,
): Promise<Record<string, number>> {
  const { rows } = await db.sql<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = $1",
    [schema],
  );
  const counts: Record<string, number> = {};
  for (const { name } of rows) {
    const { rows: n } = await db.sql<{ n: string }>(
      `SELECT count(*) AS n FROM "${schema}"."${name}"`,
    );
    counts[name] = Number(n[0]?.n);
  }
  return counts;
}

/** The SQLSTATE a statement fails with, or `undefined` when it succeeds. */
async function refusal(db: PostgresTestDatabase, text: string): Promise<string | undefined> {
  try {
    await db.sql(text);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("the PostgreSQL store's reset (S17)", () => {
  it("S17: reset empties every table of the store's schema but the migrations record, and the ledger is append-only again right after", async () => {
    const { db, store } = await freshStore();
    await fill(store);
    const before = await rowCounts(db);
    for (const table of [
      "users",
      "api_keys",
      "assets",
      "tasks",
      "jobs",
      "idempotency",
      "ledger",
      "migrations",
    ]) {
      expect(before[table], table).toBeGreaterThan(0);
    }

    await store.reset();
    const after = await rowCounts(db);
    expect(after.migrations).toBe(before.migrations);
    expect(Object.entries(after).filter(([table, n]) => table !== "migrations" && n > 0)).toEqual(
      [],
    );

    // The ledger's triggers are on again: a new entry cannot be truncated, updated or deleted.
    await createReferenceServer({ store }).admin.createUser({ credits: 5 });
    const s = `"${db.schema}"`;
    expect(await refusal(db, `TRUNCATE ${s}.ledger CASCADE`)).toBe("IG100");
    expect(await refusal(db, `UPDATE ${s}.ledger SET credits = 6`)).toBe("IG100");
    expect(await refusal(db, `DELETE FROM ${s}.ledger`)).toBe("IG100");
    const { rows } = await db.sql<{ tgname: string; tgenabled: string }>(
      "SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname",
      [`${s}.ledger`],
    );
    expect(rows).toEqual([
      { tgname: "ledger_no_truncate", tgenabled: "O" },
      { tgname: "ledger_no_update", tgenabled: "O" },
    ]);

    // Reset twice in a row, and the store serves as new.
    await store.reset();
    await store.reset();
    const { server, userId } = await fill(store);
    expect(await server.admin.balance(userId)).toBe(1000 - 240 + 120);
  });

  it("S17: reset leaves every other schema as it was", async () => {
    const a = await freshStore();
    const b = await freshStore();
    const { server, userId } = await fill(b.store);
    await fill(a.store);
    const untouched = await rowCounts(b.db);
    await a.store.reset();
    expect(await rowCounts(b.db)).toEqual(untouched);
    expect(await server.admin.balance(userId)).toBe(880);
  });

  it("S17: a role that does not own the tables cannot reset: the error says so, and nothing is emptied", async () => {
    const db = await withPostgres();
    databases.push(db);
    const suffix = randomBytes(6).toString("hex");
    const [owner, server] = [`ig_reset_owner_${suffix}`, `ig_reset_server_${suffix}`];
    roles.push(server, owner);
    const password = randomBytes(12).toString("hex");
    await db.sql(`CREATE ROLE "${owner}" LOGIN PASSWORD '${password}'`);
    await db.sql(`CREATE ROLE "${server}" LOGIN PASSWORD '${password}'`);
    await db.sql(`CREATE SCHEMA "${db.schema}" AUTHORIZATION "${owner}"`);
    const as = (user: string) => {
      const url = new URL(db.connectionString);
      url.username = user;
      url.password = password;
      return url.toString();
    };
    await migratePostgres({ connectionString: as(owner), schema: db.schema });
    const doc = readFileSync(new URL("../../docs/postgres.md", import.meta.url), "utf8");
    const grants = (/```sql grants\n([\s\S]*?)```/.exec(doc)?.[1] ?? "")
      .replace(/\bimagegen_server\b/g, `"${server}"`)
      .replace(/\bimagegen\./g, `"${db.schema}".`)
      .replace(/\bSCHEMA imagegen\b/g, `SCHEMA "${db.schema}"`);
    expect(grants).toContain("GRANT");
    await oneShot(as(owner), grants);

    const store = await createPostgresStore({ connectionString: as(server), schema: db.schema });
    stores.push(store);
    await fill(store);
    const before = await rowCounts(db);
    await expect(store.reset()).rejects.toThrow(
      /only the role that owns them may do; connect as that role to reset/,
    );
    expect(await rowCounts(db)).toEqual(before);
    // The owner may.
    const owned = await createPostgresStore({ connectionString: as(owner), schema: db.schema });
    stores.push(owned);
    await owned.reset();
    expect((await rowCounts(db)).users).toBe(0);
    // The pool of the refused reset is still usable.
    expect(await store.getUser("usr_nobody")).toBeUndefined();
  });

  it("S17: emptying and loading the fixtures are one transaction: a reader meanwhile waits, and sees the fixtures loaded, never an empty store", async () => {
    const db = await withPostgres();
    databases.push(db);
    const pool = new pg.Pool({ connectionString: db.connectionString, max: 4 });
    pools.push(pool);
    // The reset's transaction is held just before it loads the fixtures, until the test lets it go.
    let beforeLoad: (() => Promise<void>) | undefined;
    const wrapped = new WeakSet<object>();
    const connect = pool.connect.bind(pool) as (callback?: unknown) => Promise<pg.PoolClient>;
    // The store's transactions take a client with `await pool.connect()`; `pool.query` passes a callback.
    pool.connect = (async (callback?: unknown) => {
      if (callback !== undefined) {
        return connect(callback);
      }
      const client = await connect();
      if (!wrapped.has(client)) {
        wrapped.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
        client.query = (async (...args: unknown[]) => {
          const text = (args[0] as { text?: string } | undefined)?.text ?? "";
          if (beforeLoad && text.includes("load_users")) {
            const wait = beforeLoad;
            beforeLoad = undefined;
            await wait();
          }
          return query(...args);
        }) as typeof client.query;
      }
      return client;
    }) as typeof pool.connect;
    const store = await createPostgresStore({ pool, schema: db.schema });
    stores.push(store);
    const userId = "usr_reset_fixture";
    const server = createReferenceServer({
      store,
      fixtures: {
        users: [{ id: userId, credits: 500, apiKeys: ["ck_test_reset_one_transaction_1"] }],
      },
    });
    await server.ready();
    await server.admin.grantCredits(userId, 7);

    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const emptied = new Promise<void>((resolve) => {
      beforeLoad = async () => {
        resolve();
        await gate;
      };
    });
    const reset = server.admin.reset();
    await emptied;
    // Another connection reads the fixture user while the reset has emptied the tables.
    const reader = `ig_reset_reader_${randomBytes(4).toString("hex")}`;
    const url = new URL(db.connectionString);
    url.searchParams.set("application_name", reader);
    let read: { balance: string }[] | undefined;
    const reading = oneShot<{ balance: string }>(
      url.toString(),
      `SELECT balance FROM "${db.schema}".users WHERE id = $1`,
      [userId],
    ).then((result) => {
      read = result.rows;
    });
    // Until the reader waits on the reset's lock (or has its answer): bounded, and the outcome
    // below holds whichever comes first.
    for (let i = 0; i < 500 && read === undefined; i++) {
      const { rows } = await db.sql<{ n: number }>(lockWaitersQuery(), [reader]);
      if ((rows[0]?.n ?? 0) > 0) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    release();
    await reset;
    await reading;
    expect(read).toEqual([{ balance: "500" }]);
    expect(await server.admin.balance(userId)).toBe(500);
  });
});
