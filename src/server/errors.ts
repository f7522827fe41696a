/**
 * The error codes of the server and the typed error of the admin methods.
 */

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
} as const;

/** Stable codes of the `error.code` field of a failed HTTP request. */
export type ServerErrorCode = keyof typeof SERVER_ERRORS;

/** Codes of {@link AdminError}. */
export type AdminErrorCode =
  | "invalid_credits"
  | "invalid_multiplier"
  | "invalid_mode"
  | "unknown_user"
  | "unknown_api_key"
  | "unknown_job"
  | "unknown_task";

/**
 * Thrown by an admin method given a bad argument: credits that are not a non-negative whole number,
 * an invalid multiplier (P4), an unknown user, key, job or task.
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
