/**
 * The operator's side of a reference server (S13, S17): the admin methods (users, keys, assets,
 * multipliers, grants, failing jobs, balances, the ledger, reset and the test clock) and, with an
 * admin token, the same as HTTP routes under `/admin/`, each body checked field by field.
 */
import type { Handler, Hono, MiddlewareHandler } from "hono";
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { parseMultiplier } from "../pricing/multiplier.js";
import { type ApiKeyMode, MAX_CREDITS } from "../store/store.js";
import type { GenerationRequest, Issue } from "../types.js";
import { generateApiKey, hashApiKey } from "./auth.js";
import { jsonBody } from "./body.js";
import { type ClockChange, type ClockView, isoInstant } from "./clock.js";
import type { AdminRoute, Env, ServerContext } from "./context.js";
import type { FaultInput, FaultView, RequestRecord } from "./controls.js";
import { AdminError, type AdminHttpErrorCode, fail, invalidRequest, json } from "./errors.js";
import { jobId, newId, parseJobId } from "./ids.js";
import { serverMessages as m } from "./messages.js";
import { createAdminOpenApiDocument } from "./openapi/admin.js";

/** One movement of credits, as `admin.ledger(userId)` returns it. */
export type LedgerEntry = {
  kind: "grant" | "debit" | "refund";
  /** Positive whole credits; `kind` gives the direction. */
  credits: number;
  /** ISO 8601 time of the movement. */
  at: string;
  taskId?: string;
  jobId?: string;
};

/** A job as the operator sees it: `failed` once failed (and refunded), else `queued`. */
export type JobView = {
  jobId: string;
  taskId: string;
  status: "queued" | "failed";
  credits: number;
};

/** A task as stored (S8): ratio, resolution, quality, background, per-job charges, the request. */
export type TaskView = {
  taskId: string;
  userId: string;
  createdAt: string;
  aspectRatio: GenerationRequest["aspectRatio"];
  resolution: GenerationRequest["resolution"];
  quality: GenerationRequest["quality"];
  background: GenerationRequest["background"];
  referenceCount: number;
  multiplier: string;
  catalogVersion: string;
  totalCreditCost: number;
  jobs: JobView[];
  /**
   * The complete normalized request, with the idempotency key (the server's when the client sent
   * none).
   */
  request: GenerationRequest;
  /** Whether the idempotency key came from the client. */
  clientIdempotencyKey: boolean;
};

/** A user as the operator sees it: balance and price multiplier. */
export type UserView = {
  userId: string;
  /** Whole credits. */
  balance: number;
  /** The multiplier as an exact plain decimal (`"1.15"`). */
  multiplier: string;
};

/**
 * The admin methods of a reference server; each returns a Promise and rejects with an `AdminError`.
 */
