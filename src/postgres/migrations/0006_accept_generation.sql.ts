/**
 * Migration 6: accepting a generation in one call. Once released, never edit this file: its SQL's
 * SHA-256 is in `checksums.json` and in the `migrations` table of every database that applied it,
 * and a store refuses to start where they differ: a change is a new migration.
 *
 * `accept_generation` does in one statement what a request needed three reads and `commit_task`
 * for: it answers a live idempotency claim with the task that holds it (a replay reads and writes
 * nothing), claims the key, checks that every reference is the user's, checks that the multiplier
 * the caller priced with is still the user's, debits, checks the key, and writes the task, its jobs
 * and the debit entry. Its first argument is the user id and every statement in it is filtered by
 * that id, and every uniqueness it relies on includes the user id, so a distributed deployment can
 * run it whole on the node that holds the user.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "accept_generation: claim, references, multiplier, debit, task, jobs and entry in one call";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- The order of the checks is the rule book's (S12): a live claim first (the holder's task is
-- returned, for a replay or a 409), then the references, then the multiplier and the balance. A
-- refusal after the claim raises, which rolls the claim back (a refused request does not use up
-- its key): IG001 insufficient credits (DETAIL the balance), IG002 key revoked, IG003 unknown user,
-- IG004 a reference that is not the user's (DETAIL its 0-based index in p_asset_ids), IG005 the
-- user's multiplier is no longer p_multiplier (DETAIL the current one: price again and retry).
-- A revoked key wins over IG001, IG004 and IG005, as the 401 comes before them.
-- Claim first, then the user's row: every transaction takes these locks in that order.
-- The answer is one row: 'ok' and the balance after the debit, or 'idempotency_key_taken' and the
-- holder's task as JSON (its bigints as strings, so no number is rounded on the way).
CREATE FUNCTION :schema.accept_generation(
  p_user text, p_task text, p_api_key text, p_claim_key text, p_claim_expires_at_ms bigint,
  p_now_ms bigint, p_created_at_ms bigint, p_request json, p_client_key boolean,
  p_reference_count integer, p_multiplier text, p_catalog_version text, p_job_credits bigint[],
  p_total bigint, p_asset_ids text[]
) RETURNS TABLE (outcome text, balance bigint, holder json) LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_balance bigint;
  v_seq bigint;
  v_sum numeric;
  v_bad boolean;
  v_missing bigint;
  v_multiplier text;
BEGIN
  -- As commit_task (migration 4): the debit is what refunds may give back.
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
    -- A replay: a plain read, so that it writes nothing and commits nothing to disk.
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
      WHERE i.user_id = p_user AND t.user_id = p_user AND i.key = p_claim_key
        AND (i.expires_at_ms IS NULL OR i.expires_at_ms > p_now_ms);
    IF FOUND THEN
      RETURN;
    END IF;
    -- The unique (user_id, key) decides: an uncommitted claim of another transaction makes this
    -- wait for it; a committed live claim wins; an expired one is replaced.
    INSERT INTO :schema.idempotency AS i (user_id, key, task_id, expires_at_ms)
      VALUES (p_user, p_claim_key, p_task, p_claim_expires_at_ms)
      ON CONFLICT (user_id, key) DO UPDATE
        SET task_id = EXCLUDED.task_id, expires_at_ms = EXCLUDED.expires_at_ms
        WHERE i.expires_at_ms IS NOT NULL AND i.expires_at_ms <= p_now_ms;
    IF NOT FOUND THEN
      -- A twin committed its claim between the read above and this insert: its task, as above.
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

  -- Every reference must be the user's; the first that is not is reported (S2).
  SELECT min(a.ord) - 1 INTO v_missing FROM unnest(coalesce(p_asset_ids, '{}'::text[])) WITH ORDINALITY AS a (id, ord)
    WHERE NOT EXISTS (SELECT 1 FROM :schema.assets s WHERE s.user_id = p_user AND s.asset_id = a.id);
  IF v_missing IS NOT NULL THEN
    PERFORM 1 FROM :schema.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
    END IF;
    RAISE EXCEPTION 'asset_not_found' USING ERRCODE = 'IG004', DETAIL = v_missing::text;
  END IF;

  -- The conditional debit, priced with the multiplier in force: two instances can never overdraw,
  -- and a multiplier changed since the caller read it charges nothing.
  UPDATE :schema.users u
    SET balance = u.balance - p_total, held = u.held + p_total,
      ledger_seq = u.ledger_seq + CASE WHEN p_total > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance >= p_total AND u.multiplier = p_multiplier
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    SELECT u.balance, u.multiplier INTO v_balance, v_multiplier FROM :schema.users u WHERE u.id = p_user;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'unknown_user' USING ERRCODE = 'IG003';
    END IF;
    PERFORM 1 FROM :schema.api_keys k WHERE k.id = p_api_key AND k.user_id = p_user AND NOT k.revoked;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'api_key_revoked' USING ERRCODE = 'IG002';
    END IF;
    IF v_multiplier IS DISTINCT FROM p_multiplier THEN
      RAISE EXCEPTION 'multiplier_changed' USING ERRCODE = 'IG005', DETAIL = v_multiplier;
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
  outcome := 'ok';
  balance := v_balance;
  RETURN NEXT;
END
$fn$;

REVOKE EXECUTE ON FUNCTION :schema.accept_generation(text, text, text, text, bigint, bigint, bigint, json, boolean, integer,
  text, text, bigint[], bigint, text[]) FROM PUBLIC;
`;
