/**
 * API keys (S1, S2): how a key is made, how it is kept (only its SHA-256), how the `Authorization`
 * header is read, and how a request is authenticated. Web Crypto by default, so the server stays
 * runtime-neutral.
 */
import type { ApiKeyMode, CallerRecord } from "../store/store.js";
import type { Caller, ServerContext } from "./context.js";
import type { Failure } from "./errors.js";
import { randomBase64Url } from "./ids.js";
import { serverMessages as m } from "./messages.js";

/** The prefix of each mode's keys. */
export const API_KEY_PREFIXES = { live: "ck_live_", test: "ck_test_" } as const satisfies Record<ApiKeyMode, string>;

/** Random bytes in a key: 192 bits, well above the 128 a secret key needs. */
const KEY_RANDOM_BYTES = 24;

/**
 * What a well-formed key looks like. Looser than what {@link generateApiKey} makes (32 characters),
 * so a later, longer key format still reads; the length cap keeps hashing bounded.
 */
const KEY_SHAPE = /^ck_(?:live|test)_[A-Za-z0-9_-]{16,256}$/;

/**
 * Makes a new secret API key: the mode's prefix and 192 random bits in base64url.
 *
 * @param mode - `"live"` or `"test"`.
 * @returns The whole key; it is shown once and never stored.
 * @internal
 */
export function generateApiKey(mode: ApiKeyMode): string {
  return API_KEY_PREFIXES[mode] + randomBase64Url(KEY_RANDOM_BYTES);
}

const encoder = new TextEncoder();

/**
 * The SHA-256 of a key as lowercase hex (Web Crypto): the only form in which a key is kept.
 *
 * @param key - The whole key.
 * @returns 64 hex characters.
 * @internal
 */
export async function hashApiKey(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(key)));
  let out = "";
  for (const byte of digest) out += byte.toString(16).padStart(2, "0");
  return out;
}

/** What the `Authorization` header carries, before any lookup. @internal */
export type Credential =
  | { kind: "missing" } // no header, or a scheme other than Bearer (S1: API keys only)
  | { kind: "malformed" } // Bearer, but not shaped like one of our keys
  | { kind: "key"; key: string };

/**
 * Reads `Authorization: Bearer <key>`; the scheme is case-insensitive (RFC 9110), the key is not.
 * Nothing read here is ever echoed back or logged.
 *
 * @param header - The header's value, or `null` when absent.
 * @returns What kind of credential the request carries.
 * @internal
 */
export function readCredential(header: string | null): Credential {
  if (header === null) return { kind: "missing" };
  const space = header.search(/[ \t]/);
  if (space < 0 || header.slice(0, space).toLowerCase() !== "bearer") return { kind: "missing" };
  const key = header.slice(space + 1).trim();
  return KEY_SHAPE.test(key) ? { kind: "key", key } : { kind: "malformed" };
}

const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="api"' };

/** The 401 of a key that is malformed, unknown or revoked. @internal */
export const INVALID_API_KEY: Failure = { code: "invalid_api_key", message: m.invalidApiKey(), headers: BEARER_CHALLENGE };

/**
 * Authenticates a request by its `Authorization` header: the key's SHA-256 is looked up, never the
 * key compared as text.
 *
 * @param header - The `Authorization` header, or `null`.
 * @param ctx - The server (its store and hasher).
 * @returns The caller, or the 401 to answer with.
 * @internal
 */
export async function authenticate(
  header: string | null,
  ctx: ServerContext,
): Promise<{ ok: true; caller: Caller } | { ok: false; failure: Failure }> {
  const credential = readCredential(header);
  if (credential.kind === "missing") {
    return { ok: false, failure: { code: "missing_api_key", message: m.missingApiKey(), headers: BEARER_CHALLENGE } };
  }
  let found: CallerRecord | undefined;
  if (credential.kind === "key") {
    // A synchronous hasher (the Node binding's) answers without a trip through the event loop.
    const hash = ctx.hashApiKey(credential.key);
    // The key and its user's multiplier in one lookup: pricing needs no read of its own.
    found = await ctx.store.findCaller(typeof hash === "string" ? hash : await hash);
  }
  if (!found || found.key.revoked) return { ok: false, failure: INVALID_API_KEY };
  return { ok: true, caller: { userId: found.key.userId, apiKeyId: found.key.id, multiplier: found.multiplier } };
}