export type Admin = {
  /** Adds a user with a grant of `credits` (0 to 2^53 - 1) and a multiplier (default 1). */
  createUser(input: { credits: number; multiplier?: string | number }): Promise<{ userId: string }>;
  /**
   * Makes an API key for a user (`ck_test_` unless `mode: "live"`); the whole key is returned only
   * here.
   */
  createApiKey(
    userId: string,
    options?: { mode?: "live" | "test" },
  ): Promise<{ apiKeyId: string; key: string }>;
  /**
   * Revokes a key; revoking it again does nothing. A request already in flight with it is not
   * charged.
   */
  revokeApiKey(apiKeyId: string): Promise<void>;
  /** Adds an asset owned by a user. */
  createAsset(userId: string): Promise<{ assetId: string }>;
  /** Sets a user's price multiplier (P4); tasks already accepted keep their charges (S7). */
  setPriceMultiplier(userId: string, multiplier: string | number): Promise<void>;
  /**
   * Adds credits to a user (a `grant` ledger entry); the balance plus the credits its queued jobs
   * hold stays at most 2^53 - 1.
   */
  grantCredits(userId: string, credits: number): Promise<void>;
  /** Fails a job and refunds its stored charge, once (S6). */
  failJob(jobId: string): Promise<{ refundedCredits: number }>;
  /** A user's balance. */
  balance(userId: string): Promise<number>;
  /** A user's balance and multiplier. */
  user(userId: string): Promise<UserView>;
  /** A user's ledger: grants, debits and refunds, oldest first (S13). */
  ledger(userId: string): Promise<LedgerEntry[]>;
  /** A task as stored (S8). */
  task(taskId: string): Promise<TaskView>;
  /** A job. */
  job(jobId: string): Promise<JobView>;
  /**
   * Empties the state (users, keys, assets, tasks, jobs, ledger) and loads the fixtures the server
   * was started with again, with the clock back on real time, faults and journal cleared (S17): one
   * step, after the requests in flight and before those that arrive meanwhile.
   */
  reset(): Promise<void>;
  /** The test clock: its now and whether it is frozen. */
  clock(): Promise<ClockView>;
  /**
   * Freezes the test clock at an instant (`{ now }`, not before its now), moves it forward
   * (`{ advanceMs }`), or freezes it where it is or sets it running (`{ frozen }`); rejects with an
   * `AdminError` (`invalid_clock`) naming the field, and then the clock is unchanged.
   */
  setClock(change: ClockChange): Promise<ClockView>;
  /**
   * Adds a fault (S17): the next `times` service requests it matches, once their key is checked,
   * are answered 503 or 500, late, or not at all (see `FaultInput`). Needs an admin token.
   */
  addFault(fault: FaultInput): Promise<{ faultId: string }>;
  /** The faults still waiting, oldest first, each with how many times it still fires. */
  faults(): Promise<FaultView[]>;
  /** Removes a fault (`unknown_fault` when there is none). */
  removeFault(faultId: string): Promise<void>;
  /** Removes every fault. */
  clearFaults(): Promise<{ removed: number }>;
  /**
   * The last requests to the service's endpoints, newest first (`limit` 1 to 1000, default 100).
   * Needs an admin token.
   */
  requests(options?: { limit?: number }): Promise<RequestRecord[]>;
};

/**
 * Checks credits: a whole number, not negative (`invalid_credits`), at most 2^53 - 1
 * (`credits_too_large`).
 */
function checkCredits(credits: unknown): number {
  if (typeof credits !== "number" || !Number.isInteger(credits) || credits < 0) {
    throw new AdminError("invalid_credits", m.invalidCredits(credits));
  }
  if (credits > MAX_CREDITS) {
    throw new AdminError("credits_too_large", m.creditsTooLarge(credits, 0));
  }
  return credits;
}

function checkMultiplier(multiplier: unknown): string {
  const parsed = parseMultiplier(multiplier);
  if (!parsed) {
    throw new AdminError("invalid_multiplier", m.invalidMultiplier(multiplier));
  }
  return parsed.text;
}

/** How many times a fresh random id is drawn again when the store says it is taken. */
const ID_ATTEMPTS = 3;

/**
 * Creates the admin methods over a server's state, with the test-double controls' methods.
 * @internal
 */
