/**
 * The least-privilege setup of docs/postgres.md, on this run's database: the tables are migrated by
 * a role that owns them, the server connects as a role granted exactly the docs' ```sql grants
 * block. The store passes its whole contract as that role, and that role cannot write the ledger or
 * change a balance except through the store's functions, alter a table or switch a trigger off.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, migratePostgres } from "../../src/postgres/store.js";
import { oneShot, type PostgresTestDatabase, withPostgres } from "../support/postgres.js";
import { storeContract } from "../support/storeContract.js";

type Setup = {
  db: PostgresTestDatabase;
  ownerUrl: string;
  serverUrl: string;
  owner: string;
  server: string;
};

/** The docs' grants, as printed there, for a schema and a role of the test's. */
function grantsFor(schema: string, role: string): string {
  const doc = readFileSync(new URL("../../docs/postgres.md", import.meta.url), "utf8");
  const block = /```sql grants\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) {
    throw new Error("docs/postgres.md has no ```sql grants block");
  }
  return block
    .replace(/\bimagegen_server\b/g, `"${role}"`)
    .replace(/\bimagegen\./g, `"${schema}".`)
    .replace(/\bSCHEMA imagegen\b/g, `SCHEMA "${schema}"`);
}

const urlAs = (connectionString: string, user: string, password: string) => {
  const url = new URL(connectionString);
  url.username = user;
  url.password = password;
  return url.toString();
};

let ready: Promise<Setup> | undefined;
/** Makes the two roles and the schema once for the file: owned by one, granted to the other. */
function setup(): Promise<Setup> {
  ready ??= (async () => {
    const db = await withPostgres();
    const suffix = randomBytes(6).toString("hex");
    const owner = `ig_owner_${suffix}`;
    const server = `ig_server_${suffix}`;
    const ownerPassword = randomBytes(12).toString("hex");
    const serverPassword = randomBytes(12).toString("hex");
    // What an administrator does once: two login roles, and the schema given to the owner.
    await db.sql(`CREATE ROLE "${owner}" LOGIN PASSWORD '${ownerPassword}'`);
    await db.sql(`CREATE ROLE "${server}" LOGIN PASSWORD '${serverPassword}'`);
    await db.sql(`CREATE SCHEMA "${db.schema}" AUTHORIZATION "${owner}"`);
    const ownerUrl = urlAs(db.connectionString, owner, ownerPassword);
    const serverUrl = urlAs(db.connectionString, server, serverPassword);
    // The deploy step: migrate as the owner, then grant the server its rights.
    await migratePostgres({ connectionString: ownerUrl, schema: db.schema });
    await oneShot(ownerUrl, grantsFor(db.schema, server));
    return { db, ownerUrl, serverUrl, owner, server };
  })();
  return ready;
}

afterAll(async () => {
  if (!ready) {
    return;
  }
  const { db, owner, server } = await ready;
  await db.drop();
  await db.sql(`DROP ROLE IF EXISTS "${server}"`);
  await db.sql(`DROP ROLE IF EXISTS "${owner}"`);
}, 60_000);

/**
 * A user `usr_<name>` of 100 credits at multiplier 1, made through the store as the server's role,
 * and a live key `apk_<name>` of theirs, so that nothing but the check under test refuses a call.
 */
async function userWithKey({ db, serverUrl }: Setup, name: string): Promise<void> {
  const store = await createPostgresStore({ connectionString: serverUrl, schema: db.schema });
  try {
    await store.createUser({ id: `usr_${name}`, credits: 100, multiplier: "1" }, 1);
  } finally {
    await store.close();
  }
  await db.sql(
    `INSERT INTO "${db.schema}".api_keys (id, user_id, mode, hash) VALUES ($1, $2, 'test', $3)`,
    [`apk_${name}`, `usr_${name}`, randomBytes(32).toString("hex")],
  );
}

// Every operation of the store, run as the server's role: the grants are enough.
storeContract("PostgreSQL store as a least-privilege role", async () => {
  const { db, serverUrl } = await setup();
  return createPostgresStore({ connectionString: serverUrl, schema: db.schema });
});

