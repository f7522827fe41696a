/**
 * The PostgreSQL {@link Store}: every method one statement or one transaction on a `pg` pool,
 * shared safely by any number of instances.
 */
import { createHash } from "node:crypto";
import type { Pool, QueryConfig, QueryResult, QueryResultRow } from "pg";
import type {
  ApiKeyRecord,
  CommitInput,
  CommitResult,
  FixtureLoadResult,
  FixtureUserLoad,
  GrantResult,
  JobStatus,
  LedgerRecord,
  Store,
  TaskRecord,
  UserRecord,
} from "../store/store.js";
import { acceptedTask, MAX_CREDITS, storableId, taskUserId } from "../store/store.js";
import type { GenerationRequest } from "../types.js";
import { distributeSchema, isDistributed } from "./citus.js";
import { isUnavailable, withRetries } from "./errors.js";
import { LATEST_VERSION } from "./migrations/index.js";
import { quoteSchema, runMigrations } from "./migrations/runner.js";
import { pg } from "./pg.js";

/**
 * Where the store keeps its tables (a connection string or a pool of yours, and a schema), and how
 * long it waits for the database before answering that it cannot be reached.
 */
export type PostgresStoreOptions = {
  /** `postgres://user:password@host:5432/database`: the store makes (and closes) its own pool. */
  readonly connectionString?: string;
  /**
   * A `pg` pool (`new pg.Pool(...)`) to use instead; the store never ends it (you do, after
   * `close()`).
   */
  readonly pool?: Pool;
  /** The schema holding the store's tables, created when missing: default `"imagegen"`. */
  readonly schema?: string;
  /**
   * Milliseconds to open a connection, or to wait for a free one of the pool: default 5000. Only
   * with `connectionString` (set pg's `connectionTimeoutMillis` on a pool of yours).
   */
  readonly connectionTimeoutMs?: number;
  /**
   * Milliseconds the server lets one statement run (PostgreSQL's `statement_timeout`) before it
   * cancels and rolls it back: default 5000. Only with `connectionString`.
   */
  readonly statementTimeoutMs?: number;
  /**
   * Milliseconds the store waits for the answer to one statement before it gives the connection up
   * (destroyed, never reused) and rejects with `StoreUnavailableError`: default 10000. It applies
   * to a pool of yours too. Keep it above `statementTimeoutMs`, so that a database that answers
   * is stopped by its own timeout first.
   */
  readonly queryTimeoutMs?: number;
  /**
   * Lay the schema out for Citus (docs/postgres.md, Citus): after the migrations, the tables a
   * request touches are distributed by user id and co-located, the API keys become a reference
   * table, and the functions that take a user first are delegated to that user's node. Connect to
   * the coordinator, as the role that owns the schema. Default `false`: one PostgreSQL.
   */
  readonly distributed?: boolean;
};

/** The bounds on waiting for the database that the options do not set. */
const DEFAULTS = {
  connectionTimeoutMs: 5000,
  statementTimeoutMs: 5000,
  queryTimeoutMs: 10_000,
} as const;

/** How long a connection of the store's own pool stays idle before the pool closes it. */
const IDLE_TIMEOUT_MS = 10_000;

/** How long a connection is quiet before TCP keepalive starts probing the peer. */
const KEEPALIVE_DELAY_MS = 10_000;

/** A {@link Store} on PostgreSQL, as the package's own code and tests see it. */
export type PostgresStore = Store & {
  /** The schema the store's tables are in. */
  readonly schema: string;
};

type Values = readonly unknown[];

/**
 * A statement with the client-side bound on its answer: pg reads `query_timeout` of a query's
 * config (its per-query `query_timeout`), which `@types/pg` leaves out of `QueryConfig`.
 */
type TimedQuery = QueryConfig & { readonly query_timeout: number };

const toNumber = (value: unknown): number => (typeof value === "number" ? value : Number(value));

const assertCredits = (credits: number, what: string) => {
  if (!Number.isSafeInteger(credits) || credits < 0 || credits > MAX_CREDITS) {
    throw new RangeError(`${what} must be whole credits from 0 to ${MAX_CREDITS}; got ${credits}`);
  }
};

/**
 * PostgreSQL text cannot hold U+0000, and no stored id contains it: an id with one names nothing,
 * so a lookup answers "not found" without asking (an id with a lone surrogate reaches the database
 * as U+FFFD and matches nothing either).
 */
const nameable = (id: string): boolean => !id.includes("\u0000");

const assertNameable = (id: string, what: string) => {
  if (!nameable(id)) {
    throw new RangeError(`${what} cannot contain U+0000 (PostgreSQL text cannot hold it)`);
  }
};

