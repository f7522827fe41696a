/**
 * The in-memory {@link Store}: Maps keyed by id, nothing that scans history. A task costs one
 * string (its record as JSON), one ledger entry and, when the client sent an idempotency key, one
 * claim. Its two atomic methods, `commitTask` and `failJob`, hold no `await`, so no other call can
 * run in the middle of either.
 */

import type { GenerationRequest } from "../types.js";
import {
  type ApiKeyRecord,
  type CommitInput,
  type CommitResult,
  type FixtureLoadResult,
  type GrantResult,
  type JobStatus,
  type LedgerRecord,
  MAX_CREDITS,
  type Store,
  storableId,
  type TaskDraft,
  type TaskRecord,
  type UserRecord,
} from "./store.js";

type MutableUser = {
  readonly id: string;
  balance: number;
  /** Credits of the user's queued jobs: what refunds could still add to the balance (S15). */
  held: number;
  multiplier: string;
  readonly ledger: LedgerRecord[];
};
/**
 * A stored task: the record as committed, without its id (the key it is stored under) and its job
 * statuses, as the JSON text of its fields in a fixed order ({@link encodeTask}). One flat string
 * per task is what the heap keeps of it: a record of objects (the task, its request, its arrays)
 * is a handful of objects that every full collection walks again, for every task ever accepted.
 * It is read back (parsed) only when a task is asked for, which is rare beside accepting.
 */
type StoredTask = string;

/** A task's fields as {@link encodeTask} lists them. */
type Encoded = [
  userId: string,
  createdAt: number,
  clientKey: boolean,
  referenceCount: number,
  multiplier: string,
  catalogVersion: string,
  jobCredits: number[],
  totalCredits: number,
  balanceAfter: number,
  prompt: string,
  modelId: GenerationRequest["modelId"],
  generationType: GenerationRequest["generationType"],
  aspectRatio: GenerationRequest["aspectRatio"],
  resolution: GenerationRequest["resolution"],
  quality: GenerationRequest["quality"],
  background: GenerationRequest["background"],
  imageCount: number,
  inputAssetIds: string[],
  idempotencyKey: string | null,
];

/** The stored text of a committed task: its fields by position, so no field name is kept per task. */
function encodeTask(task: TaskDraft, balanceAfter: number): StoredTask {
  const r = task.request;
  const fields: Encoded = [
    task.userId,
    task.createdAt,
    task.clientKey,
    task.referenceCount,
    task.multiplier,
    task.catalogVersion,
    task.jobCredits as number[],
    task.totalCredits,
    balanceAfter,
    r.prompt,
    r.modelId,
    r.generationType,
    r.aspectRatio,
    r.resolution,
    r.quality,
    r.background,
    r.imageCount,
    r.inputAssetIds,
    r.idempotencyKey ?? null,
  ];
  return JSON.stringify(fields);
}

/** A committed task read back from {@link encodeTask}'s text, a new object each time. */
function decodeTask(id: string, stored: StoredTask, jobStatus: JobStatus[] | undefined): TaskRecord {
  const [userId, createdAt, clientKey, referenceCount, multiplier, catalogVersion, jobCredits, totalCredits, balanceAfter, ...r] =
    JSON.parse(stored) as Encoded;
  const [prompt, modelId, generationType, aspectRatio, resolution, quality, background, imageCount, inputAssetIds, key] = r;
  const request: GenerationRequest = {
    prompt,
    modelId,
    generationType,
    aspectRatio,
    resolution,
    quality,
    background,
    imageCount,
    inputAssetIds,
  };
  if (key !== null) request.idempotencyKey = key;
  return {
    id,
    userId,
    createdAt,
    request,
    clientKey,
    referenceCount,
    multiplier,
    catalogVersion,
    jobCredits,
    totalCredits,
    balanceAfter,
    jobStatus: jobStatus ?? jobCredits.map(() => "queued"),
  };
}

/** A claim without an expiry is kept as its task id alone; one with an expiry as both. */
type Claim = string | { readonly taskId: string; readonly expiresAt: number };

/**
 * Creates an empty in-memory store.
 *
 * @returns A {@link Store} whose state lives as long as the object.
 * @example
 * ```ts
 * const store = createMemoryStore();
 * const a = createReferenceServer({ store });
 * const b = createReferenceServer({ store }); // two servers, one state
 * ```
 */
