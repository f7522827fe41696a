/**
 * Migration 4, released: never edit this file. Its SQL's SHA-256 is in `checksums.json` and in the
 * `migrations` table of every database that applied it, and a store refuses to start where they
 * differ: a change is a new migration.
 *
 * `commit_task` runs with its owner's rights since migration 3, so it can no longer trust its
 * caller to send a debit that matches the jobs: a task debiting 0 with jobs worth 100 would let
 * `fail_job` refund 100 credits never charged (S6, S13). It now refuses such a task before writing
 * anything.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "commit_task refuses a total other than the sum of its jobs' credits, or a negative job";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- As in version 2, with the check first. CREATE OR REPLACE keeps the owner and the grants (EXECUTE
-- revoked from PUBLIC, granted to the server's role) but resets every option it does not state, so
-- SECURITY DEFINER and the pinned search_path of version 3 are stated again.
CREATE OR REPLACE FUNCTION :schema.commit_task(
  p_user text, p_task text, p_api_key text, p_claim_key text, p_claim_expires_at_ms bigint,
  p_now_ms bigint, p_created_at_ms bigint, p_request json, p_client_key boolean,
  p_reference_count integer, p_multiplier text, p_catalog_version text, p_job_credits bigint[],
  p_total bigint
) RETURNS TABLE (outcome text, balance bigint, task_id text) LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_task text;
  v_balance bigint;
  v_seq bigint;
  v_sum numeric;
  v_bad boolean;
BEGIN
  -- The debit is what refunds may give back: a total other than the jobs' sum would let fail_job
  -- return credits never charged (or keep some charged for no job). sum(bigint) is numeric, so no
  -- array of jobs can overflow it.
  SELECT coalesce(sum(j.credits), 0), coalesce(bool_or(j.credits IS NULL OR j.credits < 0), false)
    INTO v_sum, v_bad FROM unnest(p_job_credits) AS j (credits);
  IF v_bad THEN
    RAISE EXCEPTION 'every job credit is 0 or more; got %', p_job_credits USING ERRCODE = '22023';
  END IF;
  IF p_total IS DISTINCT FROM v_sum THEN
    RAISE EXCEPTION 'the total must be the sum of the job credits, %; got %', v_sum, coalesce(p_total::text, 'NULL')
      USING ERRCODE = '22023';
  END IF;

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
`;
