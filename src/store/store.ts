/**
 * The `Store`: every piece of state a reference server keeps (users, keys, assets, tasks, the
 * ledger), behind one asynchronous interface that the in-memory store and the PostgreSQL store
 * both implement.
 *
 * The charging flow depends on {@link Store.commitTask} and {@link Store.failJob} being atomic:
 * the in-memory store runs each with no `await` inside, a database store as one transaction. Every
 * other method is a single read or write.
 */
import type { GenerationRequest } from "../types.js";

/** Whether a key is for production (`ck_live_`) or development (`ck_test_`). */
export type ApiKeyMode = "live" | "test";

/**
 * The largest balance and the largest single movement: the largest exactly representable integer.
 * A store keeps a user's balance plus the credits of the user's queued jobs within it (it refuses a
 * grant that would pass it), so a refund, which moves held credits back, can never pass it.
 */
export const MAX_CREDITS = Number.MAX_SAFE_INTEGER;

/**
 * A user: balance (whole credits, 0 to {@link MAX_CREDITS}) and multiplier (an exact plain decimal,
 * checked).
 */
export type UserRecord = {
  readonly id: string;
  readonly balance: number;
  readonly multiplier: string;
};

/** An API key as stored: never the key itself, only its SHA-256 (lowercase hex). */
export type ApiKeyRecord = {
  readonly id: string;
  readonly userId: string;
  readonly mode: ApiKeyMode;
  readonly hash: string;
  readonly revoked: boolean;
};

/** Status of a job: `queued` on acceptance, `failed` once failed (and refunded). */
export type JobStatus = "queued" | "failed";

/**
 * A task as the handler builds it, before the store accepts it: one job per output image, each
 * with its own charge; job ids are derived from the task id.
 */
