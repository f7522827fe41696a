/**
 * The operator's methods: users, keys, assets, multipliers, failing jobs, balances and the ledger
 * (S13). Every one returns a Promise; a bad argument rejects with an {@link AdminError}, and then
 * nothing has changed.
 */
import { parseMultiplier } from "../../pricing/multiplier.js";
import { type ApiKeyMode, type JobStatus, MAX_CREDITS, type TaskRecord } from "../../store/store.js";
import type { GenerationRequest } from "../../types.js";
import { generateApiKey } from "../auth.js";
import type { ServerContext } from "../context.js";
import type { FaultInput, FaultView } from "../faults.js";
import { jobId, newId, parseJobId } from "../ids.js";
import type { JournalEntry } from "../journal.js";
import { serverMessages as m } from "../messages.js";
import { type AdminControls, controlMethods } from "./controls.js";

/** Codes of {@link AdminError}. */
export type AdminErrorCode =
  | "invalid_credits"
  | "credits_too_large"
  | "invalid_multiplier"
  | "invalid_mode"
  | "unknown_user"
  | "unknown_api_key"
  | "unknown_job"
  | "unknown_task"
  | "invalid_clock"
  | "invalid_fault"
  | "unknown_fault"
  | "invalid_limit"
  | "controls_off";

/**
 * The rejection of an admin method given a bad argument: credits that are not a non-negative whole
 * number or that would take a balance past 2^53 - 1, an invalid multiplier (P4), an unknown user,
 * key, job or task; a bad fault or journal limit, an unknown fault, or a test-double control
 * called on a server without an admin token (`controls_off`).
 */
export class AdminError extends Error {
  override readonly name = "AdminError";
  /** What was wrong, as a stable code. */
  readonly code: AdminErrorCode;

