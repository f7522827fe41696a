/**
 * The server's answers: every `error.code` with its status, and the JSON answers themselves, each
 * with a `Request-Id`, an error answer kept small whatever the request (S12, S15).
 */
import type { Context } from "hono";
import { cut } from "../echo.js";
import type { Issue, ServiceErrorCode } from "../types.js";
import type { Env } from "./context.js";
import { newId } from "./ids.js";
import { serverMessages as m } from "./messages.js";

/**
 * Every `error.code` of a failed HTTP request, with its status (S12). Data, so that the OpenAPI
 * document and the handlers cannot disagree.
 *
 * @internal
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
} as const satisfies Record<ServiceErrorCode, number>;

/** The body of every failed request. */
export type ErrorBody = {
  error: {
    message: string;
    code: ServiceErrorCode;
    param?: string;
    issues?: Issue<string>[];
    requestId: string;
  };
};

/**
 * Every `error.code` the admin API answers with, beyond the service's own, with its status.
 *
 * @internal
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

/** Codes of {@link ADMIN_ERRORS}. @internal */
export type AdminHttpErrorCode = keyof typeof ADMIN_ERRORS;

/** What a route answers when it refuses a request; the status follows from the code. @internal */
export type Failure = {
  code: ServiceErrorCode | AdminHttpErrorCode;
  message: string;
  param?: string;
  issues?: readonly Issue<string>[];
  /** Extra headers (`Allow`, `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
};

const STATUS: Record<Failure["code"], number> = { ...SERVER_ERRORS, ...ADMIN_ERRORS };

/** The largest error answer, in UTF-8 bytes, whatever the request (S15). @internal */
export const MAX_ERROR_BODY_BYTES = 32 * 1024;
/** The most issues an error answer lists; the rest are counted in one more issue. @internal */
export const MAX_LISTED_ISSUES = 50;
/**
 * What the listed issues may take together, in UTF-8 bytes of their JSON: the rest of the answer is
 * small.
 */
const ISSUES_BUDGET_BYTES = 16 * 1024;
/** The longest issue path, message and code kept; a longer one is cut and ends with `...`. */
const MAX_PATH_CHARS = 100;
const MAX_MESSAGE_CHARS = 300;
const MAX_CODE_CHARS = 64;

const encoder = new TextEncoder();

/**
 * The issues an error answer lists: each one cut short, at most {@link MAX_LISTED_ISSUES} and no
 * more than fit a fixed budget, then one `too_many_issues` issue counting the rest (S15). A count
 * the core already ends its issues with is kept as it is.
 */
function boundIssues(issues: readonly Issue<string>[]): Issue<string>[] {
  const last = issues.at(-1);
  const counted = last?.code === "too_many_issues" ? last : undefined;
  const own = counted ? issues.slice(0, -1) : issues;
  const listed: Issue<string>[] = [];
  let budget = ISSUES_BUDGET_BYTES;
  for (const issue of own) {
    if (listed.length === MAX_LISTED_ISSUES) {
      break;
    }
    const bounded = {
      path: cut(issue.path, MAX_PATH_CHARS),
      code: cut(issue.code, MAX_CODE_CHARS),
      message: cut(issue.message, MAX_MESSAGE_CHARS),
    };
    budget -= encoder.encode(JSON.stringify(bounded)).byteLength;
    if (budget < 0) {
      break;
    }
    listed.push(bounded);
  }
  const rest = own.length - listed.length;
  if (rest > 0) {
    listed.push({
      path: "",
      code: "too_many_issues",
      message: m.moreIssues(rest, counted !== undefined),
    });
  } else if (counted) {
    listed.push({ path: "", code: counted.code, message: cut(counted.message, MAX_MESSAGE_CHARS) });
  }
  return listed;
}

/**
 * The request's id (`Request-Id`), the server's own, made when first needed (its answer, a log
 * line). @internal
 */
export function requestIdOf(c: Context<Env>): string {
  let id = c.get("requestId");
  if (id === undefined) {
    id = newId.request();
    c.set("requestId", id);
  }
  return id;
}

/**
 * A JSON answer from text that is already serialized (a 202 and its replays, byte for byte), with
 * the request's id and more headers if given.
 *
 * @internal
 */
export function json(
  c: Context<Env>,
  status: number,
  text: string,
  headers?: Record<string, string>,
): Response {
  const all: Record<string, string> = {
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
    "request-id": requestIdOf(c),
  };
  if (headers !== undefined) {
    Object.assign(all, headers);
  }
  // hono answers a HEAD with its GET's headers and no body: the length stays the GET's. (Any
  // other answer's length is left to the runtime, which counts the bytes it sends.)
  const method = c.req.method;
  if (method === "HEAD") {
    all["content-length"] = String(encoder.encode(text).byteLength);
  }
  return new Response(text, { status, headers: all });
}

/**
 * An error answer, `{ error: { message, code, param?, issues?, requestId } }` with the status of
 * its code, never larger than {@link MAX_ERROR_BODY_BYTES} (S15), for the service and the admin
 * API.
 *
 * @internal
 */
export function fail(c: Context<Env>, f: Failure): Response {
  const issues = f.issues && boundIssues(f.issues);
  if (issues) {
    c.set("issues", issues);
  }
  const param = f.param === undefined ? undefined : cut(f.param, 100);
  // In this key order; JSON.stringify leaves out the members that are undefined.
  const error = { message: f.message, code: f.code, param, issues, requestId: requestIdOf(c) };
  return json(c, STATUS[f.code], JSON.stringify({ error }), f.headers);
}

/**
 * The 400 of a request that breaks request rules: every issue, `param` naming the first (S12).
 * @internal
 */
export function invalidRequest(c: Context<Env>, issues: readonly Issue<string>[]): Response {
  return fail(c, {
    code: "invalid_request",
    message: m.invalidRequest(issues),
    param: issues[0]?.path ?? "",
    issues,
  });
}

/** Codes of {@link AdminError}. */
export type AdminErrorCode =
  | "invalid_credits"
  | "credits_too_large"
  | "invalid_multiplier"
  | "invalid_mode"
  | "unknown_user"
  | "unknown_api_key"
  | "unknown_job"
  | "unknown_task"
  | "invalid_clock"
  | "invalid_fault"
  | "unknown_fault"
  | "invalid_limit"
  | "controls_off";

/**
 * The rejection of an admin method given a bad argument: credits that are not a non-negative whole
 * number or that would take a balance past 2^53 - 1, an invalid multiplier (P4), an unknown user,
 * key, job or task; a bad fault or journal limit, an unknown fault, or a fault or journal method
 * called on a server without an admin token (`controls_off`). Nothing has changed then.
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