/**
 * An idempotency key as stored: the inside of its JSON string literal. That is the key itself for
 * every key without `"`, `\`, control characters or lone surrogates, and for any key it is a
 * one-to-one encoding into text PostgreSQL can hold, so distinct keys stay distinct claims (a key
 * with U+0000 is stored, and "a\ud800" and "a\ud801" do not both become "a\ufffd").
 */
const storedKey = (key: string): string => JSON.stringify(key).slice(1, -1);

const assertTime = (at: number, what: string) => {
  if (!Number.isSafeInteger(at)) {
    throw new RangeError(`${what} must be epoch milliseconds (an integer); got ${at}`);
  }
};

type TaskRow = {
  user_id: string;
  task_id: string;
  created_at_ms: string;
  request: unknown;
  client_key: boolean;
  reference_count: number;
  multiplier: string;
  catalog_version: string;
  total_credits: string;
  balance_after: string;
  job_credits: (string | number)[];
  job_status: JobStatus[];
};

const taskFromRow = (row: TaskRow): TaskRecord => ({
  id: row.task_id,
  userId: row.user_id,
  createdAt: toNumber(row.created_at_ms),
  // `json` is parsed by pg's default type parser; a pool configured to keep it as text still works.
  request: (typeof row.request === "string"
    ? JSON.parse(row.request)
    : row.request) as GenerationRequest,
  clientKey: row.client_key,
  referenceCount: row.reference_count,
  multiplier: row.multiplier,
  catalogVersion: row.catalog_version,
  jobCredits: row.job_credits.map(toNumber),
  totalCredits: toNumber(row.total_credits),
  balanceAfter: toNumber(row.balance_after),
  jobStatus: row.job_status,
});

type LedgerRow = {
  kind: LedgerRecord["kind"];
  credits: string;
  at_ms: string;
  task_id: string | null;
  job_index: number | null;
};

const ledgerFromRow = (row: LedgerRow): LedgerRecord => {
  const base = { kind: row.kind, credits: toNumber(row.credits), at: toNumber(row.at_ms) };
  if (row.task_id === null) {
    return base;
  }
  if (row.job_index === null) {
    return { ...base, taskId: row.task_id };
  }
  return { ...base, taskId: row.task_id, jobIndex: row.job_index };
};

/**
 * Custom SQLSTATEs that `accept_generation` raises to roll back a rejected task (its DETAIL carries
 * the balance, the index of the foreign reference or the current multiplier).
 */
const REJECTIONS: Record<
  string,
  | "insufficient_credits"
  | "api_key_revoked"
  | "unknown_user"
  | "asset_not_found"
  | "multiplier_changed"
> = {
  IG001: "insufficient_credits",
  IG002: "api_key_revoked",
  IG003: "unknown_user",
  IG004: "asset_not_found",
  IG005: "multiplier_changed",
};

/**
 * The row `accept_generation` answers: the outcome, and the task holding the claim when it is
 * taken.
 */
type AcceptRow = { outcome: string; balance: string | null; holder: unknown };

/**
 * Builds the store's statements for a schema. Each statement has a name (unique per schema) so
 * that a connection parses and plans it once.
 */
