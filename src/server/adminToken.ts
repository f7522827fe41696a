/**
 * The admin token: which tokens are accepted, how a presented one is compared (in constant time,
 * by digest), and the guard of every admin route, which throttles wrong tokens per client address.
 */
import type { MiddlewareHandler } from "hono";
import { addressKey, clientAddress } from "./address.js";
import { hashApiKey } from "./auth.js";
import type { ServerClock } from "./clock.js";
import type { Env } from "./context.js";
import { fail } from "./errors.js";
import { serverMessages as m } from "./messages.js";

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

/**
 * The shortest admin token: 16 characters, on every address, so that even one chosen by hand is not
 * found by trying (and wrong tokens are throttled per address besides, {@link ADMIN_TOKEN_THROTTLE}).
 *
 * @internal
 */
export const MIN_ADMIN_TOKEN_CHARS = 16;
/** The longest admin token: long enough for any generated secret, short enough to hash cheaply. */
const MAX_TOKEN_CHARS = 256;

/**
 * How wrong admin tokens are throttled, per client address: after `failures` wrong tokens within
 * `windowMs` of the first, every admin request from that address is answered 429
 * `too_many_attempts` (with `Retry-After`) until the window ends, the right token included, so a
 * guess made then tells nothing. A right token before that clears the count.
 *
 * @internal
 */
export const ADMIN_TOKEN_THROTTLE = { failures: 10, windowMs: 60_000 } as const;

/** The most addresses whose wrong tokens are counted at once; past it the oldest count is dropped. */
const MAX_THROTTLED_ADDRESSES = 10_000;
/**
 * The key alphabet only: what a header carries as is, and a run that every echo and log line hides
 * by its shape (16 or more such characters), so a token put in a path never comes back.
 */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+$/;

/**
 * Checks an admin token: 16 to 256 characters of `A-Z a-z 0-9 _ -` (what `Authorization: Bearer`
 * carries as is, and what echoes and logs hide by shape), not starting with `ck_`, so that it can
 * never be taken for an API key or one for it.
 *
 * @param token - The token the operator chose.
 * @returns The token.
 * @throws AdminTokenError (a TypeError) naming what is wrong and the allowed lengths, never the token.
 * @internal
 */
export function checkAdminToken(token: unknown): string {
  const refuse = (message: string) => new AdminTokenError(message, MIN_ADMIN_TOKEN_CHARS, MAX_TOKEN_CHARS);
  if (
    typeof token !== "string" ||
    token.length < MIN_ADMIN_TOKEN_CHARS ||
    token.length > MAX_TOKEN_CHARS ||
    !TOKEN_SHAPE.test(token)
  ) {
    const received = typeof token === "string" ? `${token.length} character${token.length === 1 ? "" : "s"}` : typeof token;
    throw refuse(
      `adminToken must be ${MIN_ADMIN_TOKEN_CHARS} to ${MAX_TOKEN_CHARS} characters of A-Z, a-z, 0-9, _ and -; received ${received}.`,
    );
  }
  if (/^ck_/i.test(token)) {
    throw refuse('adminToken must not start with "ck_": that is how API keys start, and the admin token is not one.');
  }
  return token;
}

/** The count of wrong admin tokens from one address, in its window. */
type Attempts = { start: number; failures: number };

/**
 * Counts wrong admin tokens per client address ({@link ADMIN_TOKEN_THROTTLE}) on the server's clock.
 *
 * @returns `locked(address, now)`: the seconds left in a full window, or 0; `failed` and `passed`
 *   record a wrong and a right token.
 * @internal
 */
function createTokenThrottle() {
  const { failures, windowMs } = ADMIN_TOKEN_THROTTLE;
  const byAddress = new Map<string, Attempts>();
  const current = (key: string, now: number): Attempts | undefined => {
    const entry = byAddress.get(key);
    if (entry && (now - entry.start >= windowMs || now < entry.start)) {
      byAddress.delete(key); // the window is over (or the clock went back): a new count
      return undefined;
    }
    return entry;
  };
  return {
    locked(address: string | undefined, now: number): number {
      const entry = current(addressKey(address), now);
      if (!entry || entry.failures < failures) return 0;
      return Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000));
    },
    failed(address: string | undefined, now: number): void {
      const key = addressKey(address);
      const entry = current(key, now);
      if (entry) {
        entry.failures++;
        return;
      }
      if (byAddress.size >= MAX_THROTTLED_ADDRESSES) {
        for (const [k, e] of byAddress) if (now - e.start >= windowMs) byAddress.delete(k);
        // Still full: drop the oldest count, so the map stays bounded whatever the addresses.
        if (byAddress.size >= MAX_THROTTLED_ADDRESSES) byAddress.delete(byAddress.keys().next().value as string);
      }
      byAddress.set(key, { start: now, failures: 1 });
    },
    passed(address: string | undefined): void {
      byAddress.delete(addressKey(address));
    },
  };
}

/**
 * Compares two strings in time that depends only on their length, not on where they differ: used
 * on SHA-256 digests, which always have the same length, so nothing about the token leaks.
 *
 * @param a - A digest as hex.
 * @param b - Another digest as hex.
 * @returns Whether they are equal.
 * @internal
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const ADMIN_CHALLENGE = { "www-authenticate": 'Bearer realm="admin"' };

/**
 * The guard of every admin route: an address that sent too many wrong tokens is refused (429)
 * before its token is read; then the token, without which no admin route says more than 401. The
 * token's SHA-256 is compared with the presented one's, in constant time, so neither the token's
 * length nor where a guess differs shows in the timing.
 *
 * @param token - The admin token, checked by {@link checkAdminToken}.
 * @param clock - The server's clock: the throttle's window runs on real time.
 * @returns The middleware.
 * @internal
 */
export function adminGuard(token: string, clock: ServerClock): MiddlewareHandler<Env> {
  let expected: string | Promise<string> | undefined;
  const throttle = createTokenThrottle();

  return async (c, next) => {
    const address = clientAddress(c.env, c.req.raw);
    const wait = throttle.locked(address, clock.realNow());
    if (wait > 0) {
      return fail(c, {
        code: "too_many_attempts",
        message: m.tooManyAdminAttempts(ADMIN_TOKEN_THROTTLE.failures, ADMIN_TOKEN_THROTTLE.windowMs / 1000, wait),
        headers: { "retry-after": String(wait) },
      });
    }
    const header = c.req.header("authorization");
    const space = header === undefined ? -1 : header.search(/[ \t]/);
    if (header === undefined || space < 0 || header.slice(0, space).toLowerCase() !== "bearer") {
      return fail(c, {
        code: "missing_admin_token",
        message: "Send the admin token as Authorization: Bearer <admin token>.",
        headers: ADMIN_CHALLENGE,
      });
    }
    expected ??= hashApiKey(token);
    const presented = header.slice(space + 1).trim();
    if (!constantTimeEqual(await hashApiKey(presented), await expected)) {
      throttle.failed(address, clock.realNow());
      return fail(c, {
        code: "invalid_admin_token",
        message: "The admin token is not valid. API keys are not accepted here: only the server's admin token.",
        headers: ADMIN_CHALLENGE,
      });
    }
    throttle.passed(address);
    await next();
  };
}
