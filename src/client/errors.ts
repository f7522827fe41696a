/**
 * `ImagegenError`, the one error every call of the client rejects with, and the codes it carries.
 */
import type { Issue, ServiceErrorCode } from "../types.js";

export type { ServiceErrorCode };

/**
 * The codes of the failures the client finds itself, when no answer of the service names one.
 *
 * Bad options, a page without the opt-in, a connection that failed or closed without an answer, an
 * attempt past its time, an abort by the caller, an answer that is not the service's JSON or not
 * of the shape its interface gives (`invalid_response`).
 */
export type ClientErrorCode =
  | "invalid_options"
  | "browser_not_allowed"
  | "connection_error"
  | "timeout"
  | "aborted"
  | "invalid_response";

/**
 * Every code an {@link ImagegenError} may carry; a newer service may answer with codes of its own.
 */
export type ImagegenErrorCode =
  | ServiceErrorCode
  | ClientErrorCode
  | (string & Record<never, never>);

/**
 * What an {@link ImagegenError} is made of: its code and sentence, and what is known of the answer.
 */
export type ImagegenErrorInit = {
  code: ImagegenErrorCode;
  message: string;
  status?: number | undefined;
  requestId?: string | undefined;
  param?: string | undefined;
  issues?: Issue<string>[] | undefined;
  attempts?: number | undefined;
  idempotencyKey?: string | undefined;
  balance?: number | undefined;
  retryAfterMs?: number | undefined;
  headers?: Headers | undefined;
  cause?: unknown;
};

/**
 * Why a call of the client failed: a request the rules refuse (found before anything is sent), an
 * answer of the service that is not a success, or a failure with no answer.
 *
 * Branch on `code` (stable) or on `status`; `message` is a sentence for a person. A create that
 * failed carries the `idempotencyKey` it sent: retrying later with that key can never charge twice.
 */
export class ImagegenError extends Error {
  /** Always `"ImagegenError"`, so that a log names the class. */
  override readonly name = "ImagegenError";
  /** The service's `error.code`, or one of {@link ClientErrorCode} when no answer named one. */
  readonly code: ImagegenErrorCode;
  /** The HTTP status of the answer; absent when there was none (or nothing was sent). */
  readonly status: number | undefined;
  /** The service's `Request-Id` of the answer, to quote to its operator. */
  readonly requestId: string | undefined;
  /** The field the failure is about, when the service names one (`inputAssetIds[0]`). */
  readonly param: string | undefined;
  /** Every issue, from the local check (nothing sent) or from the service's 400. */
  readonly issues: Issue<string>[] | undefined;
  /** How many requests were sent for this call: 0 when the local check refused the body. */
  readonly attempts: number;
  /** The idempotency key a create sent on every attempt. */
  readonly idempotencyKey: string | undefined;
  /** The balance in credits, when an `insufficient_credits` answer gives it. */
  readonly balance: number | undefined;
  /** How long the service asked to wait (`Retry-After`), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The answer's headers; absent when there was no answer. */
  readonly headers: Headers | undefined;

  /**
   * Makes the error of one failed call.
   *
   * @param init - The code, the sentence, and what is known of the answer.
   */
  constructor(init: ImagegenErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = init.code;
    this.status = init.status;
    this.requestId = init.requestId;
    this.param = init.param;
    this.issues = init.issues;
    this.attempts = init.attempts ?? 0;
    this.idempotencyKey = init.idempotencyKey;
    this.balance = init.balance;
    this.retryAfterMs = init.retryAfterMs;
    this.headers = init.headers;
  }
}