  /**
   * Makes an admin error.
   *
   * @param code - What was wrong.
   * @param message - A sentence for a person; it never holds a key.
   */
  constructor(code: AdminErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** One movement of credits, as `admin.ledger(userId)` returns it. */
export type LedgerEntry = {
  kind: "grant" | "debit" | "refund";
  /** Positive whole credits; `kind` gives the direction. */
  credits: number;
  /** ISO 8601 time of the movement. */
  at: string;
  taskId?: string;
  jobId?: string;
};

/**
 * Sums a ledger: what the balance must be (S13).
 *
 * @param entries - A user's entries.
 * @returns granted - debits + refunds.
 */
export function ledgerBalance(entries: readonly Pick<LedgerEntry, "kind" | "credits">[]): number {
  let balance = 0;
  for (const entry of entries) balance += entry.kind === "debit" ? -entry.credits : entry.credits;
  return balance;
}

/** A job as the operator sees it. */
export type JobView = { jobId: string; taskId: string; status: JobStatus; credits: number };

/** A task as stored (S8): ratio, resolution, quality, background, per-job charges, the request. */
export type TaskView = {
  taskId: string;
  userId: string;
  createdAt: string;
  aspectRatio: GenerationRequest["aspectRatio"];
  resolution: GenerationRequest["resolution"];
  quality: GenerationRequest["quality"];
  background: GenerationRequest["background"];
  referenceCount: number;
  multiplier: string;
  catalogVersion: string;
  totalCreditCost: number;
  jobs: JobView[];
  /** The complete normalized request, with the idempotency key (the server's when the client sent none). */
  request: GenerationRequest;
  /** Whether the idempotency key came from the client. */
  clientIdempotencyKey: boolean;
};

/** A user as the operator sees it: balance and price multiplier. */
export type UserView = {
  userId: string;
  /** Whole credits. */
  balance: number;
  /** The multiplier as an exact plain decimal (`"1.15"`). */
  multiplier: string;
};

/** The admin methods of a reference server; each returns a Promise and rejects with an {@link AdminError}. */
export type Admin = {
  /** Adds a user with a grant of `credits` (0 to 2^53 - 1) and a multiplier (default 1). */
  createUser(input: { credits: number; multiplier?: string | number }): Promise<{ userId: string }>;
  /** Makes an API key for a user (`ck_test_` unless `mode: "live"`); the whole key is returned only here. */
  createApiKey(userId: string, options?: { mode?: ApiKeyMode }): Promise<{ apiKeyId: string; key: string }>;
  /** Revokes a key; revoking it again does nothing. A request already in flight with it is not charged. */
  revokeApiKey(apiKeyId: string): Promise<void>;
  /** Adds an asset owned by a user. */
  createAsset(userId: string): Promise<{ assetId: string }>;
  /** Sets a user's price multiplier (P4); tasks already accepted keep their charges (S7). */
  setPriceMultiplier(userId: string, multiplier: string | number): Promise<void>;
  /** Adds credits to a user (a `grant` ledger entry); the balance plus the credits its queued jobs hold stays at most 2^53 - 1. */
  grantCredits(userId: string, credits: number): Promise<void>;
  /** Fails a job and refunds its stored charge, once (S6). */
  failJob(jobId: string): Promise<{ refundedCredits: number }>;
  /** A user's balance. */
  balance(userId: string): Promise<number>;
  /** A user's balance and multiplier. */
  user(userId: string): Promise<UserView>;
  /** A user's ledger: grants, debits and refunds, oldest first (S13). */
  ledger(userId: string): Promise<LedgerEntry[]>;
  /** A task as stored (S8). */
  task(taskId: string): Promise<TaskView>;
  /** A job. */
  job(jobId: string): Promise<JobView>;
  /**
   * Adds a fault (S17): the next `times` service requests it matches, once their key is checked,
   * are answered 503 or 500, late, or not at all (see `FaultInput`). Needs an admin token.
   */
  addFault(fault: FaultInput): Promise<{ faultId: string }>;
  /** The faults still waiting, oldest first, each with how many times it still fires. */
  faults(): Promise<FaultView[]>;
  /** Removes a fault (`unknown_fault` when there is none). */
  removeFault(faultId: string): Promise<void>;
  /** Removes every fault. */
  clearFaults(): Promise<{ removed: number }>;
  /** The last requests to the service's endpoints, newest first (`limit` 1 to 1000, default 100). Needs an admin token. */
  requests(options?: { limit?: number }): Promise<JournalEntry[]>;
} & AdminControls;

/** Checks credits: a whole number, not negative (`invalid_credits`), at most 2^53 - 1 (`credits_too_large`). */
function checkCredits(credits: unknown): number {
  if (typeof credits !== "number" || !Number.isInteger(credits) || credits < 0) {
    throw new AdminError("invalid_credits", m.invalidCredits(credits));
  }
  if (credits > MAX_CREDITS) throw new AdminError("credits_too_large", m.creditsTooLarge(credits, 0));
  return credits;
}

function checkMultiplier(multiplier: unknown): string {
  const parsed = parseMultiplier(multiplier);
  if (!parsed) throw new AdminError("invalid_multiplier", m.invalidMultiplier(multiplier));
  return parsed.text;
}

/** How many times a fresh random id is drawn again when the store says it is taken. */
const ID_ATTEMPTS = 3;

/**
 * Creates the admin methods over a server's state.
 *
 * @param ctx - The server.
 * @param controls - The methods of the test-double controls (faults, the request journal).
 * @returns The admin methods.
 * @internal
 */
export function createAdmin(
  ctx: ServerContext,
  controls: Pick<Admin, "addFault" | "faults" | "removeFault" | "clearFaults" | "requests">,
): Admin {
  const { store } = ctx;
  const userOrThrow = async (userId: string) => {
    const user = await store.getUser(userId);
    if (!user) throw new AdminError("unknown_user", m.unknown("user", userId));
    return user;
  };
  const taskOrThrow = async (taskId: string): Promise<TaskRecord> => {
    const task = await store.getTask(taskId);
    if (!task) throw new AdminError("unknown_task", m.unknown("task", taskId));
    return task;
  };
  /** Stores a new record under a fresh random id, drawing again in the (2^-64) case of a collision. */
  const withFreshId = async (make: () => string, put: (id: string) => Promise<boolean>): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      const id = make();
      if (await put(id)) return id;
      if (attempt >= ID_ATTEMPTS) throw new Error(`no free id after ${ID_ATTEMPTS} attempts`);
    }
  };

