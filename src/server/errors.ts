/**
 * Every `error.code` the server answers with, of the service and of the admin API, with its HTTP
 * status, and the shape of an error answer.
 */
import type { Issue } from "../types.js";

/**
 * Every `error.code` of a failed HTTP request, with its status (S12). Data, so that the OpenAPI
 * document and the handlers cannot disagree.
 */
export const SERVER_ERRORS = {
  invalid_json: 400, // body is not UTF-8 JSON, or is empty
  invalid_request: 400, // request rules (N, V) or a malformed quote spec (S11); see `issues`
  asset_not_found: 400, // a reference the caller does not own, or that does not exist (S2)
  missing_api_key: 401, // no Authorization header, or a scheme other than Bearer (S1)
  invalid_api_key: 401, // malformed, unknown or revoked key (S1)
  insufficient_credits: 402, // (S4)
  not_found: 404, // unknown route
  method_not_allowed: 405, // with Allow
  idempotency_key_reused: 409, // (S5)
  payload_too_large: 413, // body over the limit
  unsupported_media_type: 415, // not application/json
  internal_error: 500, // a bug; no input is meant to reach it
  service_unavailable: 503, // the store cannot be reached; with Retry-After (S14)
} as const;

/** Stable codes of the `error.code` field of a failed HTTP request. */
export type ServerErrorCode = keyof typeof SERVER_ERRORS;

/** The body of every failed request. */
export type ErrorBody = {
  error: { message: string; code: ServerErrorCode; param?: string; issues?: Issue[]; requestId: string };
};

/** What a handler reports when it rejects a request. @internal */
export type Failure = {
  /** The status follows from the code ({@link SERVER_ERRORS}). */
  code: ServerErrorCode;
  message: string;
  param?: string;
  issues?: Issue[];
  /** Extra headers (`Allow`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
};

/**
 * Every `error.code` the admin API answers with, beyond the service's own (`invalid_json`,
 * `not_found`, `method_not_allowed`, `payload_too_large`, `unsupported_media_type`,
 * `internal_error`, `service_unavailable`), with its status.
 */
export const ADMIN_ERRORS = {
  invalid_request: 400, // a body field is missing, unknown or invalid; see `issues`
  missing_admin_token: 401, // no Authorization: Bearer header
  invalid_admin_token: 401, // anything but the admin token, API keys included
  unknown_user: 404,
  unknown_api_key: 404,
  unknown_job: 404,
  unknown_task: 404,
  unknown_fault: 404,
  too_many_attempts: 429, // too many wrong admin tokens from one address; with Retry-After
} as const;

/** Codes of {@link ADMIN_ERRORS}. */
export type AdminHttpErrorCode = keyof typeof ADMIN_ERRORS;
