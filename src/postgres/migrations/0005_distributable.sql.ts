/**
 * Migration 5. Once released, never edit this file: its SQL's SHA-256 goes into `checksums.json`
 * and into the `migrations` table of every database that applies it, and a store refuses to start
 * where they differ.
 *
 * Makes the schema distributable by user id (Citus, docs/postgres.md): a distributed table's unique
 * constraints must include its distribution column, and a function is sent to the node of one user
 * only when it takes that user as an argument.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "every unique constraint includes the user id; fail_user_job refunds a job given its user";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- A task is unique per user: its id carries its user's id (task_<random><user id as hex>), so the
-- primary key (user_id, task_id) is enough. The plain index keeps a lookup by the id alone (a task
-- of an id without its user) one index read on one server.
ALTER TABLE :schema.tasks DROP CONSTRAINT tasks_task_id_key;
CREATE INDEX tasks_task_id ON :schema.tasks (task_id);

-- An asset is always read with its user, through the primary key (user_id, asset_id). The store
-- still refuses to store an id another user holds by reading this index first; two users taking
-- the same 64 random bits at the same instant is the case that no longer fails.
ALTER TABLE :schema.assets DROP CONSTRAINT assets_asset_id_key;
CREATE INDEX assets_asset_id ON :schema.assets (asset_id);

-- As fail_job, given the task's user instead of looking it up by the task id: every statement names
-- the user, so on a distributed schema the call runs on the one node that holds the user. Only a
-- job still queued is refunded, so however many callers race, the row lock on the job lets exactly
-- one of them see it queued. Returns the credits refunded, 0 for a job already failed, NULL for an
-- unknown job (or a task of another user).
CREATE FUNCTION :schema.fail_user_job(p_user text, p_task text, p_index integer, p_at_ms bigint)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_credits bigint;
  v_seq bigint;
BEGIN
  UPDATE :schema.jobs j SET status = 'failed'
    WHERE j.user_id = p_user AND j.task_id = p_task AND j.idx = p_index AND j.status = 'queued'
    RETURNING j.credits INTO v_credits;
  IF NOT FOUND THEN
    PERFORM 1 FROM :schema.jobs j WHERE j.user_id = p_user AND j.task_id = p_task AND j.idx = p_index;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
    RETURN 0;
  END IF;
  IF v_credits > 0 THEN
    UPDATE :schema.users u SET balance = u.balance + v_credits, held = u.held - v_credits, ledger_seq = u.ledger_seq + 1
      WHERE u.id = p_user RETURNING u.ledger_seq INTO v_seq;
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms, task_id, job_index)
      VALUES (p_user, v_seq, 'refund', v_credits, p_at_ms, p_task, p_index);
  END IF;
  RETURN v_credits;
END
$fn$;
REVOKE EXECUTE ON FUNCTION :schema.fail_user_job(text, text, integer, bigint) FROM PUBLIC;
`;