  return {
    ...controls,
    async createUser(input) {
      const credits = checkCredits((input as { credits?: unknown } | undefined)?.credits);
      const multiplier = checkMultiplier(input.multiplier);
      const at = ctx.now();
      const userId = await withFreshId(newId.user, (id) => store.createUser({ id, credits, multiplier }, at));
      return { userId };
    },
    async createApiKey(userId, options) {
      const mode: unknown = options?.mode ?? "test";
      if (mode !== "live" && mode !== "test") throw new AdminError("invalid_mode", m.invalidMode(mode));
      await userOrThrow(userId);
      const key = generateApiKey(mode);
      const hash = await ctx.hashApiKey(key);
      const apiKeyId = await withFreshId(newId.apiKey, (id) => store.putApiKey({ id, userId, mode, hash, revoked: false }));
      return { apiKeyId, key };
    },
    async revokeApiKey(apiKeyId) {
      if (!(await store.revokeApiKey(apiKeyId))) throw new AdminError("unknown_api_key", m.unknown("API key", apiKeyId));
    },
    async createAsset(userId) {
      await userOrThrow(userId);
      const assetId = await withFreshId(newId.asset, (id) => store.putAsset(id, userId));
      return { assetId };
    },
    async setPriceMultiplier(userId, multiplier) {
      const text = checkMultiplier(multiplier);
      if (!(await store.setMultiplier(userId, text))) throw new AdminError("unknown_user", m.unknown("user", userId));
    },
    async grantCredits(userId, credits) {
      const checked = checkCredits(credits);
      const result = await store.grant(userId, checked, ctx.now());
      if (result.ok) return;
      if (result.reason === "unknown_user") throw new AdminError("unknown_user", m.unknown("user", userId));
      throw new AdminError("credits_too_large", m.creditsTooLarge(checked, result.balance, result.held));
    },
    async failJob(id) {
      const parsed = parseJobId(id);
      const refundedCredits = parsed && (await store.failJob(parsed.taskId, parsed.index, ctx.now()));
      if (refundedCredits === undefined) throw new AdminError("unknown_job", m.unknown("job", id));
      return { refundedCredits };
    },
    async balance(userId) {
      return (await userOrThrow(userId)).balance;
    },
    async user(userId) {
      const { id, balance, multiplier } = await userOrThrow(userId);
      return { userId: id, balance, multiplier };
    },
    async ledger(userId) {
      const records = await store.ledger(userId);
      if (!records) throw new AdminError("unknown_user", m.unknown("user", userId));
      return records.map((record) => {
        const entry: LedgerEntry = { kind: record.kind, credits: record.credits, at: new Date(record.at).toISOString() };
        if (record.taskId !== undefined) entry.taskId = record.taskId;
        if (record.taskId !== undefined && record.jobIndex !== undefined) entry.jobId = jobId(record.taskId, record.jobIndex);
        return entry;
      });
    },
    async task(taskId) {
      const task = await taskOrThrow(taskId);
      const r = task.request;
      return {
        taskId: task.id,
        userId: task.userId,
        createdAt: new Date(task.createdAt).toISOString(),
        aspectRatio: r.aspectRatio,
        resolution: r.resolution,
        quality: r.quality,
        background: r.background,
        referenceCount: task.referenceCount,
        multiplier: task.multiplier,
        catalogVersion: task.catalogVersion,
        totalCreditCost: task.totalCredits,
        jobs: task.jobCredits.map((credits, i) => ({
          jobId: jobId(task.id, i),
          taskId: task.id,
          status: task.jobStatus[i] ?? "queued",
          credits,
        })),
        request: structuredClone(r),
        clientIdempotencyKey: task.clientKey,
      };
    },
    async job(id) {
      const parsed = parseJobId(id);
      const task = parsed && (await store.getTask(parsed.taskId));
      const credits = parsed && task?.jobCredits[parsed.index];
      if (!parsed || !task || credits === undefined) throw new AdminError("unknown_job", m.unknown("job", id));
      return { jobId: id, taskId: task.id, status: task.jobStatus[parsed.index] ?? "queued", credits };
    },
    ...controlMethods(ctx, (code, message) => new AdminError(code, message)),
  };
}
