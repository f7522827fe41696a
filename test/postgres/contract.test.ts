import { afterAll } from "vitest";
import { createPostgresStore } from "../../src/postgres/store.js";
import { type PostgresTestDatabase, storeLayout, withPostgres } from "../support/postgres.js";
import { storeContract } from "../support/storeContract.js";

let db: PostgresTestDatabase | undefined;

storeContract("PostgreSQL store", async () => {
  db = await withPostgres();
  return createPostgresStore({
    connectionString: db.connectionString,
    schema: db.schema,
    ...storeLayout(),
  });
});

afterAll(async () => {
  await db?.drop();
});
