/**
 * The admin token: which tokens are accepted, how a presented one is compared (in constant time,
 * by digest), and the guard of every admin route, which throttles wrong tokens per client address.
 */
import type { MiddlewareHandler } from "hono";
import { addressKey, clientAddress } from "./address.js";
import { bearerToken, hashApiKey } from "./auth.js";
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
 * The shortest admin token: even one chosen by hand is not found by trying (wrong ones are
 * throttled besides). @internal
 */
export const MIN_ADMIN_TOKEN_CHARS = 16;
/** The longest admin token: long enough for any generated secret, short enough to hash cheaply. */
const MAX_TOKEN_CHARS = 256;

/**
 * How wrong admin tokens are throttled, per client address: after `failures` wrong tokens within
 * `windowMs` of the first, every admin request from that address is answered 429
 * `too_many_attempts` (with `Retry-After`) until the window ends, the right token included, so a
 * guess made then tells nothing. A right token before that clears the count. @internal
 */
export const ADMIN_TOKEN_THROTTLE = { failures: 10, windowMs: 60_000 } as const;

/**
 * The most addresses whose wrong tokens are counted at once; past it the oldest count is dropped.
 */
const MAX_THROTTLED_ADDRESSES = 10_000;
const TOKEN_SHAPE = new RegExp(`^[A-Za-z0-9_-]{${MIN_ADMIN_TOKEN_CHARS},${MAX_TOKEN_CHARS}}$`);

/**
 * Checks an admin token: 16 to 256 characters of `A-Z a-z 0-9 _ -` (what `Authorization: Bearer`
 * carries as is, and a run that every echo and log line hides by its shape, so a token put in a
 * path never comes back), not starting with `ck_`, so that it can never be taken for an API key.
 *
 * @throws AdminTokenError (a TypeError) naming what is wrong and the allowed lengths, never the
 * token.
 * @internal
 */
export function checkAdminToken(token: unknown): string {
  const refuse = (message: string) =>
    new AdminTokenError(message, MIN_ADMIN_TOKEN_CHARS, MAX_TOKEN_CHARS);
  if (typeof token !== "string" || !TOKEN_SHAPE.test(token)) {
    // How many characters are outside the set, never which.
    const outside = typeof token === "string" ? [...token.replace(/[A-Za-z0-9_-]/g, "")].length : 0;
    const count =
      typeof token === "string"
        ? `${token.length} character${token.length === 1 ? "" : "s"}`
        : typeof token;
    const strays = outside > 0 ? `, ${outside} of them outside that set` : "";
    throw refuse(
      `adminToken must be ${MIN_ADMIN_TOKEN_CHARS} to ${MAX_TOKEN_CHARS} characters of ` +
        `A-Z, a-z, 0-9, _ and -; received ${count}${strays}.`,
    );
  }
  if (/^ck_/i.test(token)) {
    throw refuse(
      'adminToken must not start with "ck_": that is how API keys start, and the admin ' +
        "token is not one.",
    );
  }
  return token;
}

/**
 * Counts wrong admin tokens per client address key ({@link ADMIN_TOKEN_THROTTLE}): `locked` is the
 * seconds left in a full window, or 0; `failed` and `passed` record a wrong and a right token.
 */
function createTokenThrottle() {
  const { failures, windowMs } = ADMIN_TOKEN_THROTTLE;
  const byAddress = new Map<string, { start: number; failures: number }>();
  const current = (key: string, now: number) => {
    const entry = byAddress.get(key);
    if (entry && (now - entry.start >= windowMs || now < entry.start)) {
      byAddress.delete(key); // the window is over (or the clock went back): a new count
      return undefined;
    }
    return entry;
  };
  return {
    locked(key: string, now: number): number {
      const entry = current(key, now);
      if (!entry || entry.failures < failures) {
        return 0;
      }
      return Math.max(1, Math.ceil((entry.start + windowMs - now) / 1000));
    },
    failed(key: string, now: number): void {
      const entry = current(key, now);
      if (entry) {
        entry.failures++;
        return;
      }
      if (byAddress.size >= MAX_THROTTLED_ADDRESSES) {
        for (const [k, e] of byAddress) {
          if (now - e.start >= windowMs) {
            byAddress.delete(k);
          }
        }
        // Still full: drop the oldest count, so the map stays bounded whatever the addresses.
        if (byAddress.size >= MAX_THROTTLED_ADDRESSES) {
          byAddress.delete(byAddress.keys().next().value as string);
        }
      }
      byAddress.set(key, { start: now, failures: 1 });
    },
    passed(key: string): void {
      byAddress.delete(key);
    },
  };
}

/**
 * Whether two strings are equal, in time that depends only on their length, not on where they
 * differ: used on SHA-256 digests, which always have the same length, so nothing of the token
 * leaks. @internal
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) {
    return false;
  }
  let diff = 0;
  for (let i = 0; i < a.length; i++) {
    diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  }
  return diff === 0;
}

const ADMIN_CHALLENGE = { "www-authenticate": 'Bearer realm="admin"' };

/**
 * The guard of every admin route: an address that sent too many wrong tokens is refused (429)
 * before its token is read; then the token, without which no admin route says more than 401. The
 * SHA-256 digests are compared in constant time, so neither the token's length nor where a guess
 * differs shows in the timing. The throttle's window runs on the clock's real time. @internal
 */
export function adminGuard(token: string, clock: ServerClock): MiddlewareHandler<Env> {
  let expected: string | Promise<string> | undefined;
  const throttle = createTokenThrottle();

  return async (c, next) => {
    const address = addressKey(clientAddress(c.env, c.req.raw));
    const wait = throttle.locked(address, clock.realNow());
    if (wait > 0) {
      return fail(c, {
        code: "too_many_attempts",
        message: m.tooManyAdminAttempts(
          ADMIN_TOKEN_THROTTLE.failures,
          ADMIN_TOKEN_THROTTLE.windowMs / 1000,
          wait,
        ),
        headers: { "retry-after": String(wait) },
      });
    }
    const presented = bearerToken(c.req.header("authorization"));
    if (typeof presented !== "string") {
      return fail(c, {
        code: "missing_admin_token",
        message: m.missingAdminToken(),
        headers: ADMIN_CHALLENGE,
      });
    }
    expected ??= hashApiKey(token);
    if (!constantTimeEqual(await hashApiKey(presented), await expected)) {
      throttle.failed(address, clock.realNow());
      return fail(c, {
        code: "invalid_admin_token",
        message: m.invalidAdminToken(),
        headers: ADMIN_CHALLENGE,
      });
    }
    throttle.passed(address);
    await next();
  };
}
