/**
 * The operator's methods (API.md): users, keys, assets, multipliers, failing jobs, balances and the
 * ledger. Bad arguments throw an {@link AdminError}; nothing changes when one is thrown.
 */
import { parseMultiplier } from "../pricing/multiplier.js";
import type { GenerationRequest } from "../types.js";
import { type ApiKeyMode, generateApiKey } from "./auth.js";
import type { ServerContext } from "./context.js";
import { AdminError } from "./errors.js";
import { jobId, newId, parseJobId } from "./ids.js";
import type { LedgerEntry } from "./ledger.js";
import { serverMessages as m } from "./messages.js";
import type { JobStatus } from "./store.js";

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

/** The admin methods of a reference server. */
export type Admin = {
  /** Adds a user with a grant of `credits` and a multiplier (default 1). */
  createUser(input: { credits: number; multiplier?: string | number }): { userId: string };
  /** Makes an API key for a user (`ck_test_` unless `mode: "live"`); the whole key is returned only here. */
  createApiKey(userId: string, options?: { mode?: ApiKeyMode }): { apiKeyId: string; key: string };
  /** Revokes a key; revoking it again does nothing. */
  revokeApiKey(apiKeyId: string): void;
  /** Adds an asset owned by a user. */
  createAsset(userId: string): { assetId: string };
  /** Sets a user's price multiplier (P4); tasks already accepted keep their charges (S7). */
  setPriceMultiplier(userId: string, multiplier: string | number): void;
  /** Adds credits to a user (a `grant` ledger entry). */
  grantCredits(userId: string, credits: number): void;
  /** Fails a job and refunds its stored charge, once (S6). */
  failJob(jobId: string): { refundedCredits: number };
  /** A user's balance. */
  balance(userId: string): number;
  /** A user's ledger: grants, debits and refunds, oldest first (S13). */
  ledger(userId: string): LedgerEntry[];
  /** A task as stored (S8). */
  task(taskId: string): TaskView;
  /** A job. */
  job(jobId: string): JobView;
};

const isWholeCredits = (credits: unknown): credits is number =>
  typeof credits === "number" && Number.isSafeInteger(credits) && credits >= 0;

/**
 * Creates the admin methods over a server's state.
 *
 * `createApiKey` is synchronous (API.md) but Web Crypto hashes asynchronously, so a new key is
 * stored as soon as its hash is ready; `keysSettled()` resolves once every such key is stored, and
 * the fetch handler awaits it before it looks a key up. A key revoked before then is stored revoked.
 *
 * @param ctx - The server.
 * @returns The admin methods, and `keysSettled`.
 * @internal
 */
export function createAdmin(ctx: ServerContext): { admin: Admin; keysSettled: () => Promise<void> | undefined } {
  const { store } = ctx;
  const pending = new Map<string, { revoked: boolean; done: Promise<void> }>();
  const keysSettled = () => {
    if (pending.size === 0) return undefined;
    return Promise.all([...pending.values()].map((p) => p.done)).then(() => {});
  };
  const userOrThrow = (userId: string) => {
    const user = store.getUser(userId);
    if (!user) throw new AdminError("unknown_user", m.unknown("user", userId));
    return user;
  };
  const multiplierOrThrow = (multiplier: unknown) => {
    const parsed = parseMultiplier(multiplier);
    if (!parsed) throw new AdminError("invalid_multiplier", m.invalidMultiplier(multiplier));
    return parsed.text;
  };
  const taskOrThrow = (taskId: string) => {
    const task = store.getTask(taskId);
    if (!task) throw new AdminError("unknown_task", m.unknown("task", taskId));
    return task;
  };

  const admin: Admin = {
    createUser(input) {
      const credits: unknown = input?.credits;
      if (!isWholeCredits(credits)) throw new AdminError("invalid_credits", m.invalidCredits(credits));
      const multiplier = multiplierOrThrow(input.multiplier);
      const userId = newId.user();
      store.createUser({ id: userId, balance: credits, multiplier }, ctx.now());
      return { userId };
    },
    createApiKey(userId, options) {
      userOrThrow(userId);
      const mode: unknown = options?.mode ?? "test";
      if (mode !== "live" && mode !== "test") throw new AdminError("invalid_mode", m.invalidMode(mode));
      const key = generateApiKey(mode);
      const apiKeyId = newId.apiKey();
      const hashed = ctx.hashApiKey(key);
      if (typeof hashed === "string") {
        // A synchronous hasher: the key is stored before this returns, nothing is pending.
        store.putApiKey({ id: apiKeyId, userId, mode, hash: hashed, revoked: false });
        return { apiKeyId, key };
      }
      const entry = { revoked: false, done: Promise.resolve() };
      entry.done = hashed.then(
        (hash) => {
          store.putApiKey({ id: apiKeyId, userId, mode, hash, revoked: entry.revoked });
          pending.delete(apiKeyId);
        },
        () => void pending.delete(apiKeyId), // no hash, no key: it can never authenticate
      );
      pending.set(apiKeyId, entry);
      return { apiKeyId, key };
    },
    revokeApiKey(apiKeyId) {
      const entry = pending.get(apiKeyId);
      if (entry) entry.revoked = true;
      else if (!store.revokeApiKey(apiKeyId)) throw new AdminError("unknown_api_key", m.unknown("API key", apiKeyId));
    },
    createAsset(userId) {
      userOrThrow(userId);
      const assetId = newId.asset();
      store.putAsset(assetId, userId);
      return { assetId };
    },
    setPriceMultiplier(userId, multiplier) {
      userOrThrow(userId);
      store.setMultiplier(userId, multiplierOrThrow(multiplier));
    },
    grantCredits(userId, credits) {
      userOrThrow(userId);
      if (!isWholeCredits(credits)) throw new AdminError("invalid_credits", m.invalidCredits(credits));
      store.grant(userId, credits, ctx.now());
    },
    failJob(id) {
      const parsed = parseJobId(id);
      const refundedCredits = parsed && store.failJob(parsed.taskId, parsed.index, ctx.now());
      if (refundedCredits === undefined) throw new AdminError("unknown_job", m.unknown("job", id));
      return { refundedCredits };
    },
    balance: (userId) => userOrThrow(userId).balance,
    ledger(userId) {
      userOrThrow(userId);
      return (store.ledger(userId) ?? []).map((record) => {
        const entry: LedgerEntry = { kind: record.kind, credits: record.credits, at: new Date(record.at).toISOString() };
        if (record.taskId !== undefined) entry.taskId = record.taskId;
        if (record.taskId !== undefined && record.jobIndex !== undefined) entry.jobId = jobId(record.taskId, record.jobIndex);
        return entry;
      });
    },
    task(taskId) {
      const task = taskOrThrow(taskId);
      const r = task.request;
      const jobs = task.jobCredits.map((credits, i) => ({
        jobId: jobId(task.id, i),
        taskId: task.id,
        status: task.jobStatus[i] ?? "queued",
        credits,
      }));
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
        totalCreditCost: task.jobCredits.reduce((sum, credits) => sum + credits, 0),
        jobs,
        request: structuredClone(r),
        clientIdempotencyKey: task.clientKey,
      };
    },
    job(id) {
      const parsed = parseJobId(id);
      const task = parsed && store.getTask(parsed.taskId);
      const credits = parsed && task?.jobCredits[parsed.index];
      if (!parsed || !task || credits === undefined) throw new AdminError("unknown_job", m.unknown("job", id));
      return { jobId: id, taskId: task.id, status: task.jobStatus[parsed.index] ?? "queued", credits };
    },
  };
  return { admin, keysSettled };
}
