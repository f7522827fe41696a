/**
 * Migration 2, released: never edit this file. Its SQL's SHA-256 is in `checksums.json` and in the
 * `migrations` table of every database that applied it, and a store refuses to start where they
 * differ: a change is a new migration.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "users.held: credits of queued jobs, so that a grant keeps balance + held within 2^53 - 1 and no refund can pass it";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- The credits of a user's queued jobs: what refunds may still add to the balance. A grant is
-- refused when balance + held + grant would pass 2^53 - 1 (the store's grant statement); a debit
-- and a refund only move credits between balance and held, so no refund can pass the bound.
-- The ALTER locks users until this migration commits, so no commit or refund runs between the
-- sum below and the new functions.
ALTER TABLE :schema.users ADD COLUMN held bigint NOT NULL DEFAULT 0 CHECK (held >= 0);
UPDATE :schema.users u SET held = q.held
  FROM (SELECT j.user_id, sum(j.credits) AS held FROM :schema.jobs j WHERE j.status = 'queued' GROUP BY j.user_id) q
  WHERE q.user_id = u.id;

-- As in version 1, and the debit now also moves into held. Claim first, then the user's row:
-- every transaction takes these locks in that order, so two requests cannot deadlock on them.
-- A rejection after a write raises (IG001-IG003), which rolls back the claim and the debit.
CREATE OR REPLACE FUNCTION :schema.commit_task(
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
    SET balance = u.balance - p_total, held = u.held + p_total,
      ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
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

-- As in version 1, and a refund now moves its credits from held back to the balance: only a job
-- still queued is refunded, so however many callers race, the row lock on the job lets exactly one
-- of them see it queued.
-- Returns the credits refunded, 0 for a job already failed, NULL for an unknown job.
CREATE OR REPLACE FUNCTION :schema.fail_job(p_task text, p_index integer, p_at_ms bigint)
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
    UPDATE :schema.users u SET balance = u.balance + v_credits, held = u.held - v_credits, ledger_seq = u.ledger_seq + 1
      WHERE u.id = v_user RETURNING u.ledger_seq INTO v_seq;
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms, task_id, job_index)
      VALUES (v_user, v_seq, 'refund', v_credits, p_at_ms, p_task, p_index);
  END IF;
  RETURN v_credits;
END
$fn$;
`;
