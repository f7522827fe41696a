/**
 * `ImagegenPromise`: what a call of the client returns, a promise of the answer's body that can
 * also give the answer's metadata (`withResponse()`).
 */
import type { WithResponse } from "./send.js";

/**
 * A promise of a call's data (the answer's body, checked) that also gives, on request, what is
 * known of the answer: `await client.ping()` is the body; `await client.ping().withResponse()` is
 * `{ data, requestId, replayed, status, attempts, headers }`.
 *
 * Awaiting it, or `withResponse()`, or both, sends the call once.
 */
export class ImagegenPromise<T> extends Promise<T> {
  /**
   * What `then` of a subclass makes: plain promises, so that a chained one has no `withResponse`.
   */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #answer: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  /**
   * Wraps the call in flight.
   *
   * @param answer - The call, resolving to its data and the answer's metadata.
   * @internal
   */
  constructor(answer: Promise<WithResponse<T>>) {
    // The promise itself is only a shell: every method reads `answer`, so that a rejection is seen
    // (and handled) only through what the caller awaits.
    super((resolve) => resolve(undefined as T));
    this.#answer = answer;
  }

  /** The data of the answer, made once. */
  #parsed(): Promise<T> {
    this.#data ??= this.#answer.then((answered) => answered.data);
    return this.#data;
  }

  /**
   * The call's data with the answer's metadata: its `Request-Id`, whether a create was a replay
   * (nothing charged this time), its status, the requests the call sent, and its headers.
   *
   * @returns The data and the metadata; rejects with the call's `ImagegenError`.
   */
  withResponse(): Promise<WithResponse<T>> {
    return this.#answer;
  }

  /**
   * Attaches callbacks to the call's data, as `Promise.prototype.then` does.
   *
   * @param onfulfilled - Called with the data.
   * @param onrejected - Called with the call's `ImagegenError`.
   * @returns A plain promise of what the callback returns.
   */
  // A promise subclass must override `then` to be awaited as its data.
  // biome-ignore lint/suspicious/noThenProperty: the override is the point
  override then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#parsed().then(onfulfilled, onrejected);
  }

  /**
   * Attaches a callback to the call's failure, as `Promise.prototype.catch` does.
   *
   * @param onrejected - Called with the call's `ImagegenError`.
   * @returns A plain promise of the data or of what the callback returns.
   */
  override catch<R = never>(
    onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null,
  ): Promise<T | R> {
    return this.#parsed().catch(onrejected);
  }

  /**
   * Attaches a callback run when the call ends either way, as `Promise.prototype.finally` does.
   *
   * @param onfinally - Called with nothing.
   * @returns A plain promise of the data.
   */
  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#parsed().finally(onfinally);
  }
}