export function createAdmin(
  ctx: ServerContext,
  controls: Pick<Admin, "addFault" | "faults" | "removeFault" | "clearFaults" | "requests">,
): Admin {
  const { store, clock } = ctx;
  const userOrThrow = async (userId: string) => {
    const user = await store.getUser(userId);
    if (!user) {
      throw new AdminError("unknown_user", m.unknown("user", userId));
    }
    return user;
  };
  /**
   * Stores a new record under a fresh random id, drawing again in the (2^-64) case of a collision.
   */
  const withFreshId = async (
    make: () => string,
    put: (id: string) => Promise<boolean>,
  ): Promise<string> => {
    for (let attempt = 1; ; attempt++) {
      const id = make();
      if (await put(id)) {
        return id;
      }
      if (attempt >= ID_ATTEMPTS) {
        throw new Error(`no free id after ${ID_ATTEMPTS} attempts`);
      }
    }
  };

  return {
    ...controls,
    async createUser(input) {
      const credits = checkCredits((input as { credits?: unknown } | undefined)?.credits);
      const multiplier = checkMultiplier(input.multiplier);
      const at = clock.now();
      const userId = await withFreshId(newId.user, (id) =>
        store.createUser({ id, credits, multiplier }, at),
      );
      return { userId };
    },
    async createApiKey(userId, options) {
      const mode: unknown = options?.mode ?? "test";
      if (mode !== "live" && mode !== "test") {
        throw new AdminError("invalid_mode", m.invalidMode(mode));
      }
      await userOrThrow(userId);
      const key = generateApiKey(mode);
      const hash = await hashApiKey(key);
      const apiKeyId = await withFreshId(newId.apiKey, (id) =>
        store.putApiKey({ id, userId, mode, hash, revoked: false }),
      );
      return { apiKeyId, key };
    },
    async revokeApiKey(apiKeyId) {
      if (!(await store.revokeApiKey(apiKeyId))) {
        throw new AdminError("unknown_api_key", m.unknown("API key", apiKeyId));
      }
    },
    async createAsset(userId) {
      await userOrThrow(userId);
      const assetId = await withFreshId(newId.asset, (id) => store.putAsset(id, userId));
      return { assetId };
    },
    async setPriceMultiplier(userId, multiplier) {
      const text = checkMultiplier(multiplier);
      if (!(await store.setMultiplier(userId, text))) {
        throw new AdminError("unknown_user", m.unknown("user", userId));
      }
    },
    async grantCredits(userId, credits) {
      const checked = checkCredits(credits);
      const result = await store.grant(userId, checked, clock.now());
      if (result.ok) {
        return;
      }
      if (result.reason === "unknown_user") {
        throw new AdminError("unknown_user", m.unknown("user", userId));
      }
      throw new AdminError(
        "credits_too_large",
        m.creditsTooLarge(checked, result.balance, result.held),
      );
    },
    async failJob(id) {
      const parsed = parseJobId(id);
      const refundedCredits =
        parsed && (await store.failJob(parsed.taskId, parsed.index, clock.now()));
      if (refundedCredits === undefined) {
        throw new AdminError("unknown_job", m.unknown("job", id));
      }
      return { refundedCredits };
    },
    async balance(userId) {
      return (await userOrThrow(userId)).balance;
    },
    async user(userId) {
      const { id, balance, multiplier } = await userOrThrow(userId);
      return { userId: id, balance, multiplier };
    },
    async ledger(userId) {
      const records = await store.ledger(userId);
      if (!records) {
        throw new AdminError("unknown_user", m.unknown("user", userId));
      }
      return records.map((record) => {
        const entry: LedgerEntry = {
          kind: record.kind,
          credits: record.credits,
          at: isoInstant(record.at),
        };
        if (record.taskId !== undefined) {
          entry.taskId = record.taskId;
        }
        if (record.taskId !== undefined && record.jobIndex !== undefined) {
          entry.jobId = jobId(record.taskId, record.jobIndex);
        }
        return entry;
      });
    },
    async task(taskId) {
      const task = await store.getTask(taskId);
      if (!task) {
        throw new AdminError("unknown_task", m.unknown("task", taskId));
      }
      const r = task.request;
      return {
        taskId: task.id,
        userId: task.userId,
        createdAt: isoInstant(task.createdAt),
        aspectRatio: r.aspectRatio,
        resolution: r.resolution,
        quality: r.quality,
        background: r.background,
        referenceCount: task.referenceCount,
        multiplier: task.multiplier,
        catalogVersion: task.catalogVersion,
        totalCreditCost: task.totalCredits,
        jobs: task.jobCredits.map((credits, i) => ({
          jobId: jobId(task.id, i),
          taskId: task.id,
          status: task.jobStatus[i] ?? "queued",
          credits,
        })),
        request: structuredClone(r),
        clientIdempotencyKey: task.clientKey,
      };
    },
    async job(id) {
      const parsed = parseJobId(id);
      const task = parsed && (await store.getTask(parsed.taskId));
      const credits = parsed && task?.jobCredits[parsed.index];
      if (!parsed || !task || credits === undefined) {
        throw new AdminError("unknown_job", m.unknown("job", id));
      }
      return {
        jobId: id,
        taskId: task.id,
        status: task.jobStatus[parsed.index] ?? "queued",
        credits,
      };
    },
    reset: () => ctx.reset(),
    clock: async () => clock.view(),
    async setClock(change) {
      const result = clock.change(change);
      if (!result.ok) {
        throw new AdminError("invalid_clock", result.message);
      }
      return result.view;
    },
  };
}

