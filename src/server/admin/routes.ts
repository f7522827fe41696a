/**
 * The admin HTTP API mounted under `/admin`: the operator's methods (users, keys, assets,
 * multipliers, grants, failing jobs, balances, the ledger) as routes for test suites in any
 * language, each body checked field by field, with the service's error shape.
 */
import { safeEcho } from "../../echo.js";
import { show } from "../../messages.js";
import { parseMultiplier } from "../../pricing/multiplier.js";
import { MAX_CREDITS } from "../../store/store.js";
import type { Issue } from "../../types.js";
import type { Endpoint, Mount, RouteTable, ServerContext } from "../context.js";
import type { AdminHttpErrorCode } from "../errors.js";
import type { Incoming } from "../http/incoming.js";
import { json, jsonText, type Outgoing } from "../http/respond.js";
import { serverMessages as m } from "../messages.js";
import { createAdminOpenApiDocument } from "../openapi/admin.js";
import { invalidAdminRequest, readAdminObject } from "./body.js";
import { CONTROL_ROUTES } from "./controls.js";
import { faultRoutes } from "./faults.js";
import { type Admin, AdminError, type AdminErrorCode } from "./methods.js";
import { adminFailure, createAdminGuard } from "./token.js";

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

/** The field an admin method's bad-argument code is about. */
const FIELD_OF: Partial<Record<AdminErrorCode, string>> = {
  invalid_credits: "credits",
  credits_too_large: "credits",
  invalid_multiplier: "multiplier",
  invalid_mode: "mode",
};

/** Reads a route's body: `{}` for an empty one where the route allows it, else a JSON object. */
async function readBody(
  incoming: Incoming,
  ctx: ServerContext,
  route: AdminRoute,
  requestId: string,
): Promise<{ ok: true; body: Json } | { ok: false; out: Outgoing }> {
  if (route.method === "GET") return { ok: true, body: {} };
  const read = await readAdminObject(incoming, ctx, requestId, route.body !== "required");
  if (!read.ok) return read;
  const body: Json = read.body;
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
  return issues.length > 0 ? { ok: false, out: invalidAdminRequest(requestId, issues) } : { ok: true, body };
}

/** The admin document, serialized once, when first asked for. */
let documentText: string | undefined;

/**
 * An admin route as an endpoint: its body read and checked, then the admin method, whose
 * bad-argument errors become 400 (naming the field) or 404.
 */
function endpoint(route: AdminRoute, admin: () => Admin): Endpoint {
  return {
    method: route.method,
    answer: async (incoming, ctx, requestId, params) => {
      const read = await readBody(incoming, ctx, route, requestId);
      if (!read.ok) return read.out;
      try {
        const answer = await route.run(admin(), params, read.body);
        // A new API key is the one answer that must carry a key: every other one is masked as usual.
        return answer.secret
          ? jsonText(answer.status, JSON.stringify(answer.body), requestId)
          : json(answer.status, answer.body, requestId);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        const field = FIELD_OF[error.code];
        if (field !== undefined)
          return invalidAdminRequest(requestId, [{ path: field, code: error.code, message: error.message }]);
        return adminFailure(requestId, error.code as AdminHttpErrorCode, error.message);
      }
    },
  };
}

/**
 * The admin API as a part of the router, mounted under `/admin`: the token's guard, the admin
 * document at `/admin/openapi.json`, and every route.
 *
 * @param token - The admin token, checked by `checkAdminToken`.
 * @param admin - The server's admin methods (asked for at request time).
 * @returns The mount.
 * @internal
 */
export function adminMount(token: string, admin: () => Admin): Mount {
  const routes: RouteTable = [
    [
      "/admin/openapi.json",
      {
        method: "GET",
        answer: async (_incoming, _ctx, requestId) => {
          documentText ??= JSON.stringify(createAdminOpenApiDocument());
          return jsonText(200, documentText, requestId);
        },
      },
    ],
    ...ROUTES.map(([pattern, route]) => [`/admin/${pattern}`, endpoint(route, admin)] as const),
    ...CONTROL_ROUTES,
    ...faultRoutes(admin),
  ];
  return { prefix: "/admin", guard: createAdminGuard(token), routes };
}
