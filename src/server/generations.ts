/**
 * `POST /api/generations` end to end (S2-S5, S8, S12, P8): validate the request with the core and
 * the catalog in force, replay or refuse a reused idempotency key, authorize the references, price
 * the task, commit it in one atomic store call, and render its 202 body from the stored task (the
 * first answer and every replay alike).
 */
import type { Context, Handler } from "hono";
import { messages } from "../messages.js";
import { LIMITS } from "../models/lists.js";
import { priceValidated } from "../pricing/computeCharge.js";
import { InvalidRequestError } from "../pricing/errors.js";
import { checkRequest } from "../request/checkRequest.js";
import { charLength } from "../request/fields.js";
import {
  type CommitInput,
  StoreUnavailableError,
  type TaskDraft,
  type TaskRecord,
} from "../store/store.js";
import type { GenerationRequest, Issue, Result } from "../types.js";
import { INVALID_API_KEY } from "./auth.js";
import type { Caller, Env, ServerContext } from "./context.js";
import { fail, invalidRequest, json } from "./errors.js";
import { jobId, newId } from "./ids.js";
import { serverMessages as m } from "./messages.js";

/**
 * `POST /api/generations`, once the key and the body are read (S12): request rules, idempotency,
 * assets, balance, then the commit; the 202, a replay, or the failure.
 *
 * @internal
 */
export function createGeneration(ctx: ServerContext): Handler<Env> {
  return async (c) => {
    const { caller, body: raw } = c.var;
    // One instant and one catalog for the whole request (P8): what validates it is what prices it.
    // Before a history's first catalog this throws, and the server answers 503.
    const now = ctx.clock.now();
    const { catalog } = ctx.catalogs.at(now);
    // Shape and model limits in one pass, every issue at once (N, V, N15).
    const checked = checkRequest(raw, { catalog });
    const header = headerKey(c.req.header("idempotency-key"), raw, checked);
    if (!checked.success || header.issue) {
      return invalidRequest(c, withIssue(checked.success ? [] : checked.issues, header.issue));
    }
    const request =
      header.key === undefined ? checked.output : { ...checked.output, idempotencyKey: header.key };

    // One store call decides in the order S12 fixes: a live claim (replay or 409), the references,
    // the multiplier this was priced with, the key, the balance. Priced first, with the multiplier
    // authentication read; a multiplier changed since is priced again.
    const clientKey = request.idempotencyKey;
    const ids = request.inputAssetIds;
    const taskId = newId.task(caller.userId);
    const stored =
      clientKey === undefined ? { ...request, idempotencyKey: newId.idempotencyKey() } : request;
    const ttl = ctx.idempotencyTtlMs;
    const claim =
      clientKey === undefined
        ? undefined
        : { key: clientKey, ...(ttl !== undefined && { expiresAt: now + ttl }) };
    let multiplier = caller.multiplier;
    for (let attempt = 1; ; attempt++) {
      let charge: ReturnType<typeof priceValidated>;
      try {
        // Validated above with this catalog: priced without a second pass over the limits.
        charge = priceValidated(request, {
          account: { multiplier },
          // The commit refuses the task unless every reference is the caller's (P6).
          referenceCount: ids.length,
          catalog,
        });
      } catch (error) {
        if (!(error instanceof InvalidRequestError)) {
          throw error;
        }
        return unpriceable(c, error, request, raw, ctx, caller, now);
      }
      const task: TaskDraft = {
        id: taskId,
        userId: caller.userId,
        createdAt: now,
        request: stored,
        clientKey: clientKey !== undefined,
        referenceCount: ids.length,
        multiplier,
        catalogVersion: catalog.version,
        jobCredits: charge.lines.map((line) => line.credits),
        totalCredits: charge.totalCreditCost,
      };
      const commit: CommitInput = {
        task,
        apiKeyId: caller.apiKeyId,
        assetIds: ids,
        ...(claim && { claim }),
      };
      const result = await ctx.store.commitTask(commit, now);
      if (result.ok) {
        return json(c, 202, renderAccepted(result.task));
      }
      switch (result.reason) {
        case "idempotency_key_taken": // a retry, or a concurrent twin that committed first
          return replayOrConflict(c, result.task, request, raw, ctx);
        case "asset_not_found": // a foreign asset answers exactly like an unknown one (S2)
          return assetNotFound(c, raw, ids, result.index);
        case "multiplier_changed":
          // Changed between authentication and the commit: priced again, a bounded number of times.
          if (attempt >= MAX_PRICING_ATTEMPTS) {
            throw new StoreUnavailableError(
              `the multiplier of ${caller.userId} changed during ${attempt} commits`,
            );
          }
          multiplier = result.multiplier;
          c.set("caller", { ...caller, multiplier });
          continue;
        case "insufficient_credits":
          return fail(c, {
            code: "insufficient_credits",
            message: m.insufficientCredits(task.totalCredits, result.balance),
          });
        // The key was revoked (or its user removed) while the request was in flight: nothing
        // charged (S15).
        default:
          return fail(c, INVALID_API_KEY);
      }
    }
  };
}

/** Commits tried with a fresh price when the multiplier keeps changing under a request. */
const MAX_PRICING_ATTEMPTS = 3;

/**
 * The 400 of the reference at `index` of the normalized (de-duplicated, trimmed) list, `param`
 * pointing into what the client wrote (S2): `[" a", "a", "b"]` reports `b` at `inputAssetIds[2]`.
 */
function assetNotFound(
  c: Context<Env>,
  raw: unknown,
  ids: readonly string[],
  index: number,
): Response {
  const id = ids[index] ?? "";
  const sent = (raw as Record<string, unknown>).inputAssetIds;
  const at = Array.isArray(sent)
    ? sent.findIndex((value: unknown) => typeof value === "string" && value.trim() === id)
    : -1;
  const param = `inputAssetIds[${at < 0 ? index : at}]`;
  return fail(c, { code: "asset_not_found", message: m.assetNotFound(param, id), param });
}

