/**
 * The admin HTTP API under `/admin/`: the operator's methods (users, keys, assets, multipliers,
 * grants, failing jobs, balances, the ledger) for test suites in any language, authorized by an
 * admin token that is never an API key, with the service's error shape.
 */
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { parseMultiplier } from "../pricing/multiplier.js";
import type { Issue } from "../types.js";
import type { Admin } from "./admin.js";
import type { ServerContext } from "./createReferenceServer.js";
import { AdminError, type AdminErrorCode, AdminTokenError, boundIssues, cut, serverMessages as m } from "./errors.js";
import { addressKey, failure, type Incoming, json, jsonText, type Outgoing, readJsonBody } from "./http.js";
import { MAX_CREDITS } from "./store.js";

/**
 * Every `error.code` the admin API answers with, beyond the service's own (`invalid_json`,
 * `not_found`, `method_not_allowed`, `payload_too_large`, `unsupported_media_type`,
 * `internal_error`, `service_unavailable`), with its status.
 */
export const ADMIN_ERRORS = {
  invalid_request: 400, // a body field is missing, unknown or invalid; see `issues`
  missing_admin_token: 401, // no Authorization: Bearer header
  invalid_admin_token: 401, // anything but the admin token, API keys included
  unknown_user: 404,
  unknown_api_key: 404,
  unknown_job: 404,
  unknown_task: 404,
  too_many_attempts: 429, // too many wrong admin tokens from one address; with Retry-After
} as const;

/** Codes of {@link ADMIN_ERRORS}. */
export type AdminHttpErrorCode = keyof typeof ADMIN_ERRORS;

/** The handler of every request under `/admin/`. @internal */
export type AdminHttp = (incoming: Incoming, ctx: ServerContext, requestId: string) => Promise<Outgoing>;

/**
 * The shortest admin token: 16 characters, on every address, so that even one chosen by hand is not
 * found by trying (and wrong tokens are throttled per address besides, {@link ADMIN_TOKEN_THROTTLE}).
 */
export const MIN_ADMIN_TOKEN_CHARS = 16;
/** The longest admin token: long enough for any generated secret, short enough to hash cheaply. */
const MAX_TOKEN_CHARS = 256;

/**
 * How wrong admin tokens are throttled, per client address: after `failures` wrong tokens within
 * `windowMs` of the first, every admin request from that address is answered 429
 * `too_many_attempts` (with `Retry-After`) until the window ends, the right token included, so a
 * guess made then tells nothing. A right token before that clears the count.
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

type Json = Record<string, unknown>;
/** A field's check: `undefined` when fine, else the issue's code and message. */
type FieldCheck = (value: unknown) => { code: string; message: string } | undefined;

/** What a route does with its body: none (empty or `{}`), optional (empty means `{}`) or required (a JSON object). */
type BodyKind = "none" | "optional" | "required";

type AdminRoute = {
  readonly method: "GET" | "POST" | "PUT";
  readonly body: BodyKind;
  /** The body's fields, each with its check; `required` ones must be present. */
  readonly fields?: Readonly<Record<string, { check: FieldCheck; required?: boolean }>>;
  /** Answers with a status and a JSON value; `secret: true` when the value holds a key (not masked). */
  readonly run: (
    admin: Admin,
    params: readonly string[],
    body: Json,
  ) => Promise<{ status: number; body: unknown; secret?: true }>;
};

const credits: FieldCheck = (value) => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    return { code: "invalid_credits", message: m.invalidCredits(value) };
  }
  if (value > MAX_CREDITS) return { code: "credits_too_large", message: m.creditsTooLarge(value, 0) };
  return undefined;
};
const multiplier: FieldCheck = (value) =>
  parseMultiplier(value) ? undefined : { code: "invalid_multiplier", message: m.invalidMultiplier(value) };
const mode: FieldCheck = (value) =>
  value === "live" || value === "test" ? undefined : { code: "invalid_mode", message: m.invalidMode(value) };

