/**
 * API keys (S1, S2): how a key is made and kept (only its SHA-256), how the `Authorization` header
 * is read, and the step that authenticates a request.
 */
import type { MiddlewareHandler } from "hono";
import type { ApiKeyMode } from "../store/store.js";
import type { Env, ServerContext } from "./context.js";
import { type Failure, fail } from "./errors.js";
import { randomBase64Url } from "./ids.js";
import { serverMessages as m } from "./messages.js";

/** The prefix of each mode's keys. */
const API_KEY_PREFIXES = { live: "ck_live_", test: "ck_test_" } as const satisfies Record<
  ApiKeyMode,
  string
>;

/** Random bytes in a key: 192 bits, well above the 128 a secret key needs. */
const KEY_RANDOM_BYTES = 24;

/**
 * What a well-formed key looks like. Looser than what {@link generateApiKey} makes (32 characters),
 * so a later, longer key format still reads; the length cap keeps hashing bounded.
 */
const KEY_SHAPE = /^ck_(?:live|test)_[A-Za-z0-9_-]{16,256}$/;

/**
 * Makes a new secret API key, shown once and never stored: the mode's prefix and 192 random bits in
 * base64url. @internal
 */
export function generateApiKey(mode: ApiKeyMode): string {
  return API_KEY_PREFIXES[mode] + randomBase64Url(KEY_RANDOM_BYTES);
}

/** What of `node:crypto` the hash uses: `hash` is Node 20.12 and later. */
type NodeCrypto = {
  hash?: (algorithm: string, data: string, encoding: "hex") => string;
  createHash: (algorithm: string) => { update(data: string): { digest(encoding: "hex"): string } };
};

/**
 * `node:crypto` where the runtime has it (Node 20.16+, Bun, Deno), found at run time: this module
 * runs in browsers and workers too, where Web Crypto hashes instead.
 */
const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;

const encoder = new TextEncoder();

/**
 * The SHA-256 of a key (or of an admin token) as lowercase hex: the only form in which a key is
 * kept. Synchronous with `node:crypto`, which saves every request a trip through the event loop;
 * Web Crypto's digest where there is no `node:crypto`.
 *
 * @internal
 */
export function hashApiKey(key: string): string | Promise<string> {
  if (nodeCrypto) {
    return (
      nodeCrypto.hash?.("sha256", key, "hex") ??
      nodeCrypto.createHash("sha256").update(key).digest("hex")
    );
  }
  return webCryptoHash(key);
}

/** The SHA-256 of a key as lowercase hex, by Web Crypto. @internal */
export async function webCryptoHash(key: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(key)));
  let out = "";
  for (const byte of digest) {
    out += byte.toString(16).padStart(2, "0");
  }
  return out;
}

/**
 * The token of `Authorization: Bearer <token>`, or `undefined` for no header or another scheme; the
 * scheme is case-insensitive (RFC 9110), the token is not. Nothing read here is ever echoed or
 * logged.
 *
 * @internal
 */
export function bearerToken(header: string | undefined): string | undefined {
  const space = header?.search(/[ \t]/) ?? -1;
  if (header === undefined || space < 0 || header.slice(0, space).toLowerCase() !== "bearer") {
    return undefined;
  }
  return header.slice(space + 1).trim();
}

const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="api"' };

/** The 401 of a key that is malformed, unknown or revoked. @internal */
export const INVALID_API_KEY: Failure = {
  code: "invalid_api_key",
  message: m.invalidApiKey(),
  headers: BEARER_CHALLENGE,
};

/**
 * The first step of every endpoint that takes an API key (S1: no other scheme): the key's SHA-256
 * is looked up (never the key compared as text), with its user's multiplier in the same lookup,
 * and the caller kept as `c.var.caller`; a missing, malformed, unknown or revoked key is the 401,
 * and a key not shaped like one of ours is refused without a lookup.
 *
 * @param ctx - The server's settings: its store.
 * @returns The middleware.
 * @internal
 */
export function apiKey(ctx: ServerContext): MiddlewareHandler<Env> {
  return async (c, next) => {
    const key = bearerToken(c.req.header("authorization"));
    if (typeof key !== "string") {
      return fail(c, {
        code: "missing_api_key",
        message: m.missingApiKey(),
        headers: BEARER_CHALLENGE,
      });
    }
    if (!KEY_SHAPE.test(key)) {
      return fail(c, INVALID_API_KEY);
    }
    const found = await ctx.store.findCaller(await hashApiKey(key));
    if (!found || found.key.revoked) {
      return fail(c, INVALID_API_KEY);
    }
    c.set("caller", {
      userId: found.key.userId,
      apiKeyId: found.key.id,
      multiplier: found.multiplier,
    });
    await next();
  };
}
