/**
 * How the PostgreSQL store sorts database errors: transient ones it retries, an unreachable
 * database it reports as {@link StoreUnavailableError}, everything else it passes on.
 */
import { StoreUnavailableError } from "../store/store.js";

/**
 * Node's socket errors that mean the server could not be reached or went away (`ENOENT`: a Unix
 * socket path that does not exist, the server is stopped).
 */
const NETWORK_CODES = new Set(
  (
    "ECONNREFUSED ECONNRESET ECONNABORTED ETIMEDOUT EPIPE ENOTFOUND EAI_AGAIN EHOSTUNREACH " +
    "EHOSTDOWN ENETUNREACH ENETDOWN ENOENT"
  ).split(" "),
);

/**
 * SQLSTATEs that mean the server is going away, refuses connections for now, or did not finish in
 * time; each one rolled the transaction back.
 */
const UNAVAILABLE_STATES = new Set([
  "57P01", // admin_shutdown: a fast or smart shutdown ended the session
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "53300", // too_many_connections
  // query_canceled: the statement_timeout ran out (a lock held too long, a server too slow)
  "57014",
  "25P03", // idle_in_transaction_session_timeout ended the session
  "57P05", // idle_session_timeout ended the session
]);

/**
 * What node-postgres and pg-pool say when a connection is lost or cannot be made, or when a
 * statement's answer did not come within its `query_timeout` (a silent network).
 */
const UNAVAILABLE_MESSAGES = new RegExp(
  [
    "Connection terminated",
    "timeout exceeded when trying to connect",
    "is not queryable",
    "Client has encountered a connection error",
    "Connection closed",
    "Query read timeout",
  ].join("|"),
  "i",
);

/** SQLSTATEs of a transaction that lost a race and may simply be run again. */
const TRANSIENT_STATES = new Set([
  "40001", // serialization_failure (a database whose default isolation is SERIALIZABLE)
  "40P01", // deadlock_detected
  "55P03", // lock_not_available (a database with a lock_timeout)
]);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

/**
 * Whether an error means the database cannot be reached or did not answer in time. The
 * transaction did not commit, except when the answer of its commit was what got lost (a broken
 * connection or a query timeout after the server committed): a retry with the same idempotency key
 * then finds the task. `true` for socket errors, connection, query and statement timeouts,
 * shutdowns and SQLSTATE class 08. @internal
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) {
    return true;
  }
  const code = codeOf(error);
  if (
    code !== undefined &&
    (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith("08"))
  ) {
    return true;
  }
  // Node reports a failed connection to every address of a name as one AggregateError.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) {
    return true;
  }
  return error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * Whether an error is a lost race that the store runs the whole transaction again for: a
 * serialization failure, a deadlock, a lock timeout, or a unique violation of an idempotency claim.
 * @internal
 */
export function isTransient(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) {
    return false;
  }
  if (TRANSIENT_STATES.has(code)) {
    return true;
  }
  // ON CONFLICT settles claims; a unique violation on one is a race it did not see, worth a rerun.
  return code === "23505" && (error as { constraint?: unknown }).constraint === "idempotency_pkey";
}

/** How many times a transaction runs at most when it keeps losing races. */
export const MAX_ATTEMPTS = 5;

/**
 * Runs `work`, again after a short jittered pause when it fails with a transient error (at most
 * {@link MAX_ATTEMPTS} runs); turns an unreachable database into {@link StoreUnavailableError}.
 *
 * `work` must be one whole transaction: a transient error has rolled it back, so running it again
 * cannot apply anything twice. `what` names what the store was doing, for the error message.
 * @internal
 */
export function withRetries<T>(what: string, work: () => Promise<T>): Promise<T> {
  // The first run costs one promise reaction: the loop of `retried` starts only after a failure.
  let first: Promise<T>;
  try {
    first = work();
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.catch((error: unknown) => retried(what, work, error));
}

/** The runs after a first one failed with `error`: {@link withRetries}'s loop. */
async function retried<T>(what: string, work: () => Promise<T>, error: unknown): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (isUnavailable(error)) {
      if (error instanceof StoreUnavailableError) {
        throw error;
      }
      throw new StoreUnavailableError(`the database cannot be reached (${what})`, { cause: error });
    }
    if (attempt >= MAX_ATTEMPTS || !isTransient(error)) {
      throw error;
    }
    // 2, 4, 8, 16 ms plus up to as much again at random, so racing instances spread out.
    const base = 2 ** attempt;
    await new Promise((resolve) => setTimeout(resolve, base + Math.random() * base));
    try {
      return await work();
    } catch (next) {
      error = next;
    }
  }
}