/** Every route, by its path under `/admin/`; `:id` is one path segment. */
const ROUTES: readonly (readonly [pattern: string, route: AdminRoute])[] = [
  [
    "users",
    {
      method: "POST",
      body: "required",
      fields: { credits: { check: credits, required: true }, multiplier: { check: multiplier } },
      run: async (admin, _, body) => ({
        status: 201,
        body: await admin.createUser(body as { credits: number; multiplier?: string | number }),
      }),
    },
  ],
  ["users/:id", { method: "GET", body: "none", run: async (admin, [id = ""]) => ({ status: 200, body: await admin.user(id) }) }],
  [
    "users/:id/api-keys",
    {
      method: "POST",
      body: "optional",
      fields: { mode: { check: mode } },
      run: async (admin, [id = ""], body) => ({
        status: 201,
        body: await admin.createApiKey(id, body.mode === undefined ? {} : { mode: body.mode as "live" | "test" }),
        secret: true,
      }),
    },
  ],
  [
    "users/:id/assets",
    { method: "POST", body: "none", run: async (admin, [id = ""]) => ({ status: 201, body: await admin.createAsset(id) }) },
  ],
  [
    "users/:id/multiplier",
    {
      method: "PUT",
      body: "required",
      fields: { multiplier: { check: multiplier, required: true } },
      run: async (admin, [id = ""], body) => {
        await admin.setPriceMultiplier(id, body.multiplier as string | number);
        return { status: 200, body: { userId: id, multiplier: parseMultiplier(body.multiplier)?.text } };
      },
    },
  ],
  [
    "users/:id/grants",
    {
      method: "POST",
      body: "required",
      fields: { credits: { check: credits, required: true } },
      run: async (admin, [id = ""], body) => {
        await admin.grantCredits(id, body.credits as number);
        // Read after the grant: the balance then, which includes the grant and anything since.
        return { status: 200, body: { userId: id, balance: await admin.balance(id) } };
      },
    },
  ],
  [
    "users/:id/ledger",
    {
      method: "GET",
      body: "none",
      run: async (admin, [id = ""]) => ({ status: 200, body: { entries: await admin.ledger(id) } }),
    },
  ],
  [
    "api-keys/:id/revoke",
    {
      method: "POST",
      body: "none",
      run: async (admin, [id = ""]) => {
        await admin.revokeApiKey(id);
        return { status: 200, body: { apiKeyId: id } };
      },
    },
  ],
  [
    "jobs/:id/fail",
    { method: "POST", body: "none", run: async (admin, [id = ""]) => ({ status: 200, body: await admin.failJob(id) }) },
  ],
  ["jobs/:id", { method: "GET", body: "none", run: async (admin, [id = ""]) => ({ status: 200, body: await admin.job(id) }) }],
  ["tasks/:id", { method: "GET", body: "none", run: async (admin, [id = ""]) => ({ status: 200, body: await admin.task(id) }) }],
];

/** The routes matching a path (one per method at most), with the path's `:id` segments decoded. */
function match(path: string): { routes: AdminRoute[]; params: string[] } | undefined {
  const segments = path.slice("/admin/".length).split("/");
  const routes: AdminRoute[] = [];
  let params: string[] = [];
  for (const [pattern, route] of ROUTES) {
    const parts = pattern.split("/");
    if (parts.length !== segments.length) continue;
    const found: string[] = [];
    const fits = parts.every((part, i) => {
      const segment = segments[i] as string;
      if (part !== ":id") return part === segment;
      if (segment === "") return false;
      try {
        found.push(decodeURIComponent(segment));
        return true;
      } catch {
        return false; // a malformed %-escape names nothing
      }
    });
    if (fits) {
      routes.push(route);
      params = found;
    }
  }
  return routes.length > 0 ? { routes, params } : undefined;
}

/** The answer of an admin-specific failure, in the service's error shape. */
function adminFailure(
  requestId: string,
  code: AdminHttpErrorCode,
  message: string,
  extra: { param?: string; issues?: Issue[]; headers?: Record<string, string> } = {},
): Outgoing {
  const error: Json = { message, code };
  if (extra.param !== undefined) error.param = cut(extra.param, 100);
  if (extra.issues !== undefined) error.issues = boundIssues(extra.issues);
  error.requestId = requestId;
  return json(ADMIN_ERRORS[code], { error }, requestId, extra.headers);
}

const invalid = (requestId: string, issues: Issue[]): Outgoing =>
  adminFailure(requestId, "invalid_request", m.invalidRequest(issues), { param: issues[0]?.path ?? "", issues });

/** The field an admin method's bad-argument code is about. */
const FIELD_OF: Partial<Record<AdminErrorCode, string>> = {
  invalid_credits: "credits",
  credits_too_large: "credits",
  invalid_multiplier: "multiplier",
  invalid_mode: "mode",
};

const ADMIN_CHALLENGE = { "www-authenticate": 'Bearer realm="admin"' };

