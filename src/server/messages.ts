/**
 * Every sentence the server says, kept together (the core's sentences are in `src/messages.ts`).
 * No message ever contains an API key.
 */
import { show } from "../messages.js";

const list = (values: readonly string[]) => values.join(", ");

/** Shows a value like `show`, but never a secret: something shaped like an API key shows only its prefix. */
function showId(value: unknown): string {
  return typeof value === "string" && /^\s*ck_(?:live|test)_/.test(value)
    ? `"${value.trim().slice(0, 8)}..." (an API key?)`
    : show(value);
}

/** @internal */
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
  unreadableBody: () => "The request body could not be read.",
  invalidRequest: (count: number) =>
    count === 1 ? "The request has 1 problem; see issues." : `The request has ${count} problems; see issues.`,
  assetNotFound: (param: string, id: string) => `${param}: there is no asset ${showId(id)} in this account.`,
  insufficientCredits: (cost: number, balance: number) =>
    `This task costs ${cost} credits and the balance is ${balance}; nothing was charged.`,
  idempotencyKeyReused: () => "This idempotencyKey was already used with a different request; use a new key for a new request.",
  internalError: () => "Something went wrong on our side; nothing was charged for this request.",

  // admin
  invalidCredits: (got: unknown) => `credits must be a non-negative whole number; received ${show(got)}.`,
  invalidMultiplier: (got: unknown) =>
    `multiplier must be a plain decimal from 0 to 1000 (such as "1.15") or a finite number in that range; received ${show(got)}.`,
  invalidMode: (got: unknown) => `mode must be "live" or "test"; received ${show(got)}.`,
  unknown: (what: string, id: unknown) => `There is no ${what} ${showId(id)}.`,
} as const;
