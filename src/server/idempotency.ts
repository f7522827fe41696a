/**
 * Idempotency (S5): what makes two requests "the same", and a map whose records expire with O(1)
 * amortized eviction.
 */
import type { GenerationRequest } from "../types.js";

/** How long an idempotency record lives by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The fingerprint of a normalized request: every field but the idempotency key, in a fixed order.
 * Because it is taken after normalizing, an omitted default and the same value sent explicitly
 * (or with extra whitespace) have the same fingerprint.
 *
 * @param request - A normalized request.
 * @returns A string equal for exactly the requests that are the same.
 * @internal
 */
export function fingerprint(request: GenerationRequest): string {
  return JSON.stringify([
    request.prompt,
    request.modelId,
    request.generationType,
    request.aspectRatio,
    request.resolution,
    request.quality,
    request.background,
    request.imageCount,
    request.inputAssetIds,
  ]);
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