describe("what the server's role cannot do", () => {
  /** The SQLSTATE `text` fails with, run as `url`; `undefined` when it succeeds. */
  async function refusal(url: string, text: string): Promise<string | undefined> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(text);
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code;
    } finally {
      await client.end();
    }
  }

  it("S13: the server's role cannot update, delete or truncate the ledger, alter a table, drop or disable a trigger, replace a function or switch triggers off for its session", {
    timeout: 120_000,
  }, async () => {
    const { db, serverUrl, ownerUrl } = await setup();
    const s = `"${db.schema}"`;
    // A user with a ledger entry, made through the store as the server's role.
    const store = await createPostgresStore({ connectionString: serverUrl, schema: db.schema });
    await store.createUser({ id: "usr_privilege", credits: 100, multiplier: "1" }, 1);
    await store.close();

    const forbidden = [
      `UPDATE ${s}.ledger SET credits = 1`,
      `DELETE FROM ${s}.ledger`,
      `TRUNCATE ${s}.ledger`,
      `ALTER TABLE ${s}.ledger DISABLE TRIGGER ledger_no_update`,
      `ALTER TABLE ${s}.ledger DISABLE TRIGGER ALL`,
      `DROP TRIGGER ledger_no_update ON ${s}.ledger`,
      `ALTER TABLE ${s}.ledger DROP CONSTRAINT ledger_credits_check`,
      `ALTER TABLE ${s}.users ADD COLUMN note text`,
      `DROP TABLE ${s}.ledger`,
      `ALTER FUNCTION ${s}.grant_credits SECURITY INVOKER`,
      `CREATE OR REPLACE FUNCTION ${s}.grant_credits(p_user text, p_credits bigint, p_at_ms bigint) RETURNS bigint LANGUAGE sql AS $$ SELECT 0::bigint $$`,
      `DELETE FROM ${s}.users`,
      `DELETE FROM ${s}.tasks`,
      `DELETE FROM ${s}.jobs`,
      `DELETE FROM ${s}.idempotency`,
      `UPDATE ${s}.tasks SET total_credits = 0`,
      `UPDATE ${s}.jobs SET credits = 0`,
      `INSERT INTO ${s}.migrations (version, name) VALUES (999, 'x')`,
      `CREATE TABLE ${s}.extra (id int)`,
      `CREATE OR REPLACE FUNCTION ${s}.ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`,
      `ALTER FUNCTION ${s}.commit_task SECURITY DEFINER`,
      // The other way to silence triggers: only a superuser may set it.
      "SET session_replication_role = replica",
    ];
    for (const text of forbidden) {
      expect(await refusal(serverUrl, text), text).toBe("42501");
    }

    // The owner could switch the ledger's trigger off: that is why the server must not connect as it.
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    try {
      await owner.query("BEGIN");
      await owner.query(`ALTER TABLE ${s}.ledger DISABLE TRIGGER ledger_no_update`);
      await owner.query("ROLLBACK");
    } finally {
      await owner.end();
    }

    // Nothing of it happened.
    const { rows } = await db.sql(
      `SELECT kind, credits FROM ${s}.ledger WHERE user_id = 'usr_privilege'`,
    );
    expect(rows).toEqual([{ kind: "grant", credits: "100" }]);
    const triggers = await db.sql(
      `SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = '${s}.ledger'::regclass AND NOT tgisinternal ORDER BY tgname`,
    );
    expect(triggers.rows).toEqual([
      { tgname: "ledger_no_truncate", tgenabled: "O" },
      { tgname: "ledger_no_update", tgenabled: "O" },
    ]);
  });

  it("S13: the server's role writes the ledger and changes a balance, held or ledger_seq only through the functions", {
    timeout: 120_000,
  }, async () => {
    const { db, serverUrl } = await setup();
    const s = `"${db.schema}"`;
    const store = await createPostgresStore({ connectionString: serverUrl, schema: db.schema });
    await store.createUser({ id: "usr_direct", credits: 100, multiplier: "1" }, 1);
    await store.close();

    const forbidden = [
      `INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms) VALUES ('usr_direct', 2, 'grant', 50, 2)`,
      `UPDATE ${s}.users SET balance = 1000 WHERE id = 'usr_direct'`,
      `UPDATE ${s}.users SET held = 0 WHERE id = 'usr_direct'`,
      `UPDATE ${s}.users SET ledger_seq = 0 WHERE id = 'usr_direct'`,
      `INSERT INTO ${s}.users (id, balance, multiplier) VALUES ('usr_unrecorded', 1000, '1')`,
      `INSERT INTO ${s}.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count, multiplier,
        catalog_version, total_credits, balance_after) VALUES ('usr_direct', 'task_direct', 1, '{}', false, 0, '1', 'v', 0, 100)`,
      `UPDATE ${s}.jobs SET status = 'failed'`,
      `INSERT INTO ${s}.idempotency (user_id, key, task_id) VALUES ('usr_direct', 'k', 'task_direct')`,
    ];
    for (const text of forbidden) {
      expect(await refusal(serverUrl, text), text).toBe("42501");
    }

    // Through the function, as the same role: the balance and its entry move together.
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT ${s}.grant_credits('usr_direct', 50, 2) AS balance`,
      );
      expect(rows).toEqual([{ balance: "150" }]);
    } finally {
      await client.end();
    }
    const { rows: users } = await db.sql(
      `SELECT balance, held, ledger_seq FROM ${s}.users WHERE id = 'usr_direct'`,
    );
    expect(users).toEqual([{ balance: "150", held: "0", ledger_seq: "2" }]);
    const { rows: entries } = await db.sql(
      `SELECT seq, kind, credits FROM ${s}.ledger WHERE user_id = 'usr_direct' ORDER BY seq`,
    );
    expect(entries).toEqual([
      { seq: "1", kind: "grant", credits: "100" },
      { seq: "2", kind: "grant", credits: "50" },
    ]);
    expect((await db.sql(`SELECT 1 FROM ${s}.users WHERE id = 'usr_unrecorded'`)).rows).toEqual([]);
  });

  it("S6: commit_task refuses a debit other than the sum of its jobs' credits, or a negative job, and changes nothing", {
    timeout: 120_000,
  }, async () => {
    const ready = await setup();
    const { db, serverUrl } = ready;
    const s = `"${db.schema}"`;
    await userWithKey(ready, "forged");
    const state = async () => ({
      user: (
        await db.sql(`SELECT balance, held, ledger_seq FROM ${s}.users WHERE id = 'usr_forged'`)
      ).rows,
      ledger: (
        await db.sql(
          `SELECT seq, kind, credits FROM ${s}.ledger WHERE user_id = 'usr_forged' ORDER BY seq`,
        )
      ).rows,
      tasks: (await db.sql(`SELECT task_id FROM ${s}.tasks WHERE user_id = 'usr_forged'`)).rows,
      jobs: (await db.sql(`SELECT task_id FROM ${s}.jobs WHERE user_id = 'usr_forged'`)).rows,
      claims: (await db.sql(`SELECT key FROM ${s}.idempotency WHERE user_id = 'usr_forged'`)).rows,
    });
    const before = await state();
    expect(before).toEqual({
      user: [{ balance: "100", held: "0", ledger_seq: "1" }],
      ledger: [{ seq: "1", kind: "grant", credits: "100" }],
      tasks: [],
      jobs: [],
      claims: [],
    });

    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const commit = (task: string, jobs: number[], total: number) =>
        client
          .query(
            `SELECT outcome FROM ${s}.commit_task('usr_forged', $1, 'apk_forged', 'key_' || $1, NULL, 2, 2, '{}', false, 0, '1', 'v',
              $2::bigint[], $3::bigint)`,
            [task, jobs, total],
          )
          .then(
            ({ rows }) => rows,
            (error: { code?: string }) => error.code,
          );
      // Debiting 0 for jobs worth 100: failing them would refund 100 credits never charged.
      expect(await commit("task_free", [100], 0)).toBe("22023");
      expect(await commit("task_short", [60, 40], 99)).toBe("22023");
      expect(await commit("task_over", [60, 40], 101)).toBe("22023");
      // The sum matches, but one job's refund would take credits back.
      expect(await commit("task_negative", [150, -50], 100)).toBe("22023");
      expect(await state()).toEqual(before);
      const refund = await client.query(`SELECT ${s}.fail_job('task_free', 0, 3) AS refunded`);
      expect(refund.rows).toEqual([{ refunded: null }]);

      // The same call with the debit its jobs add up to is accepted, and a refund returns one job's charge.
      expect(await commit("task_paid", [60, 40], 100)).toEqual([{ outcome: "ok" }]);
      const paid = await client.query(`SELECT ${s}.fail_job('task_paid', 0, 3) AS refunded`);
      expect(paid.rows).toEqual([{ refunded: "60" }]);
    } finally {
      await client.end();
    }
    expect((await state()).user).toEqual([{ balance: "60", held: "40", ledger_seq: "3" }]);
  });

  it("S6: accept_generation refuses a debit other than the sum of its jobs' credits, or a negative job, and changes nothing", {
    timeout: 120_000,
  }, async () => {
    const ready = await setup();
    const { db, serverUrl } = ready;
    const s = `"${db.schema}"`;
    await userWithKey(ready, "forged6");
    const state = async () => ({
      user: (
        await db.sql(`SELECT balance, held, ledger_seq FROM ${s}.users WHERE id = 'usr_forged6'`)
      ).rows,
      tasks: (await db.sql(`SELECT task_id FROM ${s}.tasks WHERE user_id = 'usr_forged6'`)).rows,
      claims: (await db.sql(`SELECT key FROM ${s}.idempotency WHERE user_id = 'usr_forged6'`)).rows,
    });
    const before = await state();
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const accept = (task: string, jobs: number[], total: number) =>
        client
          .query(
            `SELECT outcome FROM ${s}.accept_generation('usr_forged6', $1, 'apk_forged6', 'key_' || $1, NULL, 2, 2, '{}', false, 0,
              '1', 'v', $2::bigint[], $3::bigint, '{}'::text[])`,
            [task, jobs, total],
          )
          .then(
            ({ rows }) => rows,
            (error: { code?: string }) => error.code,
          );
      expect(await accept("task_free", [100], 0)).toBe("22023");
      expect(await accept("task_short", [60, 40], 99)).toBe("22023");
      expect(await accept("task_negative", [150, -50], 100)).toBe("22023");
      expect(await state()).toEqual(before);
      expect(await accept("task_paid6", [60, 40], 100)).toEqual([{ outcome: "ok" }]);
    } finally {
      await client.end();
    }
    expect((await state()).user).toEqual([{ balance: "0", held: "100", ledger_seq: "2" }]);
  });

  it("every function of the store (those that write the ledger, and find_caller) runs with its owner's rights, a pinned search_path, and no EXECUTE for PUBLIC", {
    timeout: 60_000,
  }, async () => {
    const { db, owner, server } = await setup();
    const { rows } = await db.sql<{
      name: string;
      definer: boolean;
      owner: string;
      config: string[] | null;
      public: boolean;
      server: boolean;
    }>(
      `SELECT p.proname AS name, p.prosecdef AS definer, pg_get_userbyid(p.proowner) AS owner, p.proconfig AS config,
              EXISTS (SELECT 1 FROM aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                      WHERE a.grantee = 0 AND a.privilege_type = 'EXECUTE') AS public,
              has_function_privilege($2, p.oid, 'EXECUTE') AS server
       FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.prorettype <> 'trigger'::regtype ORDER BY p.proname`,
      [`"${db.schema}"`, server],
    );
    expect(rows).toEqual(
      [
        "accept_generation",
        "commit_task",
        "create_user",
        "fail_job",
        "fail_user_job",
        "find_caller",
        "grant_credits",
        "load_users",
      ].map((name) => ({
        name,
        definer: true,
        owner,
        config: ["search_path=pg_catalog, pg_temp"],
        public: false,
        server: true,
      })),
    );
  });

  it("S13: the server's role cannot run its own code as the owner through accept_generation: the pinned search_path passes over a temporary type named text, which the function's casts take once the pin is reset", {
    timeout: 120_000,
  }, async () => {
    const ready = await setup();
    const { db, serverUrl, ownerUrl, owner: ownerRole, server } = ready;
    const s = `"${db.schema}"`;
    await userWithKey(ready, "shadow");
    // All the attack needs besides EXECUTE: temporary objects, which every role may make by default.
    const database = (await db.sql<{ name: string }>("SELECT current_database() AS name")).rows[0]
      ?.name;
    await db.sql(`GRANT TEMPORARY ON DATABASE "${database}" TO "${server}"`);
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    const owner = new pg.Client({ connectionString: ownerUrl });
    await owner.connect();
    const outcome = (text: string) =>
      client.query<{ outcome: string }>(text).then(
        ({ rows }) => rows,
        (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
      );
    const accept = (jobs: string, total: number) =>
      outcome(
        `SELECT outcome FROM ${s}.accept_generation('usr_shadow', 'task_shadow', 'apk_shadow', 'key_shadow', NULL, 2, 2,
          '{}', false, 0, '1', 'v', '${jobs}'::bigint[], ${total}::bigint, '{}'::text[])`,
      );
    try {
      // A domain named text in the session's temporary schema, which is searched first for types: a
      // cast to text that takes it runs the domain's check, a function of the server's role.
      await client.query(
        `CREATE FUNCTION pg_temp.probe(x pg_catalog.text) RETURNS boolean LANGUAGE plpgsql
         AS $$ BEGIN RAISE EXCEPTION 'ran as %', current_user USING ERRCODE = 'XX001'; END $$`,
      );
      await client.query(
        "CREATE DOMAIN pg_temp.text AS pg_catalog.text CHECK (pg_temp.probe(VALUE))",
      );
      expect(await outcome("SELECT 'x'::text AS outcome")).toBe(`XX001: ran as ${server}`);

      // Pinned: a forged total is refused by the function's own check (its message casts the total to
      // text), and a claim accepted then replayed (whose answer casts the task's numbers) works.
      expect(await accept("{10}", 5)).toMatch(
        /^22023: the total must be the sum of the job credits/,
      );
      expect(await accept("{10}", 10)).toEqual([{ outcome: "ok" }]);
      expect(await accept("{10}", 10)).toEqual([{ outcome: "idempotency_key_taken" }]);
      const { rows } = await db.sql(`SELECT balance FROM ${s}.users WHERE id = 'usr_shadow'`);
      expect(rows).toEqual([{ balance: "90" }]);

      // The control: without the pin, the same forged total runs the role's function as the owner.
      await owner.query(`ALTER FUNCTION ${s}.accept_generation RESET search_path`);
      try {
        expect(await accept("{10}", 5)).toBe(`XX001: ran as ${ownerRole}`);
      } finally {
        await owner.query(
          `ALTER FUNCTION ${s}.accept_generation SET search_path = pg_catalog, pg_temp`,
        );
      }
    } finally {
      await client.end();
      await owner.end();
      await db.sql(`REVOKE TEMPORARY ON DATABASE "${database}" FROM "${server}"`);
    }
  });

  it("S2: the server's role calls find_caller (the distributed layout's key lookup) and gets the join's answer: the key and its multiplier, revoked or not, nothing for an unknown hash", {
    timeout: 60_000,
  }, async () => {
    const { db, serverUrl } = await setup();
    const s = `"${db.schema}"`;
    const store = await createPostgresStore({ connectionString: serverUrl, schema: db.schema });
    const key = {
      id: "apk_caller",
      userId: "usr_caller",
      mode: "test" as const,
      hash: "c".repeat(64),
      revoked: false,
    };
    try {
      await store.createUser({ id: key.userId, credits: 0, multiplier: "1.15" }, 1);
      expect(await store.putApiKey(key)).toBe(true);
    } finally {
      await store.close();
    }
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const lookups = async (hash: string) => {
        const join = await client.query(
          `SELECT k.id, k.user_id, k.mode, k.hash, k.revoked, u.multiplier
           FROM ${s}.api_keys k JOIN ${s}.users u ON u.id = k.user_id WHERE k.hash = $1`,
          [hash],
        );
        const routed = await client.query(
          `SELECT id, user_id, mode, hash, revoked, multiplier FROM ${s}.find_caller($1)`,
          [hash],
        );
        expect(routed.rows).toEqual(join.rows);
        return routed.rows;
      };
      const row = {
        id: key.id,
        user_id: key.userId,
        mode: "test",
        hash: key.hash,
        revoked: false,
        multiplier: "1.15",
      };
      expect(await lookups(key.hash)).toEqual([row]);
      await client.query(`UPDATE ${s}.api_keys SET revoked = true WHERE id = $1`, [key.id]);
      await client.query(`UPDATE ${s}.users SET multiplier = '0.85' WHERE id = $1`, [key.userId]);
      expect(await lookups(key.hash)).toEqual([{ ...row, revoked: true, multiplier: "0.85" }]);
      expect(await lookups("d".repeat(64))).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("the server's role starts on a schema the owner migrated, needing no right to create anything", {
    timeout: 60_000,
  }, async () => {
    const { db, serverUrl, server } = await setup();
    const { rows } = await db.sql<{ create: boolean; owner: boolean }>(
      `SELECT has_schema_privilege($1, $2, 'CREATE') AS create,
              pg_has_role($1, (SELECT nspowner FROM pg_namespace WHERE nspname = $2), 'MEMBER') AS owner`,
      [server, db.schema],
    );
    expect(rows).toEqual([{ create: false, owner: false }]);
    const store = await createPostgresStore({ connectionString: serverUrl, schema: db.schema });
    expect(await store.getUser("usr_nobody")).toBeUndefined();
    await store.close();
  });
});