/**
 * The answer to a request that cannot be priced, in the order S12 fixes: a replay (or 409) of the
 * task its key already holds, else its first foreign reference, else why it cannot be priced. Each
 * is a read of its own, only on this rare path.
 */
async function unpriceable(
  c: Context<Env>,
  error: InvalidRequestError,
  request: GenerationRequest,
  raw: unknown,
  ctx: ServerContext,
  caller: Caller,
  now: number,
): Promise<Response> {
  const clientKey = request.idempotencyKey;
  if (clientKey !== undefined) {
    const claimed = await ctx.store.findClaimedTask(caller.userId, clientKey, now);
    if (claimed) {
      return replayOrConflict(c, claimed, request, raw, ctx);
    }
  }
  const ids = request.inputAssetIds;
  if (ids.length > 0) {
    const owned = await ctx.store.ownedAssets(caller.userId, ids);
    const index = ids.findIndex((id) => !owned.has(id));
    if (index >= 0) {
      return assetNotFound(c, raw, ids, index);
    }
  }
  return invalidRequest(c, error.issues);
}

/**
 * Reads the `Idempotency-Key` header (S5): the key of a body that has none, checked by the same
 * rules as the body field (trimmed, 1 to 128 code points). A body that has its own key must carry
 * the same one: a header and a field that disagree are refused rather than one of them ignored,
 * which would charge a retry twice. Only the header's key is returned; the body's own is in the
 * checked request already.
 */
function headerKey(
  value: string | undefined,
  raw: unknown,
  checked: Result<GenerationRequest>,
): { key?: string; issue?: Issue<string> } {
  if (value === undefined) {
    return {};
  }
  const refuse = (code: string, message: string) => ({
    issue: { path: "idempotencyKey", code, message },
  });
  const key = value.trim();
  const length = charLength(key);
  if (key === "") {
    return refuse("too_short", messages.blank("The Idempotency-Key header"));
  }
  if (length > LIMITS.idempotencyKeyMaxChars) {
    return refuse(
      "too_long",
      messages.tooLong("The Idempotency-Key header", LIMITS.idempotencyKeyMaxChars, length),
    );
  }
  const field =
    typeof raw === "object" && raw !== null
      ? (raw as Record<string, unknown>).idempotencyKey
      : undefined;
  if (field === undefined) {
    return { key };
  }
  // The body's own key is checked by the request rules; only a well-formed one is compared.
  if (
    typeof field !== "string" ||
    (!checked.success && checked.issues.some((i) => i.path === "idempotencyKey"))
  ) {
    return {};
  }
  return field.trim() === key
    ? {}
    : refuse("idempotency_key_mismatch", m.idempotencyKeyMismatch(field.trim(), key));
}

/** The issues with one more, kept before a trailing `too_many_issues` count. */
function withIssue(issues: Issue<string>[], issue: Issue<string> | undefined): Issue<string>[] {
  if (!issue) {
    return issues;
  }
  const last = issues.at(-1);
  return last?.code === "too_many_issues"
    ? [...issues.slice(0, -1), issue, last]
    : [...issues, issue];
}

/**
 * The answer to a request whose idempotency key already points at a task: the task's own 202 again
 * when the request is the same, a 409 when it is not. "The same" is judged as the body reads now
 * and, for a task charged under another catalog, as it read under that one (P8): a retry that
 * leaves a default out stays a retry when a later catalog changed the default.
 */
function replayOrConflict(
  c: Context<Env>,
  task: TaskRecord,
  request: GenerationRequest,
  raw: unknown,
  ctx: ServerContext,
): Response {
  const stored = fingerprint(task.request);
  let same = stored === fingerprint(request);
  if (!same) {
    const then = ctx.catalogs.byVersion(task.catalogVersion);
    const before = then === undefined ? undefined : checkRequest(raw, { catalog: then });
    same = before?.success === true && fingerprint(before.output) === stored;
  }
  if (same) {
    return json(c, 202, renderAccepted(task), { "idempotent-replayed": "true" });
  }
  return fail(c, {
    code: "idempotency_key_reused",
    message: m.idempotencyKeyReused(),
    param: "idempotencyKey",
  });
}

/**
 * The fingerprint of a normalized request: every field but the idempotency key, in a fixed order.
 * Taken after normalizing, it is the same for an omitted default and the value sent explicitly (or
 * with extra whitespace).
 */
function fingerprint(request: GenerationRequest): string {
  return JSON.stringify([
    request.prompt,
    request.modelId,
    request.generationType,
    request.aspectRatio,
    request.resolution,
    request.quality,
    request.background,
    request.imageCount,
    request.inputAssetIds,
  ]);
}

/**
 * Serializes the 202 body of a stored task: every job `queued`, no assets yet. Everything in it
 * comes from the task as committed, so a replay renders the first answer byte for byte.
 *
 * @internal
 */
export function renderAccepted(task: TaskRecord): string {
  const { request, jobCredits } = task;
  const money = { totalCreditCost: task.totalCredits, balanceAfterCredits: task.balanceAfter };
  return JSON.stringify({
    batch: {
      taskId: task.id,
      request: {
        imageCount: request.imageCount,
        modelId: request.modelId,
        aspectRatio: request.aspectRatio,
        resolution: request.resolution,
        prompt: request.prompt,
      },
      results: jobCredits.map((_, index) => ({
        job: { id: jobId(task.id, index), status: "queued" },
        assets: [],
      })),
      ...money,
    },
    billing: money,
  });
}
