/**
 * The in-memory {@link Store}: users, keys and assets in Maps; tasks, idempotency claims and the
 * ledger outside the collected heap ({@link TextLog}, {@link HashIndex}, {@link NumberColumn}), so
 * that what grows with every accepted task is bytes a garbage collector never walks. Nothing scans
 * history. Its two atomic methods, `commitTask` and `failJob`, hold no `await`, so no other call
 * can run in the middle of either.
 */

import type { GenerationRequest } from "../types.js";
import { HashIndex, KeyedHash, NumberColumn, TextLog } from "./offHeap.js";
import {
  type ApiKeyRecord,
  acceptedTask,
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
  /** The user's newest ledger entry ({@link Ledger}), or -1. */
  lastEntry: number;
};

/** A task's fields as {@link encodeTask} lists them: no field names and no id are kept per task. */
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
  /** The idempotency key the task claimed, if any. */
  claimKey: string | null,
];

/** Positions in {@link Encoded} that a claim's lookup reads. */
const USER_ID = 0;
const CLAIM_KEY = 19;

/**
 * The stored text of a committed task: the JSON array of its fields by position. JSON text is
 * well-formed UTF-16 (a lone surrogate is written as an escape), so UTF-8 keeps it exactly.
 */
function encodeTask(task: TaskDraft, balanceAfter: number, claimKey: string | null): string {
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
    claimKey,
  ];
  return JSON.stringify(fields);
}

