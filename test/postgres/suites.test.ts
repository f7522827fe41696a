/**
 * The switch that runs the server and reliability suites on PostgreSQL: in this project every
 * store they make is a PostgreSQL store, so a broken switch cannot quietly run them in memory.
 */
import { describe, expect, it } from "vitest";
import { makeServer, makeStore, STORE_KIND } from "../server/helpers.js";
import { oneShot, postgresUrl } from "../support/postgres.js";

describe("the suites' store switch", () => {
  it("S14: in the postgres project makeStore() gives a PostgreSQL store on a fresh schema, shared by the file", async () => {
    expect(STORE_KIND).toBe("postgres");
    const a = (await makeStore()) as { schema?: unknown };
    const b = (await makeStore()) as { schema?: unknown };
    expect(a.schema).toMatch(/^t_[0-9a-f]{16}$/);
    expect(b.schema).toBe(a.schema);
    const server = await makeServer();
    const { userId } = await server.admin.createUser({ credits: 42 });
    const { rows } = await oneShot(
      await postgresUrl(),
      `SELECT balance::int AS balance FROM "${a.schema}".users WHERE id = $1`,
      [userId],
    );
    expect(rows).toEqual([{ balance: 42 }]);
  });
});
