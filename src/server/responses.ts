/**
 * Building responses: every one is JSON and carries a `Request-Id` header; every failure has the
 * shape `{ error: { message, code, param?, issues?, requestId } }` (S12).
 */
import type { Issue } from "../types.js";
import type { Outgoing } from "./context.js";
import { SERVER_ERRORS, type ServerErrorCode } from "./errors.js";
import { serverMessages as m } from "./messages.js";

/** The body of every failed request. */
export type ErrorBody = {
  error: { message: string; code: ServerErrorCode; param?: string; issues?: Issue[]; requestId: string };
};

/** What a handler reports when it rejects a request. */
export type Failure = {
  /** The status follows from the code ({@link SERVER_ERRORS}). */
  code: ServerErrorCode;
  message: string;
  param?: string;
  issues?: Issue[];
  /** Extra headers (`Allow`, `WWW-Authenticate`). */
  headers?: Record<string, string>;
};

const JSON_TYPE = "application/json; charset=utf-8";

/**
 * A JSON answer from text that is already serialized (used for replays, byte for byte).
 *
 * @internal
 */
export function jsonText(status: number, text: string, requestId: string, extra?: Record<string, string>): Outgoing {
  const headers: Record<string, string> = { "content-type": JSON_TYPE, "cache-control": "no-store", "request-id": requestId };
  if (extra) Object.assign(headers, extra);
  return { status, headers, body: text };
}

/**
 * The web `Response` of an answer.
 *
 * @internal
 */
export function toResponse(out: Outgoing): Response {
  return new Response(out.body, { status: out.status, headers: out.headers });
}

/** Anything shaped like (the start of) an API key: `ck_live_` or `ck_test_` and what follows it. */
const KEY_LIKE = /ck_(live|test)_[A-Za-z0-9_-]+/g;

/**
 * Masks every API-key-shaped run in a JSON text down to its prefix (`ck_test_...`), so that a key
 * pasted into any field (a model id, a field name, a quote's kind) is never echoed back in an
 * error or a quote message (S1, S2). The mask keeps the JSON valid: a key holds no quote or backslash.
 *
 * @internal
 */
export function redactKeys(text: string): string {
  return text.includes("ck_") ? text.replace(KEY_LIKE, "ck_$1_...") : text;
}

/**
 * A JSON answer. Every such body (errors, quotes, ping, credits) has key-shaped text masked; the
 * 202 body of a generation is written by {@link jsonText} and echoes the accepted prompt as sent.
 *
 * @internal
 */
export function json(status: number, body: unknown, requestId: string, extra?: Record<string, string>): Outgoing {
  return jsonText(status, redactKeys(JSON.stringify(body)), requestId, extra);
}

/**
 * The answer to a rejected request.
 *
 * @internal
 */
export function failure(requestId: string, f: Failure): Outgoing {
  // Built field by field so that the JSON keeps this order: message, code, param, issues, requestId.
  const error = { message: f.message, code: f.code } as ErrorBody["error"];
  if (f.param !== undefined) error.param = f.param;
  if (f.issues !== undefined) error.issues = f.issues;
  error.requestId = requestId;
  return json(SERVER_ERRORS[f.code], { error }, requestId, f.headers);
}

/**
 * The 400 of a request that breaks request rules: every issue, `param` naming the first (S12).
 *
 * @internal
 */
export function invalidRequest(requestId: string, issues: Issue[]): Outgoing {
  return failure(requestId, {
    code: "invalid_request",
    message: m.invalidRequest(issues.length),
    param: issues[0]?.path ?? "",
    issues,
  });
}