/** A committed task read back from {@link encodeTask}'s fields, a new object each time. */
function decodeTask(id: string, fields: Encoded, jobStatus: JobStatus[] | undefined): TaskRecord {
  const [userId, createdAt, clientKey, referenceCount, multiplier, catalogVersion, jobCredits, totalCredits, balanceAfter, ...r] =
    fields;
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

const KINDS = ["grant", "debit", "refund"] as const;

/**
 * Every user's ledger entries, in columns by entry number; each entry points back at the previous
 * entry of its user, so a user's ledger is read from its newest entry without a scan of the others.
 */
class Ledger {
  #count = 0;
  readonly #kind = new NumberColumn("int32");
  readonly #credits = new NumberColumn("float64");
  readonly #at = new NumberColumn("float64");
  /** The task's entry number in the store's task log, or -1 for a grant. */
  readonly #task = new NumberColumn("int32");
  readonly #job = new NumberColumn("int32");
  readonly #previous = new NumberColumn("int32");

  /** Appends an entry after `user.lastEntry` and makes it the user's last. */
  add(user: MutableUser, kind: LedgerRecord["kind"], credits: number, at: number, task = -1, job = -1): void {
    const entry = this.#count++;
    this.#kind.set(entry, KINDS.indexOf(kind));
    this.#credits.set(entry, credits);
    this.#at.set(entry, at);
    this.#task.set(entry, task);
    this.#job.set(entry, job);
    this.#previous.set(entry, user.lastEntry);
    user.lastEntry = entry;
  }

  /** A user's entries, oldest first; `taskId` names a task by its entry number. */
  read(user: MutableUser, taskId: (task: number) => string): LedgerRecord[] {
    const entries: LedgerRecord[] = [];
    for (let e = user.lastEntry; e >= 0; e = this.#previous.get(e)) {
      const kind = KINDS[this.#kind.get(e)] as LedgerRecord["kind"];
      const credits = this.#credits.get(e);
      const at = this.#at.get(e);
      const task = this.#task.get(e);
      const job = this.#job.get(e);
      if (task < 0) entries.push({ kind, credits, at });
      else if (job < 0) entries.push({ kind, credits, at, taskId: taskId(task) });
      else entries.push({ kind, credits, at, taskId: taskId(task), jobIndex: job });
    }
    return entries.reverse();
  }

  clear(): void {
    this.#count = 0;
    for (const column of [this.#kind, this.#credits, this.#at, this.#task, this.#job, this.#previous]) column.clear();
  }
}

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
  /**
   * Task `n` is entry `n` of both logs: its id as JSON text (which keeps any string exactly, a lone
   * surrogate too), and its fields ({@link encodeTask}).
   */
  const taskIds = new TextLog();
  const taskFields = new TextLog();
  /** Task ids by their hash. */
  const taskIndex = new HashIndex();
  /**
   * Idempotency claims by the hash of user and key (scoped per user, S5), each pointing at the
   * task that claimed it; the key is read back from the task. Without a window a claim never
   * expires; an expired claim is not evicted (a lookup checks the time) but replaced by the key's
   * next use.
   */
  const claimIndex = new HashIndex();
  /** When task `n`'s claim expires (epoch ms), `Infinity` for never. */
  const claimExpiry = new NumberColumn("float64");
  /** The job statuses of the tasks that had a job fail, by task number; every other job is queued. */
  const failures = new Map<number, JobStatus[]>();
  const ledger = new Ledger();
  const hash = new KeyedHash();

  const fieldsOf = (n: number): Encoded => JSON.parse(taskFields.get(n)) as Encoded;
  /** The id of task `n`. */
  const idOf = (n: number): string => JSON.parse(taskIds.get(n)) as string;
  /** Whether task `n` has the id whose JSON text is `idText`. */
  const hasId = (idText: string) => (n: number) => taskIds.get(n) === idText;
  /** The number of the task with this id, or -1. */
  const taskNumber = (id: string): number => taskIndex.get(hash.of(id), hasId(JSON.stringify(id)));
  /** Whether task `n` claimed this user's key. */
  const claimedBy = (userId: string, key: string) => (n: number) => {
    const fields = fieldsOf(n);
    return fields[USER_ID] === userId && fields[CLAIM_KEY] === key;
  };

  /** Adds a user that is not there yet, with its opening grant in the ledger. */
  const addUser = (user: { id: string; credits: number; multiplier: string }, at: number): void => {
    const record: MutableUser = { id: user.id, balance: user.credits, held: 0, multiplier: user.multiplier, lastEntry: -1 };
    if (user.credits > 0) ledger.add(record, "grant", user.credits, at);
    users.set(user.id, record);
  };
  const userView = (user: MutableUser): UserRecord => ({ id: user.id, balance: user.balance, multiplier: user.multiplier });
  /** A snapshot: a later failed job does not change a record already handed out. */
  const taskView = (n: number): TaskRecord => decodeTask(idOf(n), fieldsOf(n), failures.get(n)?.slice());
  /** The number of the task a live claim points at, or -1. */
  const claimedTask = (userId: string, key: string, now: number, keyHash = hash.of(userId, key)): number => {
    const n = claimIndex.get(keyHash, claimedBy(userId, key));
    return n >= 0 && claimExpiry.get(n) > now ? n : -1;
  };

  return {
    async createUser(user, at) {
      if (users.has(user.id)) return false;
      addUser(user, at);
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
      if (credits > 0) ledger.add(user, "grant", credits, at);
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
      const n = claimedTask(userId, key, now);
      return n < 0 ? undefined : taskView(n);
    },
    async commitTask({ task, apiKeyId, claim, assetIds = [] }: CommitInput, now: number): Promise<CommitResult> {
      // No await in here: the checks and the writes below happen as one step.
      const user = users.get(task.userId);
      if (!user) return { ok: false, reason: "unknown_user" };
      const key = keysById.get(apiKeyId);
      if (!key || key.revoked || key.userId !== task.userId) return { ok: false, reason: "api_key_revoked" };
      // The claim's hash is made once: for the lookup and, on success, the claim.
      const claimHash = claim ? hash.of(task.userId, claim.key) : 0;
      if (claim) {
        const holder = claimedTask(task.userId, claim.key, now, claimHash);
        if (holder >= 0) return { ok: false, reason: "idempotency_key_taken", task: taskView(holder) };
      }
      const index = assetIds.findIndex((id) => assets.get(id) !== task.userId);
      if (index >= 0) return { ok: false, reason: "asset_not_found", index };
      if (user.multiplier !== task.multiplier) return { ok: false, reason: "multiplier_changed", multiplier: user.multiplier };
      const total = task.totalCredits;
      if (user.balance < total) return { ok: false, reason: "insufficient_credits", balance: user.balance };

      user.balance -= total;
      user.held += total;
      const balanceAfter = user.balance;
      const idText = JSON.stringify(task.id);
      const n = taskIds.append(idText);
      taskFields.append(encodeTask(task, balanceAfter, claim ? claim.key : null));
      // An id committed again names the newer task, as a Map would.
      taskIndex.set(hash.of(task.id), hasId(idText), n);
      if (claim) {
        claimExpiry.set(n, claim.expiresAt ?? Number.POSITIVE_INFINITY);
        // An expired claim on the key now points at the new task.
        claimIndex.set(claimHash, claimedBy(task.userId, claim.key), n);
      }
      if (total > 0) ledger.add(user, "debit", total, now, n);
      // The caller's own draft, not a parse of what was stored: the same values, read back for free.
      return { ok: true, task: acceptedTask(task, balanceAfter) };
    },
    async getTask(taskId) {
      const n = taskNumber(taskId);
      return n < 0 ? undefined : taskView(n);
    },
    async failJob(taskId, index, at) {
      // No await in here: a job is marked failed and refunded in one step, so only once.
      const n = taskNumber(taskId);
      if (n < 0) return undefined;
      const [userId, , , , , , jobCredits] = fieldsOf(n);
      const credits = jobCredits[index];
      if (credits === undefined) return undefined;
      let failed = failures.get(n);
      if (failed?.[index] === "failed") return 0;
      const user = users.get(userId);
      if (!user) return undefined;
      if (failed === undefined) {
        failed = jobCredits.map((): JobStatus => "queued");
        failures.set(n, failed);
      }
      failed[index] = "failed";
      user.balance += credits;
      user.held -= credits;
      if (credits > 0) ledger.add(user, "refund", credits, at, n, index);
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
          addUser(user, at);
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
      const user = users.get(userId);
      return user && ledger.read(user, idOf);
    },

    async close() {},

    async reset() {
      // No await in here: no other call sees a store half emptied.
      users.clear();
      keysById.clear();
      keysByHash.clear();
      assets.clear();
      taskIds.clear();
      taskFields.clear();
      taskIndex.clear();
      claimIndex.clear();
      claimExpiry.clear();
      failures.clear();
      ledger.clear();
    },
  };
}