function statements(schema: string) {
  const s = quoteSchema(schema);
  const prefix = `ig_${createHash("sha256").update(schema).digest("hex").slice(0, 12)}_`;
  const taskColumns =
    "t.user_id, t.task_id, t.created_at_ms, t.request, t.client_key, t.reference_count, " +
    `t.multiplier,
    t.catalog_version, t.total_credits, t.balance_after, j.job_credits, j.job_status`;
  const jobsOf =
    `CROSS JOIN LATERAL (
      SELECT array_agg(jj.credits ORDER BY jj.idx) AS job_credits, ` +
    `array_agg(jj.status ORDER BY jj.idx) AS job_status
      FROM ${s}.jobs jj WHERE jj.user_id = t.user_id AND jj.task_id = t.task_id
    ) j`;
  // The arguments of load_users: the users' ids, credits and multipliers, and the instant.
  const loadUsersArgs = "$1::text[], $2::bigint[], $3::text[], $4::bigint";
  const named = <K extends string>(entries: Record<K, string>) =>
    Object.fromEntries(
      Object.entries(entries).map(([key, text]) => [key, { name: prefix + key, text }]),
    ) as Record<K, { name: string; text: string }>;
  return named({
    // The writes of the ledger and of balances are functions that run with the owner's rights, so
    // the servers' role needs no right to write either (docs/postgres.md, "Least privilege").
    createUser: `SELECT ${s}.create_user($1, $2::bigint, $3, $4::bigint) AS created`,
    getUser: `SELECT id, balance, multiplier FROM ${s}.users WHERE id = $1`,
    // NULL: the user is unknown, or balance + held would pass 2^53 - 1 (S15).
    grant: `SELECT ${s}.grant_credits($1, $2::bigint, $3::bigint) AS balance`,
    userHeld: `SELECT balance, held FROM ${s}.users WHERE id = $1`,
    setMultiplier: `UPDATE ${s}.users SET multiplier = $2 WHERE id = $1`,
    putApiKey: `INSERT INTO ${s}.api_keys (id, user_id, mode, hash, revoked)
      SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM ${s}.users WHERE id = $2)
      ON CONFLICT DO NOTHING
      RETURNING id`,
    // Authentication and what pricing needs, in one round trip. On one PostgreSQL, one join: the
    // fastest there. On Citus the join's filter is on the reference table, so it would ask every
    // shard of users; find_caller reads the key, then the user by its id, one shard.
    // Not the hash: the caller has it already.
    findCaller: `SELECT k.id, k.user_id, k.mode, k.revoked, u.multiplier
      FROM ${s}.api_keys k JOIN ${s}.users u ON u.id = k.user_id WHERE k.hash = $1`,
    findCallerRouted: `SELECT id, user_id, mode, revoked, multiplier FROM ${s}.find_caller($1)`,
    // Run inside a transaction with revokeApiKey: the owner's row is locked first (see
    // commit_task). The owner's row is locked by its id, read first (a key's owner never changes):
    // a lock taken through a subquery could not be sent to the one node of a distributed schema
    // that holds it.
    keyOwner: `SELECT user_id FROM ${s}.api_keys WHERE id = $1`,
    lockUser: `SELECT u.id FROM ${s}.users u WHERE u.id = $1 FOR NO KEY UPDATE`,
    revokeApiKey: `UPDATE ${s}.api_keys SET revoked = true WHERE id = $1`,
    // An id another user holds is refused through the index on asset_id (a unique constraint
    // without the user id could not be distributed by user).
    putAsset: `INSERT INTO ${s}.assets (user_id, asset_id)
      SELECT $2, $1 WHERE EXISTS (SELECT 1 FROM ${s}.users WHERE id = $2)
        AND NOT EXISTS (SELECT 1 FROM ${s}.assets WHERE asset_id = $1)
      ON CONFLICT DO NOTHING`,
    ownedAssets:
      "SELECT asset_id " +
      `FROM ${s}.assets ` +
      "WHERE user_id = $1 AND asset_id = ANY ($2::text[])",
    findClaimedTask:
      `SELECT ${taskColumns}
      FROM ${s}.idempotency i
      JOIN ${s}.tasks t ON t.user_id = i.user_id AND t.task_id = i.task_id
      ${jobsOf}
      WHERE i.user_id = $1 AND i.key = $2 AND ` +
      "(i.expires_at_ms IS NULL OR i.expires_at_ms > $3::bigint)",
    getTask: `SELECT ${taskColumns} FROM ${s}.tasks t ${jobsOf} WHERE t.task_id = $1`,
    getUserTask:
      `SELECT ${taskColumns} FROM ${s}.tasks t ${jobsOf} ` +
      "WHERE t.user_id = $1 AND t.task_id = $2",
    // With the task's user first: on a distributed schema the call runs on the node of that user.
    failJob: `SELECT ${s}.fail_user_job($1, $2, $3::integer, $4::bigint) AS refunded`,
    // Only for a task id that does not carry its user (see taskUserId).
    taskUser: `SELECT user_id FROM ${s}.tasks WHERE task_id = $1`,
    acceptGeneration:
      `SELECT outcome, balance, holder FROM ${s}.accept_generation(` +
      `$1, $2, $3, $4, $5::bigint, $6::bigint, $7::bigint, $8::json, $9,
        $10::integer, $11, $12, $13::bigint[], $14::bigint, $15::text[])`,
    loadUsers: `SELECT ${s}.load_users(${loadUsersArgs}) AS created`,
    // A hash already stored is kept; a new key whose random id is taken fails the load (a retry
    // makes new ids).
    loadKeys:
      `INSERT INTO ${s}.api_keys (id, user_id, mode, hash, revoked)
      SELECT f.id, f.user_id, f.mode, f.hash, false ` +
      `FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS f (id, user_id, mode, hash)
      ON CONFLICT (hash) DO NOTHING`,
    loadAssets: `INSERT INTO ${s}.assets (user_id, asset_id)
      SELECT f.user_id, f.asset_id FROM unnest($1::text[], $2::text[]) AS f (user_id, asset_id)
      ON CONFLICT DO NOTHING`,
    keyConflicts:
      "SELECT (f.ord - 1)::integer AS i " +
      `FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f (hash, user_id, ord)
      JOIN ${s}.api_keys k ON k.hash = f.hash WHERE k.user_id <> f.user_id ORDER BY f.ord`,
    assetConflicts:
      "SELECT (f.ord - 1)::integer AS i " +
      `FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS f (asset_id, user_id, ord)
      JOIN ${s}.assets a ON a.asset_id = f.asset_id WHERE a.user_id <> f.user_id ORDER BY f.ord`,
    ledger: `SELECT u.id, l.kind, l.credits, l.at_ms, l.task_id, l.job_index
      FROM ${s}.users u LEFT JOIN ${s}.ledger l ON l.user_id = u.id
      WHERE u.id = $1 ORDER BY l.seq`,
  });
}

