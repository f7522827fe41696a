/**
 * Migration 8: `accept_generation` in five statements instead of nine, with the arguments, answers
 * and guarantees of migration 6 (docs/postgres.md, "Accepting a task"). Once released, never edit
 * this file: its SQL's SHA-256 is in `checksums.json` and in every database that applied it.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "accept_generation in five statements: checks in the conditions of the debit and the task";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- CREATE OR REPLACE keeps the owner, the grants and the distribution; the options are stated again.
-- Each statement names one user's rows: on Citus, a data-modifying CTE feeding another would be
-- planned across nodes, so the checks are conditions of the writes instead.
CREATE OR REPLACE FUNCTION :schema.accept_generation(
  p_user text, p_task text, p_api_key text, p_claim_key text, p_claim_expires_at_ms bigint,
  p_now_ms bigint, p_created_at_ms bigint, p_request json, p_client_key boolean,
  p_reference_count integer, p_multiplier text, p_catalog_version text, p_job_credits bigint[],
  p_total bigint, p_asset_ids text[]
) RETURNS TABLE (outcome text, balance bigint, holder json) LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_balance bigint; v_seq bigint; v_sum numeric := 0; v_credits bigint;
  v_missing bigint; v_multiplier text; v_live boolean;
BEGIN
  -- The debit is what refunds may give back (a loop of simple expressions: no query).
  FOREACH v_credits IN ARRAY coalesce(p_job_credits, '{}') LOOP
    IF v_credits IS NULL OR v_credits < 0 THEN
      RAISE EXCEPTION 'every job credit is 0 or more; got %', p_job_credits USING ERRCODE = '22023';
    END IF;
    v_sum := v_sum + v_credits;
  END LOOP;
  IF p_total IS DISTINCT FROM v_sum THEN
    RAISE EXCEPTION 'the total must be the sum of the job credits, %; got %', v_sum, coalesce(p_total::text, 'NULL')
      USING ERRCODE = '22023';
  END IF;

  IF p_claim_key IS NOT NULL THEN
    -- A twin's uncommitted claim makes this wait for it. A held claim is not written: an expired
    -- one is taken over, a live one wins and its task is the answer (a replay writes nothing).
    INSERT INTO :schema.idempotency (user_id, key, task_id, expires_at_ms)
      VALUES (p_user, p_claim_key, p_task, p_claim_expires_at_ms) ON CONFLICT (user_id, key) DO NOTHING;
    IF NOT FOUND THEN
      UPDATE :schema.idempotency i SET task_id = p_task, expires_at_ms = p_claim_expires_at_ms
        WHERE i.user_id = p_user AND i.key = p_claim_key AND i.expires_at_ms <= p_now_ms;
    END IF;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'idempotency_key_taken'::text, NULL::bigint, json_build_object('task_id', t.task_id,
          'created_at_ms', t.created_at_ms::text, 'request', t.request, 'client_key', t.client_key,
          'reference_count', t.reference_count, 'multiplier', t.multiplier, 'catalog_version', t.catalog_version,
          'total_credits', t.total_credits::text, 'balance_after', t.balance_after::text,
          'job_credits', jj.job_credits, 'job_status', jj.job_status)
        FROM :schema.idempotency i
        JOIN :schema.tasks t ON t.user_id = i.user_id AND t.task_id = i.task_id
        CROSS JOIN LATERAL (
          SELECT array_agg(j.credits::text ORDER BY j.idx) AS job_credits, array_agg(j.status ORDER BY j.idx) AS job_status
          FROM :schema.jobs j WHERE j.user_id = p_user AND j.task_id = t.task_id
        ) jj
        WHERE i.user_id = p_user AND t.user_id = p_user AND i.key = p_claim_key;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'the idempotency claim points at a missing task';
      END IF;
      RETURN;
    END IF;
  END IF;

  -- Every reference must be the user's: the first that is not is reported (S2). No statement for
  -- a task without references, most of them.
  IF cardinality(p_asset_ids) > 0 THEN
    SELECT min(a.ord) - 1 INTO v_missing FROM unnest(p_asset_ids) WITH ORDINALITY AS a (id, ord)
      WHERE NOT EXISTS (SELECT FROM :schema.assets s WHERE s.user_id = p_user AND s.asset_id = a.id);
  END IF;

  -- Re-checked on the newest row once the lock is granted: never overdrawn, nor at an old multiplier.
  UPDATE :schema.users u SET balance = u.balance - p_total, held = u.held + p_total,
      ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance >= p_total AND u.multiplier = p_multiplier AND v_missing IS NULL
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    -- Why, in the order of S12; raising rolls the claim back, so the key stays free.
    SELECT u.balance, u.multiplier INTO v_balance, v_multiplier FROM :schema.users u WHERE u.id = p_user;
    v_live := EXISTS (SELECT FROM :schema.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked);
    IF v_missing IS NOT NULL AND v_live THEN
      RAISE EXCEPTION 'asset_not_found' USING ERRCODE = 'IG004', DETAIL = v_missing::text;
    ELSIF v_missing IS NULL AND v_multiplier IS NULL THEN
      RAISE EXCEPTION 'unknown_user' USING ERRCODE = 'IG003';
    ELSIF NOT v_live THEN
      RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
    ELSIF v_multiplier IS DISTINCT FROM p_multiplier THEN
      RAISE EXCEPTION 'multiplier_changed' USING ERRCODE = 'IG005', DETAIL = v_multiplier;
    END IF;
    RAISE EXCEPTION 'insufficient_credits' USING ERRCODE = 'IG001', DETAIL = v_balance::text;
  END IF;

  -- After the user's row is locked, which a revocation locks too: it committed before this statement
  -- (seen here) or commits after the task.
  INSERT INTO :schema.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count,
      multiplier, catalog_version, total_credits, balance_after)
    SELECT p_user, p_task, p_created_at_ms, p_request, p_client_key, p_reference_count,
      p_multiplier, p_catalog_version, p_total, v_balance
    WHERE EXISTS (SELECT FROM :schema.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked);
  IF NOT FOUND THEN
    RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
  END IF;
  INSERT INTO :schema.jobs (user_id, task_id, idx, credits)
    SELECT p_user, p_task, (j.ord - 1)::integer, j.credits FROM unnest(p_job_credits) WITH ORDINALITY AS j (credits, ord);
  IF p_total > 0 THEN
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms, task_id)
      VALUES (p_user, v_seq, 'debit', p_total, p_now_ms, p_task);
  END IF;
  outcome := 'ok';
  balance := v_balance;
  RETURN NEXT;
END
$fn$;
`;