/** Reads a route's body: `{}` for an empty one where the route allows it, else a JSON object. */
async function readBody(
  incoming: Incoming,
  ctx: ServerContext,
  route: AdminRoute,
  requestId: string,
): Promise<{ ok: true; body: Json } | { ok: false; out: Outgoing }> {
  if (route.method === "GET") return { ok: true, body: {} };
  let source = incoming;
  if (route.body !== "required") {
    // An empty body means `{}`, whatever its media type (curl -X POST sends none, fetch text/plain).
    const bytes = await incoming.readBody(ctx.maxBodyBytes);
    if (bytes instanceof Uint8Array && bytes.byteLength === 0) return { ok: true, body: {} };
    source = {
      method: incoming.method,
      path: incoming.path,
      header: (name) => incoming.header(name),
      readBody: async () => bytes,
    };
  }
  const read = await readJsonBody(source, ctx.maxBodyBytes);
  if (!read.ok) return { ok: false, out: failure(requestId, read.failure) };
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      out: invalid(requestId, [
        { path: "", code: "invalid_type", message: `The body must be a JSON object; received ${show(value)}.` },
      ]),
    };
  }
  const body = value as Json;
  const fields = route.fields ?? {};
  const names = Object.keys(fields);
  const issues: Issue[] = [];
  for (const field of Object.keys(body)) {
    if (Object.hasOwn(fields, field)) continue;
    issues.push({
      path: safeEcho(field),
      code: "unknown_field",
      message:
        names.length === 0
          ? `${show(field)} is not accepted: this request takes no fields.`
          : `${show(field)} is not a field of this request; use ${names.join(", ")}.`,
    });
  }
  for (const [name, field] of Object.entries(fields)) {
    if (body[name] === undefined) {
      if (field.required) issues.push({ path: name, code: "required", message: `${name} is required.` });
      continue;
    }
    const problem = field.check(body[name]);
    if (problem) issues.push({ path: name, ...problem });
  }
  return issues.length > 0 ? { ok: false, out: invalid(requestId, issues) } : { ok: true, body };
}

/**
 * Makes the admin HTTP API for a token. The token's SHA-256 is compared with the presented one's,
 * in constant time, so neither the token's length nor where a guess differs shows in the timing.
 *
 * @param token - The admin token, checked by {@link checkAdminToken}.
 * @param admin - The server's admin methods (asked for at request time).
 * @param documentText - The admin OpenAPI document, serialized (asked for at request time).
 * @returns The handler of every request under `/admin/`.
 * @internal
 */
export function createAdminHttp(token: string, admin: () => Admin, documentText: () => string): AdminHttp {
  let expected: Promise<string> | undefined;
  const digest = async (ctx: ServerContext, text: string) => await ctx.hashApiKey(text);
  const throttle = createTokenThrottle();

  return async (incoming, ctx, requestId) => {
    // An address that sent too many wrong tokens is refused before its token is even read.
    const address = incoming.clientAddress;
    const wait = throttle.locked(address, ctx.now());
    if (wait > 0) {
      return adminFailure(
        requestId,
        "too_many_attempts",
        m.tooManyAdminAttempts(ADMIN_TOKEN_THROTTLE.failures, ADMIN_TOKEN_THROTTLE.windowMs / 1000, wait),
        {
          headers: { "retry-after": String(wait) },
        },
      );
    }
    // The token first: without it, nothing under /admin/ says more than 401.
    const header = incoming.header("authorization");
    const space = header === null ? -1 : header.search(/[ \t]/);
    if (header === null || space < 0 || header.slice(0, space).toLowerCase() !== "bearer") {
      return adminFailure(requestId, "missing_admin_token", "Send the admin token as Authorization: Bearer <admin token>.", {
        headers: ADMIN_CHALLENGE,
      });
    }
    expected ??= digest(ctx, token);
    const presented = header.slice(space + 1).trim();
    if (!constantTimeEqual(await digest(ctx, presented), await expected)) {
      throttle.failed(address, ctx.now());
      return adminFailure(
        requestId,
        "invalid_admin_token",
        "The admin token is not valid. API keys are not accepted here: only the server's admin token.",
        { headers: ADMIN_CHALLENGE },
      );
    }
    throttle.passed(address);

    const path = incoming.path;
    const method = incoming.method === "HEAD" ? "GET" : incoming.method;
    if (path === "/admin/openapi.json") {
      if (method === "GET") return jsonText(200, documentText(), requestId);
      return failure(requestId, {
        code: "method_not_allowed",
        message: m.methodNotAllowed(incoming.method, ["GET", "HEAD"]),
        headers: { allow: "GET, HEAD" },
      });
    }
    const found = match(path);
    if (!found) return failure(requestId, { code: "not_found", message: m.notFound(path) });
    const route = found.routes.find((r) => r.method === method);
    if (!route) {
      const methods = found.routes.flatMap((r) => (r.method === "GET" ? ["GET", "HEAD"] : [r.method]));
      return failure(requestId, {
        code: "method_not_allowed",
        message: m.methodNotAllowed(incoming.method, methods),
        headers: { allow: methods.join(", ") },
      });
    }

    const read = await readBody(incoming, ctx, route, requestId);
    if (!read.ok) return read.out;
    try {
      const answer = await route.run(admin(), found.params, read.body);
      // A new API key is the one answer that must carry a key: every other one is masked as usual.
      return answer.secret
        ? jsonText(answer.status, JSON.stringify(answer.body), requestId)
        : json(answer.status, answer.body, requestId);
    } catch (error) {
      if (!(error instanceof AdminError)) throw error;
      const field = FIELD_OF[error.code];
      if (field !== undefined) return invalid(requestId, [{ path: field, code: error.code, message: error.message }]);
      return adminFailure(requestId, error.code as AdminHttpErrorCode, error.message);
    }
  };
}
