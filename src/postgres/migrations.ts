/**
 * The PostgreSQL schema of the store as numbered migrations, and the runner that applies them under
 * an advisory lock so that any number of instances may start at once.
 */
import { createHash } from "node:crypto";
import type { PgPool as Pool, PgPoolClient as PoolClient } from "./pg.js";

/** The largest balance or movement the database accepts: 2^53 - 1, so a JavaScript number stays exact. */
const MAX = "9007199254740991";

/** One step of the schema: applied once, in its own transaction, in version order. */
export type Migration = {
  /** 1, 2, 3 ...: the order of application, recorded in the `migrations` table. */
  readonly version: number;
  /** What the step does, in a few words. */
  readonly name: string;
  /** The statements, given the quoted schema name. */
  readonly sql: (schema: string) => string;
};

/**
 * Every migration, oldest first. A released migration is never edited: a change is a new version.
 *
 * Every table a request touches has the user id first in its primary key, so each transaction of a
 * request touches one user's rows and the tables can be distributed by user id. `api_keys` is the
 * exception by design (looked up by hash before the user is known): a small table that a
 * distributed deployment replicates to every node.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "users, keys, assets, tasks, jobs, idempotency claims, append-only ledger; commit and refund",
    sql: (s) => `
CREATE TABLE ${s}.users (
  id text PRIMARY KEY,
  balance bigint NOT NULL CHECK (balance >= 0 AND balance <= ${MAX}),
  multiplier text NOT NULL,
  -- The seq of the user's newest ledger entry: bumped by the same UPDATE that moves the balance,
  -- so the row lock that serializes a user's balance changes also orders the user's entries.
  ledger_seq bigint NOT NULL DEFAULT 0 CHECK (ledger_seq >= 0)
);

CREATE TABLE ${s}.api_keys (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  -- SHA-256 of the whole key, lowercase hex: the key itself is never stored.
  hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
  revoked boolean NOT NULL DEFAULT false
);

CREATE TABLE ${s}.assets (
  user_id text NOT NULL REFERENCES ${s}.users (id),
  asset_id text NOT NULL UNIQUE,
  PRIMARY KEY (user_id, asset_id)
);

CREATE TABLE ${s}.tasks (
  user_id text NOT NULL REFERENCES ${s}.users (id),
  task_id text NOT NULL UNIQUE,
  created_at_ms bigint NOT NULL,
  -- The normalized request as the JSON text it was given in: key order and escapes survive.
  request json NOT NULL,
  client_key boolean NOT NULL,
  reference_count integer NOT NULL CHECK (reference_count >= 0),
  multiplier text NOT NULL,
  catalog_version text NOT NULL,
  total_credits bigint NOT NULL CHECK (total_credits >= 0 AND total_credits <= ${MAX}),
  balance_after bigint NOT NULL CHECK (balance_after >= 0 AND balance_after <= ${MAX}),
  PRIMARY KEY (user_id, task_id)
);

CREATE TABLE ${s}.jobs (
  user_id text NOT NULL,
  task_id text NOT NULL,
  idx integer NOT NULL CHECK (idx >= 0),
  credits bigint NOT NULL CHECK (credits >= 0 AND credits <= ${MAX}),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'failed')),
  PRIMARY KEY (user_id, task_id, idx),
  FOREIGN KEY (user_id, task_id) REFERENCES ${s}.tasks (user_id, task_id)
);

CREATE TABLE ${s}.idempotency (
  user_id text NOT NULL,
  key text NOT NULL,
  task_id text NOT NULL,
  -- NULL: the claim lasts as long as the task. Otherwise it is dead from this instant (epoch ms).
  expires_at_ms bigint,
  PRIMARY KEY (user_id, key),
  -- Checked at commit: the claim is taken before its task row exists.
  FOREIGN KEY (user_id, task_id) REFERENCES ${s}.tasks (user_id, task_id) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE ${s}.ledger (
  user_id text NOT NULL REFERENCES ${s}.users (id),
  seq bigint NOT NULL CHECK (seq > 0),
  kind text NOT NULL CHECK (kind IN ('grant', 'debit', 'refund')),
  credits bigint NOT NULL CHECK (credits > 0 AND credits <= ${MAX}),
  at_ms bigint NOT NULL,
  task_id text,
  job_index integer,
  PRIMARY KEY (user_id, seq),
  CHECK ((kind = 'grant') = (task_id IS NULL)),
  CHECK ((kind = 'refund') = (job_index IS NOT NULL))
);

-- The ledger is append-only: an entry is never updated or deleted, by the store or by anyone.
CREATE FUNCTION ${s}.ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % is not allowed', TG_OP USING ERRCODE = 'IG100';
END
$fn$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON ${s}.ledger
  FOR EACH ROW EXECUTE FUNCTION ${s}.ledger_is_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ${s}.ledger
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.ledger_is_append_only();

-- A job only ever moves from queued to failed, and its charge never changes: a failed job can
-- never be queued again and refunded twice.
CREATE FUNCTION ${s}.job_moves_forward() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' OR OLD.status <> 'queued' OR NEW.status <> 'failed' OR NEW.credits <> OLD.credits
     OR NEW.user_id <> OLD.user_id OR NEW.task_id <> OLD.task_id OR NEW.idx <> OLD.idx THEN
    RAISE EXCEPTION 'a job only moves from queued to failed (% refused)', TG_OP USING ERRCODE = 'IG101';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER jobs_move_forward BEFORE UPDATE OR DELETE ON ${s}.jobs
  FOR EACH ROW EXECUTE FUNCTION ${s}.job_moves_forward();

-- Accepting a task, as one transaction (the function call's). Claim first, then the user's row:
-- every transaction takes these locks in that order, so two requests cannot deadlock on them.
-- A rejection after a write raises (IG001-IG003), which rolls back the claim and the debit.
CREATE FUNCTION ${s}.commit_task(
  p_user text, p_task text, p_api_key text, p_claim_key text, p_claim_expires_at_ms bigint,
  p_now_ms bigint, p_created_at_ms bigint, p_request json, p_client_key boolean,
  p_reference_count integer, p_multiplier text, p_catalog_version text, p_job_credits bigint[],
  p_total bigint
) RETURNS TABLE (outcome text, balance bigint, task_id text) LANGUAGE plpgsql AS $fn$
DECLARE
  v_task text;
  v_balance bigint;
  v_seq bigint;
BEGIN
  IF p_claim_key IS NOT NULL THEN
    -- The unique (user_id, key) decides: an uncommitted claim of another transaction makes this
    -- wait for it; a committed live claim wins; an expired one is replaced.
    INSERT INTO ${s}.idempotency AS i (user_id, key, task_id, expires_at_ms)
      VALUES (p_user, p_claim_key, p_task, p_claim_expires_at_ms)
      ON CONFLICT (user_id, key) DO UPDATE
        SET task_id = EXCLUDED.task_id, expires_at_ms = EXCLUDED.expires_at_ms
        WHERE i.expires_at_ms IS NOT NULL AND i.expires_at_ms <= p_now_ms
      RETURNING i.task_id INTO v_task;
    IF NOT FOUND THEN
      SELECT i.task_id INTO v_task FROM ${s}.idempotency i WHERE i.user_id = p_user AND i.key = p_claim_key;
      RETURN QUERY SELECT 'idempotency_key_taken'::text, NULL::bigint, v_task;
      RETURN;
    END IF;
  END IF;

  -- The conditional debit: two instances can never overdraw, whatever the interleaving.
  UPDATE ${s}.users u
    SET balance = u.balance - p_total, ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance >= p_total
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    SELECT u.balance INTO v_balance FROM ${s}.users u WHERE u.id = p_user;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'unknown_user' USING ERRCODE = 'IG003';
    END IF;
    RAISE EXCEPTION 'insufficient_credits' USING ERRCODE = 'IG001', DETAIL = v_balance::text;
  END IF;

  -- Read after the user's row is locked: a revocation locks that row too, so it either committed
  -- before this point (and is seen here) or commits after this task.
  PERFORM 1 FROM ${s}.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
  END IF;

  INSERT INTO ${s}.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count,
      multiplier, catalog_version, total_credits, balance_after)
    VALUES (p_user, p_task, p_created_at_ms, p_request, p_client_key, p_reference_count,
      p_multiplier, p_catalog_version, p_total, v_balance);
  INSERT INTO ${s}.jobs (user_id, task_id, idx, credits)
    SELECT p_user, p_task, (j.ord - 1)::integer, j.credits
    FROM unnest(p_job_credits) WITH ORDINALITY AS j (credits, ord);
  IF p_total > 0 THEN
    INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms, task_id)
      VALUES (p_user, v_seq, 'debit', p_total, p_now_ms, p_task);
  END IF;
  RETURN QUERY SELECT 'ok'::text, v_balance, p_task;
END
$fn$;

-- Refunding a failed job, as one transaction: only a job still queued is refunded, so however
-- many callers race, the row lock on the job lets exactly one of them see it queued.
-- Returns the credits refunded, 0 for a job already failed, NULL for an unknown job.
CREATE FUNCTION ${s}.fail_job(p_task text, p_index integer, p_at_ms bigint)
RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  v_user text;
  v_credits bigint;
  v_seq bigint;
BEGIN
  SELECT t.user_id INTO v_user FROM ${s}.tasks t WHERE t.task_id = p_task;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  UPDATE ${s}.jobs j SET status = 'failed'
    WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index AND j.status = 'queued'
    RETURNING j.credits INTO v_credits;
  IF NOT FOUND THEN
    PERFORM 1 FROM ${s}.jobs j WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    RETURN 0;
  END IF;
  IF v_credits > 0 THEN
    UPDATE ${s}.users u SET balance = u.balance + v_credits, ledger_seq = u.ledger_seq + 1
      WHERE u.id = v_user RETURNING u.ledger_seq INTO v_seq;
    INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms, task_id, job_index)
      VALUES (v_user, v_seq, 'refund', v_credits, p_at_ms, p_task, p_index);
  END IF;
  RETURN v_credits;
END
$fn$;
`,
  },
  {
    version: 2,
    name: "users.held: credits of queued jobs, so that a grant keeps balance + held within 2^53 - 1 and no refund can pass it",
    sql: (s) => `
-- The credits of a user's queued jobs: what refunds may still add to the balance. A grant is
-- refused when balance + held + grant would pass 2^53 - 1 (the store's grant statement); a debit
-- and a refund only move credits between balance and held, so no refund can pass the bound.
-- The ALTER locks users until this migration commits, so no commit or refund runs between the
-- sum below and the new functions.
ALTER TABLE ${s}.users ADD COLUMN held bigint NOT NULL DEFAULT 0 CHECK (held >= 0);
UPDATE ${s}.users u SET held = q.held
  FROM (SELECT j.user_id, sum(j.credits) AS held FROM ${s}.jobs j WHERE j.status = 'queued' GROUP BY j.user_id) q
  WHERE q.user_id = u.id;

-- As in version 1, and the debit now also moves into held. Claim first, then the user's row:
-- every transaction takes these locks in that order, so two requests cannot deadlock on them.
-- A rejection after a write raises (IG001-IG003), which rolls back the claim and the debit.
CREATE OR REPLACE FUNCTION ${s}.commit_task(
  p_user text, p_task text, p_api_key text, p_claim_key text, p_claim_expires_at_ms bigint,
  p_now_ms bigint, p_created_at_ms bigint, p_request json, p_client_key boolean,
  p_reference_count integer, p_multiplier text, p_catalog_version text, p_job_credits bigint[],
  p_total bigint
) RETURNS TABLE (outcome text, balance bigint, task_id text) LANGUAGE plpgsql AS $fn$
DECLARE
  v_task text;
  v_balance bigint;
  v_seq bigint;
BEGIN
  IF p_claim_key IS NOT NULL THEN
    -- The unique (user_id, key) decides: an uncommitted claim of another transaction makes this
    -- wait for it; a committed live claim wins; an expired one is replaced.
    INSERT INTO ${s}.idempotency AS i (user_id, key, task_id, expires_at_ms)
      VALUES (p_user, p_claim_key, p_task, p_claim_expires_at_ms)
      ON CONFLICT (user_id, key) DO UPDATE
        SET task_id = EXCLUDED.task_id, expires_at_ms = EXCLUDED.expires_at_ms
        WHERE i.expires_at_ms IS NOT NULL AND i.expires_at_ms <= p_now_ms
      RETURNING i.task_id INTO v_task;
    IF NOT FOUND THEN
      SELECT i.task_id INTO v_task FROM ${s}.idempotency i WHERE i.user_id = p_user AND i.key = p_claim_key;
      RETURN QUERY SELECT 'idempotency_key_taken'::text, NULL::bigint, v_task;
      RETURN;
    END IF;
  END IF;

  -- The conditional debit: two instances can never overdraw, whatever the interleaving.
  UPDATE ${s}.users u
    SET balance = u.balance - p_total, held = u.held + p_total,
      ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance >= p_total
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    SELECT u.balance INTO v_balance FROM ${s}.users u WHERE u.id = p_user;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'unknown_user' USING ERRCODE = 'IG003';
    END IF;
    RAISE EXCEPTION 'insufficient_credits' USING ERRCODE = 'IG001', DETAIL = v_balance::text;
  END IF;

  -- Read after the user's row is locked: a revocation locks that row too, so it either committed
  -- before this point (and is seen here) or commits after this task.
  PERFORM 1 FROM ${s}.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
  END IF;

  INSERT INTO ${s}.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count,
      multiplier, catalog_version, total_credits, balance_after)
    VALUES (p_user, p_task, p_created_at_ms, p_request, p_client_key, p_reference_count,
      p_multiplier, p_catalog_version, p_total, v_balance);
  INSERT INTO ${s}.jobs (user_id, task_id, idx, credits)
    SELECT p_user, p_task, (j.ord - 1)::integer, j.credits
    FROM unnest(p_job_credits) WITH ORDINALITY AS j (credits, ord);
  IF p_total > 0 THEN
    INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms, task_id)
      VALUES (p_user, v_seq, 'debit', p_total, p_now_ms, p_task);
  END IF;
  RETURN QUERY SELECT 'ok'::text, v_balance, p_task;
END
$fn$;

-- As in version 1, and a refund now moves its credits from held back to the balance: only a job
-- still queued is refunded, so however many callers race, the row lock on the job lets exactly one
-- of them see it queued.
-- Returns the credits refunded, 0 for a job already failed, NULL for an unknown job.
CREATE OR REPLACE FUNCTION ${s}.fail_job(p_task text, p_index integer, p_at_ms bigint)
RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  v_user text;
  v_credits bigint;
  v_seq bigint;
BEGIN
  SELECT t.user_id INTO v_user FROM ${s}.tasks t WHERE t.task_id = p_task;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  UPDATE ${s}.jobs j SET status = 'failed'
    WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index AND j.status = 'queued'
    RETURNING j.credits INTO v_credits;
  IF NOT FOUND THEN
    PERFORM 1 FROM ${s}.jobs j WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    RETURN 0;
  END IF;
  IF v_credits > 0 THEN
    UPDATE ${s}.users u SET balance = u.balance + v_credits, held = u.held - v_credits, ledger_seq = u.ledger_seq + 1
      WHERE u.id = v_user RETURNING u.ledger_seq INTO v_seq;
    INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms, task_id, job_index)
      VALUES (v_user, v_seq, 'refund', v_credits, p_at_ms, p_task, p_index);
  END IF;
  RETURN v_credits;
END
$fn$;
`,
  },
];

/** The schema version this package brings the database to. */
export const LATEST_VERSION = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Checks a schema name and returns it double-quoted for SQL.
 *
 * Only lowercase letters, digits and `_` (not first) are accepted, at most 63 characters: such a
 * name means the same quoted or not, so `psql` users find it as they type it.
 *
 * @param schema - The schema name.
 * @returns The name in double quotes.
 * @throws TypeError naming the rule when the name is not such an identifier.
 * @internal
 */