/**
 * A bound on waiting, as given: a whole number of milliseconds from 1 to 2^31 - 1 (a timer's
 * range).
 */
function bound(options: PostgresStoreOptions, name: keyof typeof DEFAULTS): number {
  const value = options[name];
  if (value === undefined) {
    return DEFAULTS[name];
  }
  if (!Number.isSafeInteger(value) || value < 1 || value > 2 ** 31 - 1) {
    throw new RangeError(
      `${name} must be whole milliseconds from 1 to ${2 ** 31 - 1}; got ${String(value)}`,
    );
  }
  return value;
}

type Connection = { schema: string; pool: Pool; ownPool: boolean; queryTimeoutMs: number };

/**
 * Checks the options and makes the pool when given a connection string: for serving (every bound
 * set) or for migrating (no statement or query timeout: a migration may rightly take long).
 */
function connect(
  options: PostgresStoreOptions,
  caller: string,
  purpose: "serve" | "migrate",
): Connection {
  const schema = options?.schema ?? "imagegen";
  quoteSchema(schema);
  if ((options?.connectionString === undefined) === (options?.pool === undefined)) {
    throw new TypeError(`${caller} needs exactly one of \`connectionString\` and \`pool\``);
  }
  const queryTimeoutMs = bound(options, "queryTimeoutMs");
  const connectionTimeoutMs = bound(options, "connectionTimeoutMs");
  const statementTimeoutMs = bound(options, "statementTimeoutMs");
  if (options.pool) {
    for (const name of ["connectionTimeoutMs", "statementTimeoutMs"] as const) {
      if (options[name] !== undefined) {
        throw new TypeError(
          `${caller}: ${name} applies to the store's own pool; with \`pool\`, set it on your pool`,
        );
      }
    }
    return { schema, pool: options.pool, ownPool: false, queryTimeoutMs };
  }
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    application_name: "imagegen-pricing",
    // An unreachable host, or one that accepts the connection and then says nothing, fails a
    // request within this bound instead of hanging it; so does waiting for a free connection.
    connectionTimeoutMillis: connectionTimeoutMs,
    // A peer that vanished without a FIN or a RST (a partition, a firewall that forgot the
    // connection) is found by the kernel's probes, even on a connection nobody is using.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    idleTimeoutMillis: IDLE_TIMEOUT_MS,
    ...(purpose === "serve"
      ? {
          // The server ends a statement stuck on a lock or a slow plan itself, rolling it back.
          statement_timeout: statementTimeoutMs,
          // A transaction whose client gave up (its query timed out) would hold its row locks
          // until the server noticed the dead socket, which can take hours: it is ended instead.
          idle_in_transaction_session_timeout: queryTimeoutMs,
        }
      : { max: 1 }),
  });
  return { schema, pool, ownPool: true, queryTimeoutMs };
}

/**
 * Creates or upgrades the store's tables in a schema, and returns: for a deploy step that migrates
 * before the instances start ({@link createPostgresStore} does the same on start, so it is
 * optional).
 *
 * With `connectionString` it migrates on one connection of its own without statement or query
 * timeouts (a migration may rightly take long), for example as the role that owns the tables while
 * the servers connect as a role with fewer rights (docs/postgres.md, "Least privilege").
 *
 * @param options - `connectionString` or `pool` (exactly one), `schema` (default `"imagegen"`), and
 *   `connectionTimeoutMs` (default 5000).
 * @returns The versions this call applied (empty when the schema was up to date) and the version
 * now.
 * @throws TypeError or RangeError for bad options; StoreUnavailableError when the database cannot
 * be reached;
 *   MigrationChecksumError when a migration the schema applied is not this package's
 * (docs/postgres.md,
 *   "Migrations"); Error when the schema is at a version newer than this package.
 */
