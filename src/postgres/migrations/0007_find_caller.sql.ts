/**
 * Migration 7: the key lookup in two steps. Once released, never edit this file: its SQL's SHA-256
 * is in `checksums.json` and in the `migrations` table of every database that applied it, and a
 * store refuses to start where they differ: a change is a new migration.
 *
 * `find_caller` answers what the key lookup's join answers (the key by its hash and its user's
 * multiplier) by reading the key first and then the user by its id. On a distributed schema (Citus,
 * docs/postgres.md) the join's filter is on the reference table `api_keys`, so it cannot be pruned
 * and asks every shard of `users`; the second statement here names the user, so it goes to the one
 * shard that holds that user. It is not delegated to a worker: it does not know the user before it
 * has read the key.
 */

/** What the migration does, in a few words (recorded in the `migrations` table). */
export const name = "find_caller: the key by its hash, then its user's multiplier by the user id";

/** The statements, run in one transaction; `:schema` stands for the quoted schema name. */
export const sql = `
-- One row (the key's columns and the multiplier) or none: none for an unknown hash, as the join.
-- A revoked key is returned with revoked = true (the caller answers 401 for it). Every column is
-- qualified: the output columns share the tables' column names.
CREATE FUNCTION :schema.find_caller(p_hash text)
RETURNS TABLE (id text, user_id text, mode text, hash text, revoked boolean, multiplier text)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  v_id text;
  v_user text;
  v_mode text;
  v_hash text;
  v_revoked boolean;
BEGIN
  SELECT k.id, k.user_id, k.mode, k.hash, k.revoked INTO v_id, v_user, v_mode, v_hash, v_revoked
    FROM :schema.api_keys k WHERE k.hash = p_hash;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  -- A statement of its own, filtered by the user id: a router query to one shard on Citus.
  RETURN QUERY SELECT v_id, v_user, v_mode, v_hash, v_revoked, u.multiplier FROM :schema.users u WHERE u.id = v_user;
END
$fn$;
REVOKE EXECUTE ON FUNCTION :schema.find_caller(text) FROM PUBLIC;
`;