export type TaskDraft = {
  readonly id: string;
  readonly userId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The complete normalized request, with its (client's or server-made) idempotency key. */
  readonly request: GenerationRequest;
  /** Whether `request.idempotencyKey` came from the client (then it is claimed with the task). */
  readonly clientKey: boolean;
  /** Authorized references the charge counted. */
  readonly referenceCount: number;
  /** The account multiplier at acceptance. */
  readonly multiplier: string;
  readonly catalogVersion: string;
  /** Credits charged for each job, by job index; `totalCredits`, their sum, is what is debited. */
  readonly jobCredits: readonly number[];
  readonly totalCredits: number;
};

/** A stored task: its draft, the balance right after its debit, and the status of each job. */
export type TaskRecord = TaskDraft & {
  /** What the 202 body reported. */
  readonly balanceAfter: number;
  readonly jobStatus: readonly JobStatus[];
};

/**
 * One movement of credits as a store keeps it: the time as epoch milliseconds and the job as an
 * index into its task.
 */
export type LedgerRecord = {
  readonly kind: "grant" | "debit" | "refund";
  readonly credits: number;
  readonly at: number;
  readonly taskId?: string;
  readonly jobIndex?: number;
};

/** What {@link Store.commitTask} is asked to do. */
export type CommitInput = {
  readonly task: TaskDraft;
  /**
   * The key the request authenticated with: re-checked in the commit, so a key revoked in flight
   * charges nothing.
   */
  readonly apiKeyId: string;
  /**
   * The client's idempotency key to claim for the task, per user. `expiresAt` (epoch ms) only when
   * the server runs with an idempotency window; without it the claim lasts as long as the task.
   */
  readonly claim?: { readonly key: string; readonly expiresAt?: number };
  /**
   * The references the task counts (`request.inputAssetIds`): each must be the user's, else nothing
   * changes and the first that is not is reported. Checked after the claim and before the balance.
   */
  readonly assetIds?: readonly string[];
};

/** The outcome of {@link Store.commitTask}. Nothing changed unless `ok`. */
export type CommitResult =
  | { readonly ok: true; readonly task: TaskRecord }
  | { readonly ok: false; readonly reason: "insufficient_credits"; readonly balance: number }
  /** The claim is held by a live record: `task` is the task it points at, for a replay or a 409. */
  | { readonly ok: false; readonly reason: "idempotency_key_taken"; readonly task: TaskRecord }
  | { readonly ok: false; readonly reason: "api_key_revoked" }
  | { readonly ok: false; readonly reason: "unknown_user" }
  /** `assetIds[index]` is not the user's (unknown or another user's: the same answer). */
  | { readonly ok: false; readonly reason: "asset_not_found"; readonly index: number }
  /**
   * The user's multiplier is no longer `task.multiplier`: price again with `multiplier` and retry.
   */
  | { readonly ok: false; readonly reason: "multiplier_changed"; readonly multiplier: string };

/** What {@link Store.findCaller} finds: a key and what pricing needs of its user. */
export type CallerRecord = {
  readonly key: ApiKeyRecord;
  /** The user's multiplier when the key was read: {@link Store.commitTask} refuses a stale one. */
  readonly multiplier: string;
};

/**
 * The outcome of {@link Store.grant}. Nothing changed unless `ok`. `balance_too_large`: the
 * balance, plus the credits the user's queued jobs hold (refunds could still add them), plus the
 * grant would pass {@link MAX_CREDITS}.
 */
export type GrantResult =
  | { readonly ok: true; readonly balance: number }
  | { readonly ok: false; readonly reason: "unknown_user" }
  | {
      readonly ok: false;
      readonly reason: "balance_too_large";
      readonly balance: number;
      readonly held: number;
    };

/**
 * One user of {@link Store.loadFixtures}: its keys as hashes, each with the id it gets if added.
 */
export type FixtureUserLoad = {
  readonly id: string;
  /** The opening balance, granted only when the user is created now. */
  readonly credits: number;
  readonly multiplier: string;
  readonly apiKeys: readonly {
    readonly id: string;
    readonly hash: string;
    readonly mode: ApiKeyMode;
  }[];
  readonly assets: readonly string[];
};

/**
 * The outcome of {@link Store.loadFixtures}. Nothing changed unless `ok`; `conflicts` names each
 * key hash or asset id that another user holds, by its position in the load.
 */
export type FixtureLoadResult =
  | { readonly ok: true; readonly created: readonly string[] }
  | {
      readonly ok: false;
      readonly conflicts: readonly {
        readonly user: number;
        readonly field: "apiKeys" | "assets";
        readonly index: number;
      }[];
    };

/**
 * Whether every store keeps a string as an id exactly: no U+0000 (PostgreSQL text cannot hold it)
 * and no lone surrogate (UTF-8 cannot encode it, so two such ids could become one). @internal
 */
export function storableId(id: string): boolean {
  return !id.includes("\u0000") && !/\p{Cs}/u.test(id);
}

/** The record of a task just committed, every job queued. @internal */
export function acceptedTask(task: TaskDraft, balanceAfter: number): TaskRecord {
  return { ...task, balanceAfter, jobStatus: task.jobCredits.map(() => "queued") };
}

/**
 * Where a reference server keeps its state: what `createPostgresStore()` of `<package>/postgres`
 * returns (a new in-memory store is the default). Its methods are the package's own: a store is
 * not an extension point.
 */
export type ReferenceStore = {
  /** Closes what the store holds open (a pool of database connections). */
  close(): Promise<void>;
};

/**
 * The state of a reference server. Every method returns a Promise; a store that cannot reach its
 * backing service rejects with a {@link StoreUnavailableError}, and then nothing has changed.
 */
export interface Store {
  /**
   * Adds a user with an opening grant of `credits` (a ledger entry when positive); `false` when the
   * id is taken.
   */
  createUser(
    user: { readonly id: string; readonly credits: number; readonly multiplier: string },
    at: number,
  ): Promise<boolean>;
  getUser(userId: string): Promise<UserRecord | undefined>;
  /**
   * Adds credits to a user's balance and writes a `grant` entry (when positive); refused when the
   * balance plus the credits held by the user's queued jobs plus `credits` would pass {@link
   * MAX_CREDITS}.
   */
  grant(userId: string, credits: number, at: number): Promise<GrantResult>;
  /** `false` for an unknown user. */
  setMultiplier(userId: string, multiplier: string): Promise<boolean>;

  /** Stores a key record (its hash, never the key); `false` when the id or the hash is taken. */
  putApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** The key whose SHA-256 is `hash` (revoked or not) with its user's multiplier, in one lookup. */
  findCaller(hash: string): Promise<CallerRecord | undefined>;
  /** Marks a key revoked (again is fine); `false` for an unknown id. */
  revokeApiKey(apiKeyId: string): Promise<boolean>;

  /** Records an asset as its owner's; `false` when the id is taken. */
  putAsset(assetId: string, userId: string): Promise<boolean>;
  /** Which of `assetIds` belong to `userId` (one lookup for the whole list). */
  ownedAssets(userId: string, assetIds: readonly string[]): Promise<ReadonlySet<string>>;

  /** The task a user's live idempotency claim points at, or `undefined`. */
  findClaimedTask(userId: string, key: string, now: number): Promise<TaskRecord | undefined>;
  /**
   * Atomically, in the order of S12: reports the task holding a live claim on the idempotency key
   * (or claims it), checks that every `assetIds` entry is the user's, that the user's multiplier is
   * still `task.multiplier` and that the API key is not revoked, debits `task.totalCredits` when
   * the balance covers it, stores the task with every job `queued`, and writes the debit entry
   * (when positive). A revoked key is reported before a foreign reference, a changed multiplier or
   * a short balance.
   */
  commitTask(input: CommitInput, now: number): Promise<CommitResult>;
  getTask(taskId: string): Promise<TaskRecord | undefined>;
  /**
   * Atomically: marks a queued job failed and refunds its stored charge; a job already failed
   * refunds nothing. Never refused for the size of the balance: the charge was held since the
   * debit, so the balance stays within {@link MAX_CREDITS}.
   *
   * @returns The credits refunded (0 when already failed), or `undefined` for an unknown job.
   */
  failJob(taskId: string, index: number, at: number): Promise<number | undefined>;

  /**
   * Loads fixtures as one step: creates each user the store lacks, with its opening grant (a user
   * it has keeps its balance and multiplier), and adds the key hashes and asset ids it lacks. A key
   * hash or asset id another user holds is a conflict, and then nothing is written.
   *
   * @throws RangeError, writing nothing, for an id with U+0000 or a lone surrogate (which
   *   PostgreSQL text cannot keep as given).
   */
  loadFixtures(users: readonly FixtureUserLoad[], at: number): Promise<FixtureLoadResult>;

  /** A user's ledger, oldest first, or `undefined` for an unknown user. */
  ledger(userId: string): Promise<readonly LedgerRecord[] | undefined>;

  close(): Promise<void>;

  /**
   * Empties the store and loads `fixtures` into it, as one step (on PostgreSQL one transaction):
   * users, keys, assets, tasks, jobs, idempotency claims and the ledger (a test double's reset,
   * S17; every other method keeps the ledger append-only). No other call sees the store empty, nor
   * half loaded, and a reset that fails changes nothing. On PostgreSQL it empties the tables of the
   * store's own schema only, and keeps the record of its migrations.
   *
   * @throws RangeError, changing nothing, for fixtures that {@link Store.loadFixtures} would refuse
   *   in an empty store (two users holding one key hash or asset id, an id it cannot keep).
   */
  reset(fixtures?: {
    readonly users: readonly FixtureUserLoad[];
    readonly at: number;
  }): Promise<void>;
}

/**
 * Thrown (as a rejection) by a store that cannot reach its backing service. The server answers
 * 503 `service_unavailable` with `Retry-After`; the operation changed nothing.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  /**
   * Milliseconds a client should wait before retrying; the server asks in whole seconds, rounded
   * up.
   */
  readonly retryAfterMs: number;

  /**
   * Makes the error of an unreachable store.
   *
   * @param message - What failed, for the log; it is not sent to clients.
   * @param options - The underlying error (`cause`) and the milliseconds a client should wait
   *   (`retryAfterMs`, default 1000).
   */
  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs ?? 1000;
  }
}

const TASK_WITH_USER = /^task_[0-9a-f]{16}((?:[0-9a-f]{2})+)$/;

/**
 * The user id a task id made by the server carries
 * (`task_<16 hex digits><the user id's UTF-8 as hex>`, see `newId.task`), so that a store
 * distributed by user id finds the task on one node; `undefined` for any other id (an older
 * version's `task_<16 hex digits>`) or hex that is not UTF-8: then only a lookup by the task id
 * alone finds the task. @internal
 */
export function taskUserId(taskId: string): string | undefined {
  const hex = TASK_WITH_USER.exec(taskId)?.[1];
  if (hex === undefined) {
    return undefined;
  }
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) {
    bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
