/**
 * Migration 1, released: never edit this file. Its SQL's SHA-256 is in `checksums.json` and in the
 * `migrations` table of every database that applied it, and a store refuses to start where they
 * differ: a change is a new migration.
 *
 * 9007199254740991 is 2^53 - 1, the largest balance or movement the database accepts, so a
 * JavaScript number stays exact.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "users, keys, assets, tasks, jobs, idempotency claims, append-only ledger; commit and refund";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
CREATE TABLE :schema.users (
  id text PRIMARY KEY,
  balance bigint NOT NULL CHECK (balance >= 0 AND balance <= 9007199254740991),
  multiplier text NOT NULL,
  -- The seq of the user's newest ledger entry: bumped by the same UPDATE that moves the balance,
  -- so the row lock that serializes a user's balance changes also orders the user's entries.
  ledger_seq bigint NOT NULL DEFAULT 0 CHECK (ledger_seq >= 0)
);

CREATE TABLE :schema.api_keys (
  id text PRIMARY KEY,
  user_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  -- SHA-256 of the whole key, lowercase hex: the key itself is never stored.
  hash text NOT NULL UNIQUE CHECK (hash ~ '^[0-9a-f]{64}$'),
  revoked boolean NOT NULL DEFAULT false
);

CREATE TABLE :schema.assets (
  user_id text NOT NULL REFERENCES :schema.users (id),
  asset_id text NOT NULL UNIQUE,
  PRIMARY KEY (user_id, asset_id)
);

CREATE TABLE :schema.tasks (
  user_id text NOT NULL REFERENCES :schema.users (id),
  task_id text NOT NULL UNIQUE,
  created_at_ms bigint NOT NULL,
  -- The normalized request as the JSON text it was given in: key order and escapes survive.
  request json NOT NULL,
  client_key boolean NOT NULL,
  reference_count integer NOT NULL CHECK (reference_count >= 0),
  multiplier text NOT NULL,
  catalog_version text NOT NULL,
  total_credits bigint NOT NULL CHECK (total_credits >= 0 AND total_credits <= 9007199254740991),
  balance_after bigint NOT NULL CHECK (balance_after >= 0 AND balance_after <= 9007199254740991),
  PRIMARY KEY (user_id, task_id)
);

CREATE TABLE :schema.jobs (
  user_id text NOT NULL,
  task_id text NOT NULL,
  idx integer NOT NULL CHECK (idx >= 0),
  credits bigint NOT NULL CHECK (credits >= 0 AND credits <= 9007199254740991),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'failed')),
  PRIMARY KEY (user_id, task_id, idx),
  FOREIGN KEY (user_id, task_id) REFERENCES :schema.tasks (user_id, task_id)
);

CREATE TABLE :schema.idempotency (
  user_id text NOT NULL,
  key text NOT NULL,
  task_id text NOT NULL,
  -- NULL: the claim lasts as long as the task. Otherwise it is dead from this instant (epoch ms).
  expires_at_ms bigint,
  PRIMARY KEY (user_id, key),
  -- Checked at commit: the claim is taken before its task row exists.
  FOREIGN KEY (user_id, task_id) REFERENCES :schema.tasks (user_id, task_id) DEFERRABLE INITIALLY DEFERRED
);

CREATE TABLE :schema.ledger (
  user_id text NOT NULL REFERENCES :schema.users (id),
  seq bigint NOT NULL CHECK (seq > 0),
  kind text NOT NULL CHECK (kind IN ('grant', 'debit', 'refund')),
  credits bigint NOT NULL CHECK (credits > 0 AND credits <= 9007199254740991),
  at_ms bigint NOT NULL,
  task_id text,
  job_index integer,
  PRIMARY KEY (user_id, seq),
  CHECK ((kind = 'grant') = (task_id IS NULL)),
  CHECK ((kind = 'refund') = (job_index IS NOT NULL))
);

-- The ledger is append-only: an entry is never updated or deleted, by the store or by anyone.
CREATE FUNCTION :schema.ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  RAISE EXCEPTION 'the ledger is append-only: % is not allowed', TG_OP USING ERRCODE = 'IG100';
END
$fn$;
CREATE TRIGGER ledger_no_update BEFORE UPDATE OR DELETE ON :schema.ledger
  FOR EACH ROW EXECUTE FUNCTION :schema.ledger_is_append_only();
CREATE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON :schema.ledger
  FOR EACH STATEMENT EXECUTE FUNCTION :schema.ledger_is_append_only();

-- A job only ever moves from queued to failed, and its charge never changes: a failed job can
-- never be queued again and refunded twice.
CREATE FUNCTION :schema.job_moves_forward() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'DELETE' OR OLD.status <> 'queued' OR NEW.status <> 'failed' OR NEW.credits <> OLD.credits
     OR NEW.user_id <> OLD.user_id OR NEW.task_id <> OLD.task_id OR NEW.idx <> OLD.idx THEN
    RAISE EXCEPTION 'a job only moves from queued to failed (% refused)', TG_OP USING ERRCODE = 'IG101';
  END IF;
  RETURN NEW;
END
$fn$;
CREATE TRIGGER jobs_move_forward BEFORE UPDATE OR DELETE ON :schema.jobs
  FOR EACH ROW EXECUTE FUNCTION :schema.job_moves_forward();

-- Accepting a task, as one transaction (the function call's). Claim first, then the user's row:
-- every transaction takes these locks in that order, so two requests cannot deadlock on them.
-- A rejection after a write raises (IG001-IG003), which rolls back the claim and the debit.
CREATE FUNCTION :schema.commit_task(
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
    INSERT INTO :schema.idempotency AS i (user_id, key, task_id, expires_at_ms)
      VALUES (p_user, p_claim_key, p_task, p_claim_expires_at_ms)
      ON CONFLICT (user_id, key) DO UPDATE
        SET task_id = EXCLUDED.task_id, expires_at_ms = EXCLUDED.expires_at_ms
        WHERE i.expires_at_ms IS NOT NULL AND i.expires_at_ms <= p_now_ms
      RETURNING i.task_id INTO v_task;
    IF NOT FOUND THEN
      SELECT i.task_id INTO v_task FROM :schema.idempotency i WHERE i.user_id = p_user AND i.key = p_claim_key;
      RETURN QUERY SELECT 'idempotency_key_taken'::text, NULL::bigint, v_task;
      RETURN;
    END IF;
  END IF;

  -- The conditional debit: two instances can never overdraw, whatever the interleaving.
  UPDATE :schema.users u
    SET balance = u.balance - p_total, ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance >= p_total
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    SELECT u.balance INTO v_balance FROM :schema.users u WHERE u.id = p_user;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'unknown_user' USING ERRCODE = 'IG003';
    END IF;
    RAISE EXCEPTION 'insufficient_credits' USING ERRCODE = 'IG001', DETAIL = v_balance::text;
  END IF;

  -- Read after the user's row is locked: a revocation locks that row too, so it either committed
  -- before this point (and is seen here) or commits after this task.
  PERFORM 1 FROM :schema.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
  END IF;

  INSERT INTO :schema.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count,
      multiplier, catalog_version, total_credits, balance_after)
    VALUES (p_user, p_task, p_created_at_ms, p_request, p_client_key, p_reference_count,
      p_multiplier, p_catalog_version, p_total, v_balance);
  INSERT INTO :schema.jobs (user_id, task_id, idx, credits)
    SELECT p_user, p_task, (j.ord - 1)::integer, j.credits
    FROM unnest(p_job_credits) WITH ORDINALITY AS j (credits, ord);
  IF p_total > 0 THEN
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms, task_id)
      VALUES (p_user, v_seq, 'debit', p_total, p_now_ms, p_task);
  END IF;
  RETURN QUERY SELECT 'ok'::text, v_balance, p_task;
END
$fn$;

-- Refunding a failed job, as one transaction: only a job still queued is refunded, so however
-- many callers race, the row lock on the job lets exactly one of them see it queued.
-- Returns the credits refunded, 0 for a job already failed, NULL for an unknown job.
CREATE FUNCTION :schema.fail_job(p_task text, p_index integer, p_at_ms bigint)
RETURNS bigint LANGUAGE plpgsql AS $fn$
DECLARE
  v_user text;
  v_credits bigint;
  v_seq bigint;
BEGIN
  SELECT t.user_id INTO v_user FROM :schema.tasks t WHERE t.task_id = p_task;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  UPDATE :schema.jobs j SET status = 'failed'
    WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index AND j.status = 'queued'
    RETURNING j.credits INTO v_credits;
  IF NOT FOUND THEN
    PERFORM 1 FROM :schema.jobs j WHERE j.user_id = v_user AND j.task_id = p_task AND j.idx = p_index;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    RETURN 0;
  END IF;
  IF v_credits > 0 THEN
    UPDATE :schema.users u SET balance = u.balance + v_credits, ledger_seq = u.ledger_seq + 1
      WHERE u.id = v_user RETURNING u.ledger_seq INTO v_seq;
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms, task_id, job_index)
      VALUES (v_user, v_seq, 'refund', v_credits, p_at_ms, p_task, p_index);
  END IF;
  RETURN v_credits;
END
$fn$;
`;