type Json = Record<string, unknown>;
/** A field's check: `undefined` when fine, else the issue's code and message. */
type FieldCheck = (value: unknown) => { code: string; message: string } | undefined;
type Fields = Readonly<Record<string, { check: FieldCheck; required?: true }>>;

const credits: FieldCheck = (value) => {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    return { code: "invalid_credits", message: m.invalidCredits(value) };
  }
  if (value > MAX_CREDITS) {
    return { code: "credits_too_large", message: m.creditsTooLarge(value, 0) };
  }
  return undefined;
};
const multiplier: FieldCheck = (value) =>
  parseMultiplier(value)
    ? undefined
    : { code: "invalid_multiplier", message: m.invalidMultiplier(value) };
const mode: FieldCheck = (value) =>
  value === "live" || value === "test"
    ? undefined
    : { code: "invalid_mode", message: m.invalidMode(value) };

/** Every issue of a body against a route's fields: unknown, missing and invalid ones. */
function fieldIssues(body: Json, fields: Fields): Issue<string>[] {
  const names = Object.keys(fields);
  const issues: Issue<string>[] = [];
  for (const field of Object.keys(body)) {
    if (Object.hasOwn(fields, field)) {
      continue;
    }
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
      if (field.required) {
        issues.push({ path: name, code: "required", message: `${name} is required.` });
      }
      continue;
    }
    const problem = field.check(body[name]);
    if (problem) {
      issues.push({ path: name, ...problem });
    }
  }
  return issues;
}

/**
 * An admin method as a route's handler: the body's fields checked, then the method, whose
 * bad-argument errors become a 400 naming the field, or a 404.
 */
function run(
  fields: Fields,
  method: (id: string, body: Json) => Promise<[status: number, answer: unknown]>,
): Handler<Env> {
  return async (c) => {
    const body = (c.get("body") ?? {}) as Json;
    const issues = fieldIssues(body, fields);
    if (issues.length > 0) {
      return invalidRequest(c, issues);
    }
    try {
      const [status, answer] = await method(c.req.param("id") ?? "", body);
      return json(c, status, JSON.stringify(answer));
    } catch (error) {
      if (!(error instanceof AdminError)) {
        throw error;
      }
      // The fields were checked above: only a grant's sum can still be refused for its field.
      if (error.code === "credits_too_large") {
        return invalidRequest(c, [{ path: "credits", code: error.code, message: error.message }]);
      }
      return fail(c, { code: error.code as AdminHttpErrorCode, message: error.message });
    }
  };
}

