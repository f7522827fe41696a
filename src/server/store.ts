/**
 * The state the handlers need, behind one small interface, so that a durable store can replace the
 * in-memory one without touching a handler. Every method is synchronous: the generation handler
 * does all of its `await`s first and then runs check, claim, debit and insert as one step that
 * nothing can interleave with (S4, S5). A durable store keeps that promise by making
 * {@link Store.commitTask} one transaction (it re-checks the idempotency claim and the balance itself).
 */
import type { GenerationRequest } from "../types.js";
import type { ApiKeyMode } from "./auth.js";
import type { LedgerRecord } from "./ledger.js";

/** A user: balance and price multiplier. */
export type UserRecord = {
  readonly id: string;
  /** Whole credits, never below zero (S4). */
  readonly balance: number;
  /** The multiplier as an exact plain decimal (`"1.15"`), already checked (P4). */
  readonly multiplier: string;
};

/** An API key, as stored: never the key itself, only its SHA-256 (S2). */
export type ApiKeyRecord = {
  readonly id: string;
  readonly userId: string;
  readonly mode: ApiKeyMode;
  /** SHA-256 of the whole key, lowercase hex. */
  readonly hash: string;
  readonly revoked: boolean;
};

/** Status of a job. `queued` on acceptance; `failed` after `admin.failJob`. */
export type JobStatus = "queued" | "failed";

/**
 * A task and its jobs, kept compact (a few hundred bytes with a short prompt): one job per output
 * image, each with its own charge (S8); job ids are derived from the task id.
 */
export type TaskRecord = {
  readonly id: string;
  readonly userId: string;
  /** Epoch milliseconds. */
  readonly createdAt: number;
  /** The complete normalized request, with its (client's or server-made) idempotency key (S8). */
  readonly request: GenerationRequest;
  /** Whether `request.idempotencyKey` came from the client (then a replay record exists). */
  readonly clientKey: boolean;
  /** Authorized references the charge counted (P6). */
  readonly referenceCount: number;
  /** The account multiplier at acceptance (S7). */
  readonly multiplier: string;
  readonly catalogVersion: string;
  /** Credits charged for each job, by job index (S6, S7, S8). */
  readonly jobCredits: readonly number[];
  /** Status of each job, by job index. */
  readonly jobStatus: JobStatus[];
  /** The balance right after this task's debit: what the 202 body reported. */
  balanceAfter: number;
};

/** An idempotency record (S5): which task a user's key made and the exact body it answered. */
export type IdempotencyRecord = { readonly taskId: string; readonly body: string };

/** The outcome of {@link Store.commitTask}. */
export type CommitResult =
  | { ok: true; task: TaskRecord; body: string }
  | { ok: false; reason: "insufficient_credits"; balance: number }
  | { ok: false; reason: "idempotency_key_taken" }
  | { ok: false; reason: "unknown_user" };

/** What a task commit needs besides the task. */
export type CommitInput = {
  task: TaskRecord;
  /** The client's idempotency key to claim with the task, and when the claim expires (epoch ms). */
  claim?: { key: string; expiresAt: number };
  /** Renders the 202 body once the debit is known; stored with the claim for replays. */
  render: (task: TaskRecord) => string;
};

/** The state of a reference server. */
export interface Store {
  /** Adds a user with a grant of `credits` (a ledger entry when positive). */
  createUser(user: UserRecord, at: number): void;
  /** A user, or `undefined` for an unknown id. */
  getUser(userId: string): UserRecord | undefined;
  /** Adds credits to a user's balance (a `grant` entry). */
  grant(userId: string, credits: number, at: number): boolean;
  /** Sets a user's price multiplier (already checked, P4); `false` for an unknown user. */
  setMultiplier(userId: string, multiplier: string): boolean;

  /** Stores a key record (its hash, never the key). */
  putApiKey(key: ApiKeyRecord): void;
  /** The key whose SHA-256 is `hash`, revoked or not. */
  findApiKeyByHash(hash: string): ApiKeyRecord | undefined;
  /** A key record by its id (`apk_...`). */
  getApiKey(apiKeyId: string): ApiKeyRecord | undefined;
  /** Marks a key revoked; `false` for an unknown id. */
  revokeApiKey(apiKeyId: string): boolean;

  /** Records an asset as its owner's. */
  putAsset(assetId: string, userId: string): void;
  /** The owner of an asset, or `undefined` for an unknown id. */
  assetOwner(assetId: string): string | undefined;

  /** A live (not expired) idempotency record of a user's key. */
  findIdempotency(userId: string, key: string, now: number): IdempotencyRecord | undefined;

  /**
   * In one step: re-checks the claim, debits the whole charge if the balance covers it, stores the
   * task, records the debit, renders the body and stores it with the claim. Nothing changes unless
   * it succeeds (S4, S5, S13).
   */
  commitTask(input: CommitInput, now: number): CommitResult;
  /** A task by id, or `undefined`. */
  getTask(taskId: string): TaskRecord | undefined;
  /**
   * Marks a job failed and refunds its stored charge, once (S6, S7).
   *
   * @returns The credits refunded (0 when already failed), or `undefined` for an unknown job.
   */
  failJob(taskId: string, index: number, at: number): number | undefined;

  /** A user's ledger, oldest first, or `undefined` for an unknown user. */
  ledger(userId: string): readonly LedgerRecord[] | undefined;
}