export async function migratePostgres(
  options: PostgresStoreOptions,
): Promise<{ applied: number[]; version: number }> {
  const { schema, pool, ownPool } = connect(options, "migratePostgres", "migrate");
  const onIdleError = () => {};
  pool.on("error", onIdleError);
  try {
    if (options.distributed === true) {
      await withRetries("looking for Citus", () => isDistributed(pool, schema, true));
    }
    const applied = await withRetries("migrating the schema", () => runMigrations(pool, schema));
    if (options.distributed === true) {
      await withRetries("distributing the schema", () => distributeSchema(pool, schema));
    }
    return { applied, version: LATEST_VERSION };
  } finally {
    pool.off("error", onIdleError);
    if (ownPool) {
      await pool.end().catch(() => {});
    }
  }
}

/**
 * Opens the store; `createPostgresStore` of the entry, typed with every method of {@link Store}.
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  const { schema, pool, ownPool, queryTimeoutMs } = connect(
    options,
    "createPostgresStore",
    "serve",
  );
  // An idle connection the server drops (a restart, an outage) emits `error` on the pool; without a
  // listener Node would end the process. The pool discards that connection and makes new ones.
  const onIdleError = () => {};
  pool.on("error", onIdleError);

  let distributed: boolean;
  try {
    // On a connection of its own when the store makes its pool: the serving pool's statement and
    // query timeouts would cut a migration that rightly takes long.
    await migratePostgres(options);
    distributed =
      options.distributed === true ||
      (await withRetries("reading the layout", () => isDistributed(pool, schema)));
  } catch (error) {
    pool.off("error", onIdleError);
    if (ownPool) {
      await pool.end().catch(() => {});
    }
    throw error;
  }

  const sql = statements(schema);
  const findCaller = distributed ? sql.findCallerRouted : sql.findCaller;
  /**
   * Every statement carries the client-side bound: a connection whose answer does not come (a
   * silent network) is given up, and the pool destroys a client released with an error instead of
   * handing out its dead socket again.
   */
  const timed = (name: string | undefined, text: string, values?: Values): TimedQuery => ({
    text,
    ...(name !== undefined && { name }),
    ...(values !== undefined && { values: values as unknown[] }),
    query_timeout: queryTimeoutMs,
  });
  /** One statement is one transaction: retried whole when it loses a race. */
  const run = <R extends QueryResultRow>(
    what: string,
    statement: { name: string; text: string },
    values: Values,
  ) => withRetries(what, () => pool.query<R>(timed(statement.name, statement.text, values)));

  /**
   * One transaction on a connection of its own, retried whole when it loses a race. `body` runs its
   * statements with `q` (each bounded like every other) and says whether to commit. A connection
   * that timed out or broke is destroyed: its socket may be dead, or the server may still be
   * answering a statement this client no longer waits for.
   */
  const transaction = <T>(
    what: string,
    body: (q: Query) => Promise<{ commit: boolean; value: T }>,
  ): Promise<T> =>
    withRetries(what, async () => {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query(timed(undefined, "BEGIN"));
        const { commit, value } = await body((statement, values) =>
          client.query(timed(statement.name, statement.text, values)),
        );
        await client.query(timed(undefined, commit ? "COMMIT" : "ROLLBACK"));
        return value;
      } catch (error) {
        broken = isUnavailable(error);
        if (!broken) {
          await client.query(timed(undefined, "ROLLBACK")).catch(() => (broken = true));
        }
        throw error;
      } finally {
        client.release(broken);
      }
    });

  /**
   * Loads fixtures inside a transaction: users (with their opening grants), key hashes, assets, and
   * then the conflicts, read after the writes so that a concurrent load of the same fixtures is
   * seen. The caller commits only an `ok` result.
   */
  const loadIn = async (
    q: Query,
    { users, keys, assets, at }: ReturnType<typeof fixtureRows>,
  ): Promise<FixtureLoadResult> => {
    const { rows: created } = await q<{ created: string[] }>(sql.loadUsers, [
      users.map((user) => user.id),
      users.map((user) => user.credits),
      users.map((user) => user.multiplier),
      at,
    ]);
    await q(sql.loadKeys, [
      keys.map((k) => k.id),
      keys.map((k) => k.userId),
      keys.map((k) => k.mode),
      keys.map((k) => k.hash),
    ]);
    await q(sql.loadAssets, [assets.map((a) => a.userId), assets.map((a) => a.assetId)]);
    const keyHits = await q<{ i: number }>(sql.keyConflicts, [
      keys.map((k) => k.hash),
      keys.map((k) => k.userId),
    ]);
    const assetHits = await q<{ i: number }>(sql.assetConflicts, [
      assets.map((a) => a.assetId),
      assets.map((a) => a.userId),
    ]);
    const conflicts = [
      ...keyHits.rows.map(({ i }) => ({
        user: keys[i]?.user ?? -1,
        field: "apiKeys" as const,
        index: keys[i]?.index ?? -1,
      })),
      ...assetHits.rows.map(({ i }) => ({
        user: assets[i]?.user ?? -1,
        field: "assets" as const,
        index: assets[i]?.index ?? -1,
      })),
    ].sort(
      (a, b) =>
        a.user - b.user ||
        (a.field === b.field ? a.index - b.index : a.field === "apiKeys" ? -1 : 1),
    );
    if (conflicts.length > 0) {
      return { ok: false, conflicts };
    }
    // In the order of the load, as the in-memory store gives them.
    const made = new Set(created[0]?.created ?? []);
    return { ok: true, created: users.map((user) => user.id).filter((id) => made.has(id)) };
  };

  const userTask = async (userId: string, taskId: string): Promise<TaskRecord | undefined> => {
    const { rows } = await run<TaskRow>("reading a task", sql.getUserTask, [userId, taskId]);
    return rows[0] && taskFromRow(rows[0]);
  };

  let closed = false;

  return {
    schema,

    async createUser(user, at) {
      assertNameable(user.id, "user.id");
      assertCredits(user.credits, "credits");
      assertTime(at, "at");
      const { rows } = await run<{ created: boolean }>("creating a user", sql.createUser, [
        user.id,
        user.credits,
        user.multiplier,
        at,
      ]);
      return rows[0]?.created === true;
    },

    async getUser(userId) {
      if (!nameable(userId)) {
        return undefined;
      }
      const { rows } = await run<{ id: string; balance: string; multiplier: string }>(
        "reading a user",
        sql.getUser,
        [userId],
      );
      const row = rows[0];
      return (
        row &&
        ({
          id: row.id,
          balance: toNumber(row.balance),
          multiplier: row.multiplier,
        } satisfies UserRecord)
      );
    },

    async grant(userId, credits, at): Promise<GrantResult> {
      assertCredits(credits, "credits");
      assertTime(at, "at");
      if (!nameable(userId)) {
        return { ok: false, reason: "unknown_user" };
      }
      const { rows } = await run<{ balance: string | null }>("granting credits", sql.grant, [
        userId,
        credits,
        at,
      ]);
      const balance = rows[0]?.balance;
      if (balance !== null && balance !== undefined) {
        return { ok: true, balance: toNumber(balance) };
      }
      const { rows: users } = await run<{ balance: string; held: string }>(
        "reading a user",
        sql.userHeld,
        [userId],
      );
      const user = users[0];
      if (!user) {
        return { ok: false, reason: "unknown_user" };
      }
      return {
        ok: false,
        reason: "balance_too_large",
        balance: toNumber(user.balance),
        held: toNumber(user.held),
      };
    },

    async setMultiplier(userId, multiplier) {
      if (!nameable(userId)) {
        return false;
      }
      const result = await run("setting a multiplier", sql.setMultiplier, [userId, multiplier]);
      return result.rowCount === 1;
    },

    async putApiKey(key) {
      assertNameable(key.id, "key.id");
      if (!nameable(key.userId)) {
        return false;
      }
      // The rows returned, not rowCount: Citus runs this insert into a reference table from a
      // distributed one through the coordinator and counts the rows selected, conflicts included.
      const { rows } = await run("storing an API key", sql.putApiKey, [
        key.id,
        key.userId,
        key.mode,
        key.hash,
        key.revoked,
      ]);
      return rows.length === 1;
    },

    async findCaller(hash) {
      if (!nameable(hash)) {
        return undefined;
      }
      const { rows } = await run<ApiKeyRow & { multiplier: string }>(
        "finding an API key",
        findCaller,
        [hash],
      );
      const row = rows[0];
      if (!row) {
        return undefined;
      }
      return {
        key: { id: row.id, userId: row.user_id, mode: row.mode, hash, revoked: row.revoked },
        multiplier: row.multiplier,
      };
    },

    async revokeApiKey(apiKeyId) {
      if (!nameable(apiKeyId)) {
        return false;
      }
      return transaction("revoking an API key", async (q) => {
        const { rows: owners } = await q<{ user_id: string }>(sql.keyOwner, [apiKeyId]);
        const owner = owners[0]?.user_id;
        if (owner === undefined) {
          return { commit: false, value: false };
        }
        await q(sql.lockUser, [owner]);
        const result = await q(sql.revokeApiKey, [apiKeyId]);
        return { commit: true, value: result.rowCount === 1 };
      });
    },

    async putAsset(assetId, userId) {
      assertNameable(assetId, "assetId");
      if (!nameable(userId)) {
        return false;
      }
      const result = await run("storing an asset", sql.putAsset, [assetId, userId]);
      return result.rowCount === 1;
    },

    async ownedAssets(userId, assetIds) {
      const named = assetIds.filter(nameable);
      if (named.length === 0 || !nameable(userId)) {
        return new Set<string>();
      }
      const { rows } = await run<{ asset_id: string }>("reading assets", sql.ownedAssets, [
        userId,
        named,
      ]);
      return new Set(rows.map((row) => row.asset_id));
    },

    async findClaimedTask(userId, key, now) {
      assertTime(now, "now");
      if (!nameable(userId)) {
        return undefined;
      }
      const { rows } = await run<TaskRow>("reading an idempotency claim", sql.findClaimedTask, [
        userId,
        storedKey(key),
        now,
      ]);
      return rows[0] && taskFromRow(rows[0]);
    },

    async commitTask(
      { task, apiKeyId, claim, assetIds = [] }: CommitInput,
      now: number,
    ): Promise<CommitResult> {
      assertTime(now, "now");
      assertTime(task.createdAt, "task.createdAt");
      assertCredits(task.totalCredits, "task.totalCredits");
      for (const credits of task.jobCredits) {
        assertCredits(credits, "task.jobCredits[]");
      }
      if (claim?.expiresAt !== undefined) {
        assertTime(claim.expiresAt, "claim.expiresAt");
      }
      assertNameable(task.id, "task.id");
      if (!nameable(task.userId)) {
        return { ok: false, reason: "unknown_user" };
      }
      if (!nameable(apiKeyId)) {
        return { ok: false, reason: "api_key_revoked" };
      }
      const values = [
        task.userId,
        task.id,
        apiKeyId,
        claim === undefined ? null : storedKey(claim.key),
        claim?.expiresAt ?? null,
        now,
        task.createdAt,
        JSON.stringify(task.request),
        task.clientKey,
        task.referenceCount,
        task.multiplier,
        task.catalogVersion,
        task.jobCredits,
        task.totalCredits,
        // An id with U+0000 names no asset: NULL, which equals no stored id.
        assetIds.map((id) => (nameable(id) ? id : null)),
      ];
      let row: AcceptRow;
      try {
        const { rows } = await run<AcceptRow>("accepting a task", sql.acceptGeneration, values);
        if (!rows[0]) {
          throw new Error("accept_generation returned no row");
        }
        row = rows[0];
      } catch (error) {
        const reason = REJECTIONS[(error as { code?: string }).code ?? ""];
        const detail = (error as { detail?: string }).detail ?? "";
        if (reason === "insufficient_credits") {
          return { ok: false, reason, balance: toNumber(detail) };
        }
        if (reason === "asset_not_found") {
          return { ok: false, reason, index: toNumber(detail) };
        }
        if (reason === "multiplier_changed") {
          return { ok: false, reason, multiplier: detail };
        }
        if (reason !== undefined) {
          return { ok: false, reason };
        }
        throw error;
      }
      if (row.outcome === "idempotency_key_taken" && row.holder !== null) {
        // The holder came back in the same answer: a replay costs this one round trip. As JSON, so
        // that the usual answer has three columns to decode; a pool that keeps json as text works
        // too.
        const holder = (
          typeof row.holder === "string" ? JSON.parse(row.holder) : row.holder
        ) as TaskRow;
        return {
          ok: false,
          reason: "idempotency_key_taken",
          task: taskFromRow({ ...holder, user_id: task.userId }),
        };
      }
      if (row.outcome !== "ok") {
        throw new Error(`accept_generation answered ${row.outcome}`);
      }
      return { ok: true, task: acceptedTask(task, toNumber(row.balance)) };
    },

    async getTask(taskId) {
      if (!nameable(taskId)) {
        return undefined;
      }
      // A task id that carries its user is read with it: one node of a distributed schema.
      const userId = taskUserId(taskId);
      if (userId !== undefined) {
        return nameable(userId) ? userTask(userId, taskId) : undefined;
      }
      const { rows } = await run<TaskRow>("reading a task", sql.getTask, [taskId]);
      return rows[0] && taskFromRow(rows[0]);
    },

    async failJob(taskId, index, at) {
      assertTime(at, "at");
      if (!Number.isSafeInteger(index) || index < 0 || index > 2 ** 31 - 1 || !nameable(taskId)) {
        return undefined;
      }
      let userId = taskUserId(taskId);
      if (userId === undefined) {
        // A task's user never changes, so the refund need not share this read's transaction.
        const { rows: owners } = await run<{ user_id: string }>("reading a task", sql.taskUser, [
          taskId,
        ]);
        userId = owners[0]?.user_id;
      }
      if (userId === undefined || !nameable(userId)) {
        return undefined;
      }
      const { rows } = await run<{ refunded: string | null }>("refunding a job", sql.failJob, [
        userId,
        taskId,
        index,
        at,
      ]);
      const refunded = rows[0]?.refunded;
      return refunded === null || refunded === undefined ? undefined : toNumber(refunded);
    },

    async loadFixtures(load, at): Promise<FixtureLoadResult> {
      const fixtures = fixtureRows(load, at);
      return transaction<FixtureLoadResult>("loading fixtures", async (q) => {
        const result = await loadIn(q, fixtures);
        return { commit: result.ok, value: result };
      });
    },

    async ledger(userId) {
      if (!nameable(userId)) {
        return undefined;
      }
      const { rows } = await run<{ [K in keyof LedgerRow]: LedgerRow[K] | null }>(
        "reading a ledger",
        sql.ledger,
        [userId],
      );
      if (rows.length === 0) {
        return undefined;
      }
      return rows.filter((row): row is LedgerRow => row.kind !== null).map(ledgerFromRow);
    },

    async close() {
      if (closed) {
        return;
      }
      closed = true;
      pool.off("error", onIdleError);
      if (ownPool) {
        await pool.end();
      }
    },

    async reset(fixtures) {
      const s = quoteSchema(schema);
      const load = fixtures && fixtureRows(fixtures.users, fixtures.at);
      try {
        await transaction("resetting the store", async (q) => {
          // Every table of the store's own schema but the record of its migrations, so that a table
          // a later migration adds is emptied too.
          const { rows } = await q<{ name: string }>(
            {
              text:
                "SELECT tablename AS name FROM pg_catalog.pg_tables WHERE schemaname = $1 " +
                "AND tablename <> 'migrations'",
            },
            [schema],
          );
          const tables = rows.map(({ name }) => `${s}."${name.replaceAll('"', '""')}"`);
          if (tables.length === 0) {
            return { commit: false, value: undefined };
          }
          // The ledger refuses TRUNCATE to everyone; its trigger is off inside this transaction
          // only, so no other connection ever sees it off (ALTER TABLE and TRUNCATE lock the table
          // whole).
          await q({ text: `ALTER TABLE ${s}.ledger DISABLE TRIGGER ledger_no_truncate` }, []);
          await q({ text: `TRUNCATE ${tables.join(", ")}` }, []);
          await q({ text: `ALTER TABLE ${s}.ledger ENABLE TRIGGER ledger_no_truncate` }, []);
          // Loaded in the same transaction: no other connection sees the store empty.
          if (load && !(await loadIn(q, load)).ok) {
            throw new RangeError("fixtures: two users hold one key or asset");
          }
          return { commit: true, value: undefined };
        });
      } catch (error) {
        if ((error as { code?: unknown }).code !== "42501") {
          throw error;
        }
        throw new Error(
          `reset empties the tables of schema ${schema}, which only the role that owns ` +
            "them may do; connect as that role to reset",
          { cause: error },
        );
      }
    },
  };
}

