/**
 * Every way the server says no: the HTTP error codes with their statuses, the typed error of the
 * admin methods, and every sentence the server says (the core's sentences are in `src/messages.ts`).
 * No message ever contains an API key.
 */
import { show } from "../messages.js";
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

/** Codes of {@link AdminError}. */
export type AdminErrorCode =
  | "invalid_credits"
  | "credits_too_large"
  | "invalid_multiplier"
  | "invalid_mode"
  | "unknown_user"
  | "unknown_api_key"
  | "unknown_job"
  | "unknown_task";

/**
 * The rejection of an admin method given a bad argument: credits that are not a non-negative whole
 * number or that would take a balance past 2^53 - 1, an invalid multiplier (P4), an unknown user,
 * key, job or task.
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

/**
 * The error `createReferenceServer` throws for an `adminToken` it refuses: shorter than
 * {@link AdminTokenError.minLength} or longer than {@link AdminTokenError.maxLength} characters,
 * anything but A-Z a-z 0-9 _ -, or starting like an API key. Its message never holds the token.
 */
export class AdminTokenError extends TypeError {
  override readonly name = "AdminTokenError";
  /** The fewest characters an admin token has: a shorter one is too easy to guess. */
  readonly minLength: number;
  /** The most characters an admin token has. */
  readonly maxLength: number;

  /**
   * Makes an admin token error.
   *
   * @param message - What is wrong, naming the allowed lengths; never the token.
   * @param minLength - The fewest characters allowed.
   * @param maxLength - The most characters allowed.
   */
  constructor(message: string, minLength: number, maxLength: number) {
    super(message);
    this.minLength = minLength;
    this.maxLength = maxLength;
  }
}

/** The largest error answer, in UTF-8 bytes, whatever the request (S15). */
export const MAX_ERROR_BODY_BYTES = 32 * 1024;
/** The most issues an error answer lists; the rest are counted in one more issue. */
export const MAX_LISTED_ISSUES = 50;
/** What the listed issues may take together, in UTF-8 bytes of their JSON: the rest of the answer is small. */
const ISSUES_BUDGET_BYTES = 16 * 1024;
/** The longest issue path and message kept; a longer one is cut and ends with `...`. */
const MAX_PATH_CHARS = 100;
const MAX_MESSAGE_CHARS = 300;
const MAX_CODE_CHARS = 64;

/**
 * Cuts a text to at most `max` UTF-16 units (never in the middle of a surrogate pair), marking the
 * cut with `...`.
 *
 * @param text - Any text.
 * @param max - The longest text kept, before the mark.
 * @returns The text, or its start and `...`.
 * @internal
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}...`;
}

/** The UTF-8 length of a text, or a little more (each half of a surrogate pair counts 3 bytes, not 2). */
function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else bytes += 3; // each half of a surrogate pair too: 6 counted for 4 bytes, an upper bound
  }
  return bytes;
}

/**
 * The issues an error answer lists: each one's path, code and message cut short, at most
 * {@link MAX_LISTED_ISSUES} of them and no more than fit a fixed budget, and one more issue
 * (`too_many_issues`) counting the rest, so that an answer stays small whatever the request (S15).
 *
 * @param issues - Every issue found.
 * @returns The issues to send.
 * @internal
 */
export function boundIssues(issues: readonly Issue[]): Issue[] {
  // The core reports at most its own maximum and ends with a `too_many_issues` count of the rest;
  // that count is kept as it is, and only the issues before it are cut and budgeted here.
  const last = issues.at(-1);
  const counted = last?.code === "too_many_issues" ? last : undefined;
  const own = counted ? issues.slice(0, -1) : issues;
  const listed: Issue[] = [];
  let budget = ISSUES_BUDGET_BYTES;
  for (const issue of own) {
    if (listed.length === MAX_LISTED_ISSUES) break;
    const bounded = {
      path: cut(issue.path, MAX_PATH_CHARS),
      code: cut(issue.code, MAX_CODE_CHARS),
      message: cut(issue.message, MAX_MESSAGE_CHARS),
    };
    budget -= utf8Bytes(JSON.stringify(bounded));
    if (budget < 0) break;
    listed.push(bounded);
  }
  const rest = own.length - listed.length;
  if (rest > 0) {
    listed.push({ path: "", code: "too_many_issues", message: serverMessages.moreIssues(rest, counted !== undefined) });
  } else if (counted) {
    listed.push({ path: "", code: counted.code, message: cut(counted.message, MAX_MESSAGE_CHARS) });
  }
  return listed;
}

const list = (values: readonly string[]) => values.join(", ");

/** Shows a value like `show`, but never a secret: something shaped like an API key shows only its prefix. */
function showId(value: unknown): string {
  return typeof value === "string" && /^\s*ck_(?:live|test)_/.test(value)
    ? `"${value.trim().slice(0, 8)}..." (an API key?)`
    : show(value);
}

