/**
 * The in-memory {@link Store}: Maps keyed by id, nothing that scans history. A task costs its
 * record, its request snapshot and one ledger entry; a client-keyed task also its replay body.
 */
import type { ApiKeyRecord, CommitInput, CommitResult, LedgerRecord, Store, TaskRecord, UserRecord } from "./store.js";

type IdempotencyRecord = { taskId: string; body: string };

type MutableUser = { id: string; balance: number; multiplier: string; ledger: LedgerRecord[] };

/** Idempotency records are scoped per user (S5); user ids hold no space. */
const scoped = (userId: string, key: string) => `${userId} ${key}`;

/**
 * Creates an empty in-memory store.
 *
 * @returns A {@link Store} whose state lives as long as the object.
 */
export function createMemoryStore(): Store {
  const users = new Map<string, MutableUser>();
  const keysById = new Map<string, ApiKeyRecord>();
  const keysByHash = new Map<string, ApiKeyRecord>();
  const assets = new Map<string, string>();
  const tasks = new Map<string, TaskRecord>();
  const replays = new ExpiringMap<IdempotencyRecord>();

  const userView = (user: MutableUser): UserRecord => ({ id: user.id, balance: user.balance, multiplier: user.multiplier });

  return {
    createUser(user, at) {
      const record: MutableUser = { id: user.id, balance: user.balance, multiplier: user.multiplier, ledger: [] };
      if (user.balance > 0) record.ledger.push({ kind: "grant", credits: user.balance, at });
      users.set(user.id, record);
    },
    getUser(userId) {
      const user = users.get(userId);
      return user && userView(user);
    },
    grant(userId, credits, at) {
      const user = users.get(userId);
      if (!user) return false;
      user.balance += credits;
      if (credits > 0) user.ledger.push({ kind: "grant", credits, at });
      return true;
    },
    setMultiplier(userId, multiplier) {
      const user = users.get(userId);
      if (!user) return false;
      user.multiplier = multiplier;
      return true;
    },

    putApiKey(key) {
      keysById.set(key.id, key);
      keysByHash.set(key.hash, key);
    },
    findApiKeyByHash: (hash) => keysByHash.get(hash),
    getApiKey: (apiKeyId) => keysById.get(apiKeyId),
    revokeApiKey(apiKeyId) {
      const key = keysById.get(apiKeyId);
      if (!key) return false;
      const revoked = { ...key, revoked: true };
      keysById.set(key.id, revoked);
      keysByHash.set(key.hash, revoked);
      return true;
    },

    putAsset: (assetId, userId) => void assets.set(assetId, userId),
    assetOwner: (assetId) => assets.get(assetId),

    findIdempotency: (userId, key, now) => replays.get(scoped(userId, key), now),

    commitTask({ task, claim, render }: CommitInput, now: number): CommitResult {
      const user = users.get(task.userId);
      if (!user) return { ok: false, reason: "unknown_user" };
      if (claim && replays.get(scoped(task.userId, claim.key), now)) return { ok: false, reason: "idempotency_key_taken" };
      let total = 0;
      for (const credits of task.jobCredits) total += credits;
      if (user.balance < total) return { ok: false, reason: "insufficient_credits", balance: user.balance };

      // Render first: should it ever throw, nothing has changed yet.
      task.balanceAfter = user.balance - total;
      const body = render(task);
      user.balance -= total;
      if (total > 0) user.ledger.push({ kind: "debit", credits: total, at: now, taskId: task.id });
      tasks.set(task.id, task);
      if (claim) replays.set(scoped(task.userId, claim.key), { taskId: task.id, body }, claim.expiresAt, now);
      return { ok: true, task, body };
    },
    getTask: (taskId) => tasks.get(taskId),
    failJob(taskId, index, at) {
      const task = tasks.get(taskId);
      const credits = task?.jobCredits[index];
      if (!task || credits === undefined) return undefined;
      if (task.jobStatus[index] === "failed") return 0;
      const user = users.get(task.userId);
      if (!user) return undefined;
      task.jobStatus[index] = "failed";
      user.balance += credits;
      if (credits > 0) user.ledger.push({ kind: "refund", credits, at, taskId, jobIndex: index });
      return credits;
    },

    ledger: (userId) => users.get(userId)?.ledger,
  };
}

/**
 * A map whose entries expire a fixed time after they are set. Entries live in a `Map` in insertion
 * order; with one time-to-live, that is also expiry order, so expired entries are always at the
 * front and are popped from there: each entry is evicted once, with no scan over history.
 *
 * @internal
 */
export class ExpiringMap<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();
  /**
   * When the front entry expires: until then there is nothing to evict, and no iterator is made.
   * If the front entry is deleted early, this may be stale; an entry then lingers a little longer,
   * but `get` checks each entry's own expiry, so a dead entry is never answered.
   */
  #frontExpiresAt = Number.POSITIVE_INFINITY;

  /** Live entries and expired ones not yet evicted. */
  get size(): number {
    return this.#entries.size;
  }

  /** The value of a live entry. */
  get(key: string, now: number): V | undefined {
    this.evict(now);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // A clock that went backwards can leave an expired entry behind a live one; it is still dead.
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Sets an entry at the back (the newest), replacing an old one of the same key. */
  set(key: string, value: V, expiresAt: number, now: number): void {
    this.evict(now);
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    if (this.#entries.size === 1) this.#frontExpiresAt = expiresAt;
  }

  /** Pops expired entries from the front; stops at the first live one. */
  evict(now: number): void {
    if (now < this.#frontExpiresAt) return;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt > now) {
        this.#frontExpiresAt = entry.expiresAt;
        return;
      }
      this.#entries.delete(key);
    }
    this.#frontExpiresAt = Number.POSITIVE_INFINITY;
  }
}