/** A statement of a transaction, run on its connection. */
type Query = <R extends QueryResultRow>(
  statement: { name?: string; text: string },
  values: unknown[],
) => Promise<QueryResult<R>>;

/**
 * A fixtures load as the load statements take it, each key and asset with its place in the load.
 *
 * @throws RangeError for an id PostgreSQL text cannot keep, or credits or a time out of range.
 */
function fixtureRows(users: readonly FixtureUserLoad[], at: number) {
  assertTime(at, "at");
  const keys: {
    user: number;
    index: number;
    id: string;
    userId: string;
    mode: string;
    hash: string;
  }[] = [];
  const assets: { user: number; index: number; userId: string; assetId: string }[] = [];
  for (const [u, user] of users.entries()) {
    if (!storableId(user.id)) {
      throw new RangeError(`users[${u}].id cannot hold U+0000 or a lone surrogate`);
    }
    assertCredits(user.credits, `users[${u}].credits`);
    for (const [index, key] of user.apiKeys.entries()) {
      assertNameable(key.id, `users[${u}].apiKeys[${index}].id`);
      keys.push({ user: u, index, id: key.id, userId: user.id, mode: key.mode, hash: key.hash });
    }
    for (const [index, assetId] of user.assets.entries()) {
      if (!storableId(assetId)) {
        throw new RangeError(`users[${u}].assets[${index}] cannot hold U+0000 or a lone surrogate`);
      }
      assets.push({ user: u, index, userId: user.id, assetId });
    }
  }
  return { users, keys, assets, at };
}

/** A key's row without its hash (the caller has it). */
type ApiKeyRow = { id: string; user_id: string; mode: ApiKeyRecord["mode"]; revoked: boolean };