export function quoteSchema(schema: unknown): string {
  if (typeof schema !== "string" || !IDENTIFIER.test(schema)) {
    const shown = typeof schema === "string" ? JSON.stringify(schema.slice(0, 80)) : typeof schema;
    throw new TypeError(
      `schema must be a lowercase SQL identifier (a-z, 0-9 and _, not starting with a digit, 1 to 63 characters); got ${shown}`,
    );
  }
  return `"${schema}"`;
}

/**
 * The advisory lock key of a schema's migrations: the first 8 bytes of a SHA-256, as a signed
 * 64-bit integer (decimal string), so instances of any version agree on it.
 *
 * @param schema - The schema name.
 * @returns The key, for `pg_advisory_xact_lock($1::bigint)`.
 * @internal
 */
export function migrationLockKey(schema: string): string {
  const digest = createHash("sha256").update(`imagegen-pricing migrations ${schema}`).digest();
  return digest.readBigInt64BE(0).toString();
}

/**
 * Creates the schema if needed and applies every migration it lacks, each in its own transaction
 * that holds the schema's advisory lock: instances that start together apply each step once,
 * the others wait and then find it applied.
 *
 * @param pool - Where to run them.
 * @param schema - The (checked) schema name.
 * @returns The versions applied by this call (empty when the schema was up to date).
 * @throws Error when the database is not UTF8, or at a version newer than this package knows.
 * @internal
 */
