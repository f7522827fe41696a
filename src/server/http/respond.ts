/**
 * What the server answers ({@link Outgoing}): JSON with a `Request-Id` header, error answers kept
 * small whatever the request (S15), and the web `Response` of an answer.
 */
import { cut } from "../../echo.js";
import type { Issue } from "../../types.js";
import { type ErrorBody, type Failure, SERVER_ERRORS } from "../errors.js";
import { serverMessages as m } from "../messages.js";

/** What the server answers: a status, headers (lower-case names) and a JSON text. @internal */
export type Outgoing = { readonly status: number; readonly headers: Record<string, string>; readonly body: string };

/**
 * The web `Response` of an answer.
 *
 * @param out - The answer.
 * @returns A `Response` with the same status, headers and body.
 * @internal
 */
export function toResponse(out: Outgoing): Response {
  // A 204 (a CORS preflight's answer) may not have a body, not even an empty one.
  return new Response(out.status === 204 ? null : out.body, { status: out.status, headers: out.headers });
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
function boundIssues(issues: readonly Issue[]): Issue[] {
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
    listed.push({ path: "", code: "too_many_issues", message: m.moreIssues(rest, counted !== undefined) });
  } else if (counted) {
    listed.push({ path: "", code: counted.code, message: cut(counted.message, MAX_MESSAGE_CHARS) });
  }
  return listed;
}

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A JSON answer from text that is already serialized (a 202 and its replays, byte for byte).
 *
 * @param status - The HTTP status.
 * @param text - The JSON text.
 * @param requestId - This request's id.
 * @param extra - More headers.
 * @returns The answer.
 * @internal
 */
export function jsonText(status: number, text: string, requestId: string, extra?: Record<string, string>): Outgoing {
  const headers: Record<string, string> = { "content-type": JSON_TYPE, "cache-control": "no-store", "request-id": requestId };
  if (extra) Object.assign(headers, extra);
  return { status, headers, body: text };
}

/**
 * A JSON answer. A client's text in it (an error's message, `param` and issues) was made safe where
 * it was quoted (`safeEcho`), so the body is sent as serialized.
 *
 * @param status - The HTTP status.
 * @param body - A JSON value.
 * @param requestId - This request's id.
 * @param extra - More headers.
 * @returns The answer.
 * @internal
 */
export function json(status: number, body: unknown, requestId: string, extra?: Record<string, string>): Outgoing {
  return jsonText(status, JSON.stringify(body), requestId, extra);
}

/**
 * An error answer: `{ error: { message, code, param?, issues?, requestId } }`, never larger than
 * {@link MAX_ERROR_BODY_BYTES} (S15): `param` and every issue are cut short, and at most
 * {@link MAX_LISTED_ISSUES} issues are listed. The service and the admin API answer in this shape.
 *
 * @param status - The HTTP status of the code.
 * @param requestId - This request's id.
 * @param f - What was wrong.
 * @returns The answer.
 * @internal
 */
export function errorAnswer(status: number, requestId: string, f: Omit<Failure, "code"> & { code: string }): Outgoing {
  // Built field by field so that the JSON keeps this order: message, code, param, issues, requestId.
  const error = { message: f.message, code: f.code } as Omit<ErrorBody["error"], "code"> & { code: string };
  if (f.param !== undefined) error.param = cut(f.param, 100);
  if (f.issues !== undefined) error.issues = boundIssues(f.issues);
  error.requestId = requestId;
  return json(status, { error }, requestId, f.headers);
}

/**
 * The answer to a rejected request of the service, with the status of its code ({@link errorAnswer}).
 *
 * @param requestId - This request's id.
 * @param f - What was wrong.
 * @returns The answer.
 * @internal
 */
export function failure(requestId: string, f: Failure): Outgoing {
  return errorAnswer(SERVER_ERRORS[f.code], requestId, f);
}

/**
 * The 400 of a request that breaks request rules: every issue, `param` naming the first (S12).
 *
 * @param requestId - This request's id.
 * @param issues - What is wrong, at least one.
 * @returns The answer.
 * @internal
 */
export function invalidRequest(requestId: string, issues: Issue[]): Outgoing {
  return failure(requestId, {
    code: "invalid_request",
    message: m.invalidRequest(issues),
    param: issues[0]?.path ?? "",
    issues,
  });
}
