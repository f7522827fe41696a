/**
 * The in-memory {@link Store}: a test double's state in `Map`s and arrays of plain records. Its two
 * atomic methods, `commitTask` and `failJob`, hold no `await`, so no other call can run in the
 * middle of either.
 */

import {
  type ApiKeyRecord,
  acceptedTask,
  type CommitInput,
  type CommitResult,
  type FixtureLoadResult,
  type FixtureUserLoad,
  type GrantResult,
  type JobStatus,
  type LedgerRecord,
  MAX_CREDITS,
  type Store,
  storableId,
  type TaskRecord,
} from "./store.js";

/**
 * An idempotency claim that expires (epoch ms); one that never does is kept as its task id alone.
 */
type Claim = { readonly taskId: string; readonly expiresAt: number };

type MutableUser = {
  readonly id: string;
  balance: number;
  /** Credits of the user's queued jobs: what refunds could still add to the balance (S15). */
  held: number;
  multiplier: string;
  /** Oldest first; append-only until `reset()`. */
  readonly ledger: LedgerRecord[];
  /**
   * Claims by idempotency key, scoped per user (S5). An expired claim is not evicted (a lookup
   * checks the time) but replaced by the key's next use.
   */
  readonly claims: Map<string, Claim | string>;
};

/**
 * A task as kept: a failed job replaces its statuses (never changed in place, so they may be
 * shared).
 */
type StoredTask = Omit<TaskRecord, "jobStatus"> & { jobStatus: readonly JobStatus[] };

/**
 * Frozen values that many stored tasks hold alike (an empty reference list, one job's credits,
 * statuses all queued), one per spelling and at most 4,096: a store keeps every task, and sharing
 * them keeps about a fifth less memory per task.
 */
const shared = new Map<string, readonly unknown[]>();
function share<T>(key: string, values: readonly T[]): readonly T[] {
  let value = shared.get(key) as readonly T[] | undefined;
  if (value === undefined) {
    value = Object.freeze([...values]);
    if (shared.size < 4096) {
      shared.set(key, value);
    }
  }
  return value;
}

/**
 * A task's copy, sharing nothing a caller could change with what the store keeps: of the caller's
 * when kept (the values many tasks hold alike shared, frozen), of the store's when handed out.
 */
function copyTask(task: TaskRecord, keep: boolean): StoredTask {
  const { request, jobCredits, jobStatus } = task;
  const ids = request.inputAssetIds;
  const queued = jobStatus.every((status) => status === "queued");
  return {
    ...task,
    request: {
      ...request,
      inputAssetIds: keep && ids.length === 0 ? (share("i", ids) as string[]) : [...ids],
    },
    jobCredits:
      keep && jobCredits.length === 1 ? share(`c${jobCredits[0]}`, jobCredits) : [...jobCredits],
    jobStatus: keep && queued ? share(`q${jobStatus.length}`, jobStatus) : [...jobStatus],
  };
}