export async function runMigrations(pool: Pool, schema: string): Promise<number[]> {
  const s = quoteSchema(schema);
  const lockKey = migrationLockKey(schema);
  const applied: number[] = [];
  const client = await pool.connect();
  let broken = false;
  try {
    const inTransaction = async <T>(work: () => Promise<T>): Promise<T> => {
      await client.query("BEGIN");
      try {
        await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey]);
        const result = await work();
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {
          broken = true;
        });
        throw error;
      }
    };
    // Ids, keys and prompts are Unicode: in another encoding the first emoji would fail a request.
    const { rows: encoding } = await client.query<{ name: string }>("SELECT current_setting('server_encoding') AS name");
    if (encoding[0]?.name !== "UTF8") {
      throw new Error(
        `the database's encoding is ${encoding[0]?.name}; the store needs UTF8 (CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0)`,
      );
    }
    await inTransaction(async () => {
      // Looked up first: CREATE ... IF NOT EXISTS would still demand the CREATE privilege, which a
      // role that only uses an existing schema need not have.
      const { rows } = await client.query<{ schema: boolean; table: boolean }>(
        "SELECT to_regnamespace($1) IS NOT NULL AS schema, to_regclass($2) IS NOT NULL AS table",
        [s, `${s}.migrations`],
      );
      if (!rows[0]?.schema) await client.query(`CREATE SCHEMA ${s}`);
      if (!rows[0]?.table) {
        await client.query(
          `CREATE TABLE ${s}.migrations (
             version integer PRIMARY KEY,
             name text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
           )`,
        );
      }
    });
    for (const migration of MIGRATIONS) {
      await inTransaction(async () => {
        const current = await currentVersion(client, s);
        if (current > LATEST_VERSION) {
          throw new Error(
            `schema ${schema} is at version ${current}, newer than this package's ${LATEST_VERSION}: upgrade imagegen-pricing`,
          );
        }
        if (current >= migration.version) return;
        await client.query(migration.sql(s));
        await client.query(`INSERT INTO ${s}.migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
        applied.push(migration.version);
      });
    }
  } catch (error) {
    broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
  return applied;
}

async function currentVersion(client: PoolClient, s: string): Promise<number> {
  const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.migrations`);
  return rows[0]?.version ?? 0;
}