export function createMemoryStore(): Store {
  const users = new Map<string, MutableUser>();
  const keysById = new Map<string, ApiKeyRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  const assets = new Map<string, string>();
  const tasks = new Map<string, StoredTask>();
  /** The job statuses of the tasks that had a job fail; every job of any other task is queued. */
  const failures = new Map<string, JobStatus[]>();
  /**
   * Claims by user, then key: scoped per user (S5), with no key string made per claim. A claim
   * points at its task by id; without a window it never expires. A claim costs one entry
   * beside a task that is kept anyway, so expired claims are not evicted: a lookup checks the time.
   */
  const claims = new Map<string, Map<string, Claim>>();

  const userView = (user: MutableUser): UserRecord => ({ id: user.id, balance: user.balance, multiplier: user.multiplier });
  /** A snapshot: a later failed job does not change a record already handed out. */
  const taskView = (id: string): TaskRecord | undefined => {
    const stored = tasks.get(id);
    return stored === undefined ? undefined : decodeTask(id, stored, failures.get(id)?.slice());
  };
  /** The id of the task a live claim points at. */
  const claimedTask = (userClaims: Map<string, Claim> | undefined, key: string, now: number): string | undefined => {
    const claim = userClaims?.get(key);
    if (claim === undefined) return undefined;
    if (typeof claim === "string") return claim;
    return claim.expiresAt <= now ? undefined : claim.taskId;
  };

  return {
    async createUser(user, at) {
      if (users.has(user.id)) return false;
      const record: MutableUser = { id: user.id, balance: user.credits, held: 0, multiplier: user.multiplier, ledger: [] };
      if (user.credits > 0) record.ledger.push({ kind: "grant", credits: user.credits, at });
      users.set(user.id, record);
      return true;
    },
    async getUser(userId) {
      const user = users.get(userId);
      return user && userView(user);
    },
    async grant(userId, credits, at): Promise<GrantResult> {
      const user = users.get(userId);
      if (!user) return { ok: false, reason: "unknown_user" };
      // Counting the credits queued jobs hold keeps every later refund within the bound (S15).
      if (user.balance + user.held + credits > MAX_CREDITS) {
        return { ok: false, reason: "balance_too_large", balance: user.balance, held: user.held };
      }
      user.balance += credits;
      if (credits > 0) user.ledger.push({ kind: "grant", credits, at });
      return { ok: true, balance: user.balance };
    },
    async setMultiplier(userId, multiplier) {
      const user = users.get(userId);
      if (!user) return false;
      user.multiplier = multiplier;
      return true;
    },

    async putApiKey(key) {
      if (keysById.has(key.id) || keysByHash.has(key.hash)) return false;
      const record: ApiKeyRecord = { ...key };
      keysById.set(key.id, record);
      keysByHash.set(key.hash, record);
      return true;
    },
    async findApiKeyByHash(hash) {
      return keysByHash.get(hash);
    },
    async findCaller(hash) {
      const key = keysByHash.get(hash);
      const user = key && users.get(key.userId);
      return user && { key, multiplier: user.multiplier };
    },
    async getApiKey(apiKeyId) {
      return keysById.get(apiKeyId);
    },
    async revokeApiKey(apiKeyId) {
      const key = keysById.get(apiKeyId);
      if (!key) return false;
      const revoked: ApiKeyRecord = { ...key, revoked: true };
      keysById.set(key.id, revoked);
      keysByHash.set(key.hash, revoked);
      return true;
    },

    async putAsset(assetId, userId) {
      if (assets.has(assetId)) return false;
      assets.set(assetId, userId);
      return true;
    },
    async ownedAssets(userId, assetIds) {
      const owned = new Set<string>();
      for (const id of assetIds) if (assets.get(id) === userId) owned.add(id);
      return owned;
    },

    async findClaimedTask(userId, key, now) {
      const taskId = claimedTask(claims.get(userId), key, now);
      return taskId === undefined ? undefined : taskView(taskId);
    },
    async commitTask({ task, apiKeyId, claim, assetIds = [] }: CommitInput, now: number): Promise<CommitResult> {
      // No await in here: the checks and the writes below happen as one step.
      const user = users.get(task.userId);
      if (!user) return { ok: false, reason: "unknown_user" };
      const key = keysById.get(apiKeyId);
      if (!key || key.revoked || key.userId !== task.userId) return { ok: false, reason: "api_key_revoked" };
      // The user's claims are found once: looked up and then, on success, claimed.
      const userClaims = claim ? claims.get(task.userId) : undefined;
      if (claim) {
        const holder = claimedTask(userClaims, claim.key, now);
        const held = holder === undefined ? undefined : taskView(holder);
        if (held) return { ok: false, reason: "idempotency_key_taken", task: held };
      }
      const index = assetIds.findIndex((id) => assets.get(id) !== task.userId);
      if (index >= 0) return { ok: false, reason: "asset_not_found", index };
      if (user.multiplier !== task.multiplier) return { ok: false, reason: "multiplier_changed", multiplier: user.multiplier };
      const total = task.totalCredits;
      if (user.balance < total) return { ok: false, reason: "insufficient_credits", balance: user.balance };

      user.balance -= total;
      user.held += total;
      const balanceAfter = user.balance;
      if (total > 0) user.ledger.push({ kind: "debit", credits: total, at: now, taskId: task.id });
      tasks.set(task.id, encodeTask(task, balanceAfter));
      if (claim) {
        const value: Claim = claim.expiresAt === undefined ? task.id : { taskId: task.id, expiresAt: claim.expiresAt };
        if (userClaims) userClaims.set(claim.key, value);
        else claims.set(task.userId, new Map([[claim.key, value]]));
      }
      // The caller's own draft, not a parse of what was stored: the same values, read back for free.
      const committed: TaskRecord = {
        id: task.id,
        userId: task.userId,
        createdAt: task.createdAt,
        request: task.request,
        clientKey: task.clientKey,
        referenceCount: task.referenceCount,
        multiplier: task.multiplier,
        catalogVersion: task.catalogVersion,
        jobCredits: task.jobCredits,
        totalCredits: total,
        balanceAfter,
        jobStatus: task.jobCredits.map(() => "queued"),
      };
      return { ok: true, task: committed };
    },
    async getTask(taskId) {
      return taskView(taskId);
    },
    async failJob(taskId, index, at) {
      // No await in here: a job is marked failed and refunded in one step, so only once.
      const stored = tasks.get(taskId);
      if (stored === undefined) return undefined;
      const task = decodeTask(taskId, stored, undefined);
      const credits = task.jobCredits[index];
      if (credits === undefined) return undefined;
      let failed = failures.get(taskId);
      if (failed?.[index] === "failed") return 0;
      const user = users.get(task.userId);
      if (!user) return undefined;
      if (failed === undefined) {
        failed = task.jobCredits.map((): JobStatus => "queued");
        failures.set(taskId, failed);
      }
      failed[index] = "failed";
      user.balance += credits;
      user.held -= credits;
      if (credits > 0) user.ledger.push({ kind: "refund", credits, at, taskId, jobIndex: index });
      return credits;
    },

    async loadFixtures(load, at): Promise<FixtureLoadResult> {
      // No await in here: every check is made before the first write, so a load happens whole or not at all.
      const conflicts: { user: number; field: "apiKeys" | "assets"; index: number }[] = [];
      const keyOwners = new Map<string, string>();
      const assetOwners = new Map<string, string>();
      for (const [u, user] of load.entries()) {
        if (!storableId(user.id)) throw new RangeError(`users[${u}].id cannot hold U+0000 or a lone surrogate`);
        for (const [index, key] of user.apiKeys.entries()) {
          const owner = keysByHash.get(key.hash)?.userId ?? keyOwners.get(key.hash);
          if (owner !== undefined && owner !== user.id) conflicts.push({ user: u, field: "apiKeys", index });
          else if (owner === undefined && keysById.has(key.id))
            throw new RangeError(`users[${u}].apiKeys[${index}]: key id ${key.id} is taken`);
          keyOwners.set(key.hash, owner ?? user.id);
        }
        for (const [index, asset] of user.assets.entries()) {
          if (!storableId(asset)) throw new RangeError(`users[${u}].assets[${index}] cannot hold U+0000 or a lone surrogate`);
          const owner = assets.get(asset) ?? assetOwners.get(asset);
          if (owner !== undefined && owner !== user.id) conflicts.push({ user: u, field: "assets", index });
          assetOwners.set(asset, owner ?? user.id);
        }
      }
      if (conflicts.length > 0) return { ok: false, conflicts };
      const created: string[] = [];
      for (const user of load) {
        if (!users.has(user.id)) {
          const record: MutableUser = { id: user.id, balance: user.credits, held: 0, multiplier: user.multiplier, ledger: [] };
          if (user.credits > 0) record.ledger.push({ kind: "grant", credits: user.credits, at });
          users.set(user.id, record);
          created.push(user.id);
        }
        for (const key of user.apiKeys) {
          if (keysByHash.has(key.hash)) continue;
          const record: ApiKeyRecord = { id: key.id, userId: user.id, mode: key.mode, hash: key.hash, revoked: false };
          keysById.set(key.id, record);
          keysByHash.set(key.hash, record);
        }
        for (const asset of user.assets) if (!assets.has(asset)) assets.set(asset, user.id);
      }
      return { ok: true, created };
    },

    async ledger(userId) {
      return users.get(userId)?.ledger.slice();
    },

    async close() {},

    async reset() {
      // No await in here: no other call sees a store half emptied.
      users.clear();
      keysById.clear();
      keysByHash.clear();
      assets.clear();
      tasks.clear();
      failures.clear();
      claims.clear();
    },
  };
}