/** Creates an empty in-memory store, whose state lives as long as the object. @internal */
export function createMemoryStore(): Store {
  const users = new Map<string, MutableUser>();
  const keysById = new Map<string, ApiKeyRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  /** Each asset's owner. */
  const assets = new Map<string, string>();
  const tasks = new Map<string, StoredTask>();

  const addKey = (key: ApiKeyRecord): void => {
    // Frozen, and replaced rather than changed: handed out as it is, with no copy per request.
    const record = Object.freeze({ ...key });
    keysById.set(record.id, record);
    keysByHash.set(record.hash, record);
  };
  /** Adds a user that is not there yet, with its opening grant in the ledger. */
  const addUser = (user: { id: string; credits: number; multiplier: string }, at: number): void => {
    const record: MutableUser = {
      id: user.id,
      balance: user.credits,
      held: 0,
      multiplier: user.multiplier,
      ledger: [],
      claims: new Map(),
    };
    if (user.credits > 0) {
      record.ledger.push({ kind: "grant", credits: user.credits, at });
    }
    users.set(user.id, record);
  };
  /** The task a live claim of the user's points at, as stored. */
  const claimedTask = (
    user: MutableUser | undefined,
    key: string,
    now: number,
  ): StoredTask | undefined => {
    const claim = user?.claims.get(key);
    if (typeof claim === "string") {
      return tasks.get(claim);
    }
    return claim && claim.expiresAt > now ? tasks.get(claim.taskId) : undefined;
  };
  const taskView = (task: StoredTask | undefined) => task && copyTask(task, false);

  /**
   * The conflicts of a fixtures load with the store (`asEmpty`: with an empty store, as after a
   * reset), by position in the load.
   *
   * @throws RangeError for an id the store cannot keep, or a new key whose id is taken.
   */
  const conflictsOf = (load: readonly FixtureUserLoad[], asEmpty: boolean) => {
    const conflicts: { user: number; field: "apiKeys" | "assets"; index: number }[] = [];
    const keyOwners = new Map<string, string>();
    const assetOwners = new Map<string, string>();
    for (const [u, user] of load.entries()) {
      if (!storableId(user.id)) {
        throw new RangeError(`users[${u}].id cannot hold U+0000 or a lone surrogate`);
      }
      for (const [index, key] of user.apiKeys.entries()) {
        const owner =
          (asEmpty ? undefined : keysByHash.get(key.hash)?.userId) ?? keyOwners.get(key.hash);
        if (owner !== undefined && owner !== user.id) {
          conflicts.push({ user: u, field: "apiKeys", index });
        } else if (owner === undefined && !asEmpty && keysById.has(key.id)) {
          throw new RangeError(`users[${u}].apiKeys[${index}]: key id ${key.id} is taken`);
        }
        keyOwners.set(key.hash, owner ?? user.id);
      }
      for (const [index, asset] of user.assets.entries()) {
        if (!storableId(asset)) {
          throw new RangeError(
            `users[${u}].assets[${index}] cannot hold U+0000 or a lone surrogate`,
          );
        }
        const owner = (asEmpty ? undefined : assets.get(asset)) ?? assetOwners.get(asset);
        if (owner !== undefined && owner !== user.id) {
          conflicts.push({ user: u, field: "assets", index });
        }
        assetOwners.set(asset, owner ?? user.id);
      }
    }
    return conflicts;
  };
  /** Writes a checked fixtures load: the users, key hashes and assets the store lacks. */
  const write = (load: readonly FixtureUserLoad[], at: number): string[] => {
    const created: string[] = [];
    for (const user of load) {
      if (!users.has(user.id)) {
        addUser(user, at);
        created.push(user.id);
      }
      for (const key of user.apiKeys) {
        if (!keysByHash.has(key.hash)) {
          addKey({ id: key.id, userId: user.id, mode: key.mode, hash: key.hash, revoked: false });
        }
      }
      for (const asset of user.assets) {
        if (!assets.has(asset)) {
          assets.set(asset, user.id);
        }
      }
    }
    return created;
  };

  return {
    async createUser(user, at) {
      if (users.has(user.id)) {
        return false;
      }
      addUser(user, at);
      return true;
    },
    async getUser(userId) {
      const user = users.get(userId);
      return user && { id: user.id, balance: user.balance, multiplier: user.multiplier };
    },
    async grant(userId, credits, at): Promise<GrantResult> {
      const user = users.get(userId);
      if (!user) {
        return { ok: false, reason: "unknown_user" };
      }
      // Counting the credits queued jobs hold keeps every later refund within the bound (S15).
      if (user.balance + user.held + credits > MAX_CREDITS) {
        return { ok: false, reason: "balance_too_large", balance: user.balance, held: user.held };
      }
      user.balance += credits;
      if (credits > 0) {
        user.ledger.push({ kind: "grant", credits, at });
      }
      return { ok: true, balance: user.balance };
    },
    async setMultiplier(userId, multiplier) {
      const user = users.get(userId);
      if (!user) {
        return false;
      }
      user.multiplier = multiplier;
      return true;
    },

    async putApiKey(key) {
      if (keysById.has(key.id) || keysByHash.has(key.hash)) {
        return false;
      }
      addKey(key);
      return true;
    },
    async findCaller(hash) {
      const key = keysByHash.get(hash);
      const user = key && users.get(key.userId);
      return user && key && { key, multiplier: user.multiplier };
    },
    async revokeApiKey(apiKeyId) {
      const key = keysById.get(apiKeyId);
      if (!key) {
        return false;
      }
      addKey({ ...key, revoked: true });
      return true;
    },

    async putAsset(assetId, userId) {
      if (assets.has(assetId)) {
        return false;
      }
      assets.set(assetId, userId);
      return true;
    },
    async ownedAssets(userId, assetIds) {
      return new Set(assetIds.filter((id) => assets.get(id) === userId));
    },

    async findClaimedTask(userId, key, now) {
      return taskView(claimedTask(users.get(userId), key, now));
    },
    async commitTask(
      { task, apiKeyId, claim, assetIds = [] }: CommitInput,
      now: number,
    ): Promise<CommitResult> {
      // No await in here: the checks and the writes below happen as one step.
      const user = users.get(task.userId);
      if (!user) {
        return { ok: false, reason: "unknown_user" };
      }
      const key = keysById.get(apiKeyId);
      if (!key || key.revoked || key.userId !== task.userId) {
        return { ok: false, reason: "api_key_revoked" };
      }
      const holder = claim && claimedTask(user, claim.key, now);
      if (holder) {
        return { ok: false, reason: "idempotency_key_taken", task: copyTask(holder, false) };
      }
      const index = assetIds.findIndex((id) => assets.get(id) !== task.userId);
      if (index >= 0) {
        return { ok: false, reason: "asset_not_found", index };
      }
      if (user.multiplier !== task.multiplier) {
        return { ok: false, reason: "multiplier_changed", multiplier: user.multiplier };
      }
      const total = task.totalCredits;
      if (user.balance < total) {
        return { ok: false, reason: "insufficient_credits", balance: user.balance };
      }

      user.balance -= total;
      user.held += total;
      // The record answered is built on the caller's own draft; the store keeps a copy of it.
      const record = acceptedTask(task, user.balance);
      tasks.set(task.id, copyTask(record, true));
      if (claim) {
        user.claims.set(
          claim.key,
          claim.expiresAt === undefined ? task.id : { taskId: task.id, expiresAt: claim.expiresAt },
        );
      }
      if (total > 0) {
        user.ledger.push({ kind: "debit", credits: total, at: now, taskId: task.id });
      }
      return { ok: true, task: record };
    },
    async getTask(taskId) {
      return taskView(tasks.get(taskId));
    },
    async failJob(taskId, index, at) {
      // No await in here: a job is marked failed and refunded in one step, so only once.
      const task = tasks.get(taskId);
      const credits = task?.jobCredits[index];
      if (!task || credits === undefined) {
        return undefined;
      }
      if (task.jobStatus[index] === "failed") {
        return 0;
      }
      const user = users.get(task.userId);
      if (!user) {
        return undefined;
      }
      const jobStatus = [...task.jobStatus];
      jobStatus[index] = "failed";
      task.jobStatus = jobStatus;
      user.balance += credits;
      user.held -= credits;
      if (credits > 0) {
        user.ledger.push({ kind: "refund", credits, at, taskId, jobIndex: index });
      }
      return credits;
    },

    async loadFixtures(load, at): Promise<FixtureLoadResult> {
      // No await in here: every check is made before the first write, so a load happens whole or
      // not at all.
      const conflicts = conflictsOf(load, false);
      return conflicts.length > 0
        ? { ok: false, conflicts }
        : { ok: true, created: write(load, at) };
    },

    async ledger(userId) {
      return users.get(userId)?.ledger.map((entry) => ({ ...entry }));
    },

    async close() {},

    async reset(fixtures) {
      // No await in here: no other call sees a store half emptied, or emptied and not loaded again.
      if (fixtures && conflictsOf(fixtures.users, true).length > 0) {
        throw new RangeError("fixtures: two users hold one key or asset");
      }
      users.clear();
      keysById.clear();
      keysByHash.clear();
      assets.clear();
      tasks.clear();
      if (fixtures) {
        write(fixtures.users, fixtures.at);
      }
    },
  };
}
