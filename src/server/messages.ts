/**
 * Every sentence the server says (the core's sentences are in `src/messages.ts`); none ever holds
 * an API key.
 */
import { show } from "../messages.js";
import { MAX_MULTIPLIER_CHARS } from "../pricing/multiplier.js";
import type { Issue } from "../types.js";

const list = (values: readonly string[]) => values.join(", ");

/**
 * Shows a value like `show`, but never a secret: something shaped like an API key shows only its
 * prefix.
 */
function showId(value: unknown): string {
  return typeof value === "string" && /^\s*ck_(?:live|test)_/.test(value)
    ? `"${value.trim().slice(0, 8)}..." (an API key?)`
    : show(value);
}

/** Every sentence the server says. @internal */
export const serverMessages = {
  mustBeOneOf: (name: string, allowed: readonly string[], value: unknown) =>
    `${name} must be one of ${list(allowed)}; received ${show(value)}.`,
  journalLimit: (capacity: number, defaultLimit: number, shown: string) =>
    `limit must be a whole number from 1 to ${capacity} (default ${defaultLimit}); ` +
    `received ${shown}.`,
  clockBackward: (at: string, current: string) =>
    `now ${at} is before the clock's now ${current}: the test clock never runs backward; ` +
    `give ${current} or later.`,
  resetTakesNoFields: (field: string) =>
    `${show(field)} is not accepted: a reset takes no fields (send no body or {}).`,
  notFound: (path: string) => `There is no endpoint at ${show(path)}.`,
  methodNotAllowed: (method: string, allowed: readonly string[]) =>
    `${show(method)} is not allowed on this endpoint; use ${list(allowed)}.`,
  missingApiKey: () =>
    "Send an API key as Authorization: Bearer <API_KEY>; this endpoint accepts only " +
    "API-key authentication.",
  invalidApiKey: () => "The API key is not valid: it is malformed, unknown or revoked.",
  unsupportedMediaType: () =>
    "The request body must be JSON: send Content-Type: application/json (UTF-8).",
  payloadTooLarge: (limit: number) =>
    `The request body is larger than the limit of ${limit} bytes.`,
  emptyBody: () => "The request body is empty; send a JSON object.",
  invalidUtf8: () => "The request body is not valid UTF-8.",
  invalidJson: () => "The request body is not valid JSON.",
  jsonTooComplex: (bound: "depth" | "values", limit: number) =>
    bound === "depth"
      ? `The request body is nested more than ${limit} levels deep; no request needs that.`
      : `The request body holds more than ${limit} values; no request needs that.`,
  unreadableBody: () => "The request body could not be read.",
  invalidRequest: (issues: readonly Issue<string>[]) => {
    const count = issues.length;
    if (issues.at(-1)?.code === "too_many_issues") {
      return `The request has more than ${count - 1} problems; see issues.`;
    }
    return count === 1
      ? "The request has 1 problem; see issues."
      : `The request has ${count} problems; see issues.`;
  },
  moreIssues: (rest: number, andMore = false) =>
    `${rest}${andMore ? " or more" : ""} more ` +
    `problem${rest === 1 && !andMore ? " is" : "s are"} not listed; fix those above and ` +
    "send again.",
  assetNotFound: (param: string, id: string) =>
    `${param}: there is no asset ${showId(id)} in this account.`,
  insufficientCredits: (cost: number, balance: number) =>
    `This task costs ${cost} credits and the balance is ${balance}; nothing was charged.`,
  idempotencyKeyReused: () =>
    "This idempotencyKey was already used with a different request; use a new key for a " +
    "new request.",
  idempotencyKeyMismatch: (field: string, header: string) =>
    `The body's idempotencyKey ${show(field)} and the Idempotency-Key header ` +
    `${show(header)} differ; send one key, or the same key in both.`,
  internalError: () => "Something went wrong on our side; nothing was charged for this request.",
  serviceUnavailable: (seconds: number) =>
    "The service cannot reach its data right now; nothing was charged. Retry in " +
    `${seconds} second${seconds === 1 ? "" : "s"}.`,
  noCatalogInForce: (firstVersion: string, seconds: number) =>
    "No prices are in force yet: the first catalog takes effect at " +
    `${firstVersion}T00:00:00.000Z; nothing was charged. Retry in ${seconds} ` +
    `second${seconds === 1 ? "" : "s"}.`,

  // admin
  invalidCredits: (got: unknown) =>
    `credits must be a non-negative whole number; received ${show(got)}.`,
  creditsTooLarge: (credits: number, balance: number, held = 0) => {
    const queued = held > 0 ? `, ${held} held by queued jobs (refunds may return them),` : "";
    const sum =
      balance > 0 || held > 0 ? `a balance of ${balance}${queued} plus ${credits}` : show(credits);
    return (
      `credits: ${sum} would pass the largest exact balance, ${Number.MAX_SAFE_INTEGER} ` +
      "(2^53 - 1); nothing changed."
    );
  },
  invalidMultiplier: (got: unknown) =>
    "multiplier must be a plain decimal from 0 to 1000 of at most " +
    `${MAX_MULTIPLIER_CHARS} characters (such as "1.15") or a finite number in that ` +
    `range; received ${show(got)}.`,
  invalidMode: (got: unknown) => `mode must be "live" or "test"; received ${show(got)}.`,
  unknown: (what: string, id: unknown) => `There is no ${what} ${showId(id)}.`,
  missingAdminToken: () => "Send the admin token as Authorization: Bearer <admin token>.",
  invalidAdminToken: () =>
    "The admin token is not valid. API keys are not accepted here: only the server's admin token.",
  tooManyAdminAttempts: (failures: number, windowSeconds: number, seconds: number) =>
    `This address sent ${failures} wrong admin tokens within ${windowSeconds} seconds; ` +
    `every admin request from it is refused for ${seconds} more ` +
    `second${seconds === 1 ? "" : "s"}.`,
} as const;
