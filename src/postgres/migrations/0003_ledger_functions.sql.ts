/**
 * Migration 3, released: never edit this file. Its SQL's SHA-256 is in `checksums.json` and in the
 * `migrations` table of every database that applied it, and a store refuses to start where they
 * differ: a change is a new migration.
 *
 * Every write of the ledger and every change of a balance is now a function that runs with its
 * owner's rights (the role that migrates), so the role the servers connect as needs no right to
 * insert into `ledger` or to update `users.balance`, `held` or `ledger_seq` (docs/postgres.md,
 * "Least privilege"). Each function pins its `search_path` to `pg_catalog, pg_temp` and names every
 * table with its schema, as PostgreSQL advises for `SECURITY DEFINER`: no schema a caller can write
 * to is ever searched. EXECUTE is revoked from PUBLIC; the owner grants it to the server's role.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name =
  "grants, new users and fixture users through SECURITY DEFINER functions; commit_task and fail_job too";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- A new user and its opening grant (entry 1), in one transaction. True when it was created, false
-- when the id was taken (nothing changed).
CREATE FUNCTION :schema.create_user(p_id text, p_credits bigint, p_multiplier text, p_at_ms bigint)
RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
  INSERT INTO :schema.users (id, balance, multiplier, ledger_seq)
    VALUES (p_id, p_credits, p_multiplier, CASE WHEN p_credits > 0 THEN 1 ELSE 0 END)
    ON CONFLICT (id) DO NOTHING;
  IF NOT FOUND THEN
    RETURN false;
  END IF;
  IF p_credits > 0 THEN
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms)
      VALUES (p_id, 1, 'grant', p_credits, p_at_ms);
  END IF;
  RETURN true;
END
$fn$;

-- A grant and its entry, in one transaction, conditional on balance + held staying within 2^53 - 1
-- (held: what refunds may still add, counted so that no refund can pass the bound). The new
-- balance, or NULL when the user is unknown or the grant would pass the bound (nothing changed).
CREATE FUNCTION :schema.grant_credits(p_user text, p_credits bigint, p_at_ms bigint)
RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_balance bigint;
  v_seq bigint;
BEGIN
  -- A negative grant would lower a balance with no entry to explain it.
  IF p_credits < 0 THEN
    RAISE EXCEPTION 'a grant is 0 or more credits; got %', p_credits USING ERRCODE = '22023';
  END IF;
  UPDATE :schema.users u
    SET balance = u.balance + p_credits, ledger_seq = u.ledger_seq + CASE WHEN p_credits > 0 THEN 1 ELSE 0 END
    WHERE u.id = p_user AND u.balance + u.held <= 9007199254740991 - p_credits
    RETURNING u.balance, u.ledger_seq INTO v_balance, v_seq;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF p_credits > 0 THEN
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms)
      VALUES (p_user, v_seq, 'grant', p_credits, p_at_ms);
  END IF;
  RETURN v_balance;
END
$fn$;

-- The users of a fixture load that do not exist yet, each with its opening grant (entry 1), as one
-- statement of the caller's transaction. The ids it created, in no particular order.
CREATE FUNCTION :schema.load_users(p_ids text[], p_credits bigint[], p_multipliers text[], p_at_ms bigint)
RETURNS text[] LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_created text[];
BEGIN
  WITH u AS (
    INSERT INTO :schema.users (id, balance, multiplier, ledger_seq)
    SELECT f.id, f.credits, f.multiplier, CASE WHEN f.credits > 0 THEN 1 ELSE 0 END
    FROM unnest(p_ids, p_credits, p_multipliers) AS f (id, credits, multiplier)
    ON CONFLICT (id) DO NOTHING
    RETURNING id, balance
  ), g AS (
    INSERT INTO :schema.ledger (user_id, seq, kind, credits, at_ms)
    SELECT u.id, 1, 'grant', u.balance, p_at_ms FROM u WHERE u.balance > 0
  )
  SELECT coalesce(array_agg(u.id), '{}') INTO v_created FROM u;
  RETURN v_created;
END
$fn$;

-- Accepting a task and refunding a job write the ledger and move balances too: with the owner's
-- rights, and the same pinned search_path (their bodies already name every table with its schema).
ALTER FUNCTION :schema.commit_task(text, text, text, text, bigint, bigint, bigint, json, boolean, integer, text, text,
  bigint[], bigint) SECURITY DEFINER SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION :schema.fail_job(text, integer, bigint) SECURITY DEFINER SET search_path = pg_catalog, pg_temp;

-- A function runs with its owner's rights now: only a role the owner grants it to may call it.
REVOKE EXECUTE ON FUNCTION :schema.create_user(text, bigint, text, bigint), :schema.grant_credits(text, bigint, bigint),
  :schema.load_users(text[], bigint[], text[], bigint),
  :schema.commit_task(text, text, text, text, bigint, bigint, bigint, json, boolean, integer, text, text, bigint[], bigint),
  :schema.fail_job(text, integer, bigint) FROM PUBLIC;
`;