/** The admin methods as routes under `/admin/` (the controls add theirs). */
function methodRoutes(admin: () => Admin, ctx: ServerContext): AdminRoute[] {
  const none: Fields = {};
  return [
    [
      "POST",
      "/admin/users",
      "required",
      run(
        { credits: { check: credits, required: true }, multiplier: { check: multiplier } },
        async (_, body) => [
          201,
          await admin().createUser(body as { credits: number; multiplier?: string | number }),
        ],
      ),
    ],
    ["GET", "/admin/users/:id", "none", run(none, async (id) => [200, await admin().user(id)])],
    [
      "POST",
      "/admin/users/:id/api-keys",
      "object",
      run({ mode: { check: mode } }, async (id, body) => [
        201,
        await admin().createApiKey(
          id,
          body.mode === undefined ? {} : { mode: body.mode as ApiKeyMode },
        ),
      ]),
    ],
    [
      "POST",
      "/admin/users/:id/assets",
      "object",
      run(none, async (id) => [201, await admin().createAsset(id)]),
    ],
    [
      "PUT",
      "/admin/users/:id/multiplier",
      "required",
      run({ multiplier: { check: multiplier, required: true } }, async (id, body) => {
        await admin().setPriceMultiplier(id, body.multiplier as string | number);
        return [200, { userId: id, multiplier: parseMultiplier(body.multiplier)?.text }];
      }),
    ],
    [
      "POST",
      "/admin/users/:id/grants",
      "required",
      run({ credits: { check: credits, required: true } }, async (id, body) => {
        await admin().grantCredits(id, body.credits as number);
        // Read after the grant: the balance then, which includes the grant and anything since.
        return [200, { userId: id, balance: await admin().balance(id) }];
      }),
    ],
    [
      "GET",
      "/admin/users/:id/ledger",
      "none",
      run(none, async (id) => [200, { entries: await admin().ledger(id) }]),
    ],
    [
      "POST",
      "/admin/api-keys/:id/revoke",
      "object",
      run(none, async (id) => {
        await admin().revokeApiKey(id);
        return [200, { apiKeyId: id }];
      }),
    ],
    [
      "POST",
      "/admin/jobs/:id/fail",
      "object",
      run(none, async (id) => [200, await admin().failJob(id)]),
    ],
    ["GET", "/admin/jobs/:id", "none", run(none, async (id) => [200, await admin().job(id)])],
    ["GET", "/admin/tasks/:id", "none", run(none, async (id) => [200, await admin().task(id)])],
    [
      "POST",
      "/admin/reset",
      "object",
      async (c) => {
        const extra = Object.keys(c.get("body") as Json);
        if (extra.length > 0) {
          return invalidRequest(
            c,
            extra.map((field) => ({
              path: safeEcho(field),
              code: "unknown_field",
              message: m.resetTakesNoFields(field),
            })),
          );
        }
        await admin().reset();
        return json(c, 200, JSON.stringify({ reset: true, clock: ctx.clock.view() }));
      },
    ],
    ["GET", "/admin/clock", "none", (c) => json(c, 200, JSON.stringify(ctx.clock.view()))],
    [
      "POST",
      "/admin/clock",
      "object",
      (c) => {
        const result = ctx.clock.change(c.get("body"));
        if (!result.ok) {
          return invalidRequest(c, [
            { path: result.field, code: result.code, message: result.message },
          ]);
        }
        return json(c, 200, JSON.stringify(result.view));
      },
    ],
  ];
}

/** The admin document, serialized once, when first asked for. */
let documentText: string | undefined;

/** Refuses a body that is not a JSON object. */
const objectOnly: MiddlewareHandler<Env> = async (c, next) => {
  const value = c.get("body");
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return invalidRequest(c, [
      {
        path: "",
        code: "invalid_type",
        message: `The body must be a JSON object; received ${show(value)}.`,
      },
    ]);
  }
  await next();
};

/**
 * Adds the admin API to a server's app: every route behind the admin token's guard, checked after
 * its route and method (404, 405) like the service's, and the admin document at
 * `/admin/openapi.json`. The admin methods are asked for at request time. @internal
 */
export function addAdminRoutes(
  app: Hono<Env>,
  guard: MiddlewareHandler<Env>,
  ctx: ServerContext,
  admin: () => Admin,
  controlRoutes: readonly AdminRoute[],
): void {
  app.get("/admin/openapi.json", guard, (c) => {
    documentText ??= JSON.stringify(createAdminOpenApiDocument());
    return json(c, 200, documentText);
  });
  const max = ctx.maxBodyBytes;
  for (const [method, path, body, handler] of [...methodRoutes(admin, ctx), ...controlRoutes]) {
    const read =
      body === "none"
        ? []
        : body === "json"
          ? [jsonBody(max)]
          : [jsonBody(max, body === "object"), objectOnly];
    app.on(method, path, guard, ...read, handler);
  }
}