/** Every sentence the server says. @internal */
export const serverMessages = {
  notFound: (path: string) => `There is no endpoint at ${show(path)}.`,
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    `${show(method)} is not allowed on this endpoint; use ${list(allowed)}.`,
  missingApiKey: () => "Send an API key as Authorization: Bearer <API_KEY>; this endpoint accepts only API-key authentication.",
  invalidApiKey: () => "The API key is not valid: it is malformed, unknown or revoked.",
  unsupportedMediaType: () => "The request body must be JSON: send Content-Type: application/json (UTF-8).",
  payloadTooLarge: (limit: number) => `The request body is larger than the limit of ${limit} bytes.`,
  emptyBody: () => "The request body is empty; send a JSON object.",
  invalidUtf8: () => "The request body is not valid UTF-8.",
  invalidJson: () => "The request body is not valid JSON.",
  jsonTooComplex: (bound: "depth" | "values", limit: number) =>
    bound === "depth"
      ? `The request body is nested more than ${limit} levels deep; no request needs that.`
      : `The request body holds more than ${limit} values; no request needs that.`,
  unreadableBody: () => "The request body could not be read.",
  invalidRequest: (issues: readonly Issue[]) => {
    const count = issues.length;
    if (issues.at(-1)?.code === "too_many_issues") return `The request has more than ${count - 1} problems; see issues.`;
    return count === 1 ? "The request has 1 problem; see issues." : `The request has ${count} problems; see issues.`;
  },
  moreIssues: (rest: number, andMore = false) =>
    `${rest}${andMore ? " or more" : ""} more problem${rest === 1 && !andMore ? " is" : "s are"} not listed; fix those above and send again.`,
  assetNotFound: (param: string, id: string) => `${param}: there is no asset ${showId(id)} in this account.`,
  insufficientCredits: (cost: number, balance: number) =>
    `This task costs ${cost} credits and the balance is ${balance}; nothing was charged.`,
  idempotencyKeyReused: () => "This idempotencyKey was already used with a different request; use a new key for a new request.",
  idempotencyKeyMismatch: (field: string, header: string) =>
    `The body's idempotencyKey ${show(field)} and the Idempotency-Key header ${show(header)} differ; send one key, or the same key in both.`,
  internalError: () => "Something went wrong on our side; nothing was charged for this request.",
  serviceUnavailable: (seconds: number) =>
    `The service cannot reach its data right now; nothing was charged. Retry in ${seconds} second${seconds === 1 ? "" : "s"}.`,
  noCatalogInForce: (firstVersion: string, seconds: number) =>
    `No prices are in force yet: the first catalog takes effect at ${firstVersion}T00:00:00.000Z; nothing was charged. Retry in ${seconds} second${seconds === 1 ? "" : "s"}.`,

  // quote spec (S11)
  specNotObject: (got: unknown) => `A quote spec must be a JSON object; received ${show(got)}.`,
  specUnknownField: (field: string) =>
    `${show(field)} is not a field of a quote spec; use kind, modelId, resolution, quality and referenceImageCount.`,
  specRequired: (field: string) => `${field} is required.`,
  specWrongType: (field: string, expected: string, got: unknown) => `${field} must be ${expected}; received ${show(got)}.`,
  specOption: (field: string, got: unknown, allowed: readonly string[]) =>
    `${field} ${show(got)} is not accepted; use one of ${list(allowed)}.`,
  specReferenceCount: (max: number, got: unknown) =>
    `referenceImageCount must be a whole number from 0 to ${max}; received ${show(got)}.`,

  // admin
  invalidCredits: (got: unknown) => `credits must be a non-negative whole number; received ${show(got)}.`,
  creditsTooLarge: (credits: number, balance: number, held = 0) =>
    `credits: ${balance > 0 || held > 0 ? `a balance of ${balance}${held > 0 ? `, ${held} held by queued jobs (refunds may return them),` : ""} plus ${credits}` : show(credits)} would pass the largest exact balance, ${Number.MAX_SAFE_INTEGER} (2^53 - 1); nothing changed.`,
  invalidMultiplier: (got: unknown) =>
    `multiplier must be a plain decimal from 0 to 1000 (such as "1.15") or a finite number in that range; received ${show(got)}.`,
  invalidMode: (got: unknown) => `mode must be "live" or "test"; received ${show(got)}.`,
  unknown: (what: string, id: unknown) => `There is no ${what} ${showId(id)}.`,
  tooManyAdminAttempts: (failures: number, windowSeconds: number, seconds: number) =>
    `This address sent ${failures} wrong admin tokens within ${windowSeconds} seconds; every admin request from it is refused for ${seconds} more second${seconds === 1 ? "" : "s"}.`,
} as const;
