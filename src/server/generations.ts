/**
 * `POST /api/generations` end to end (S2-S5, S8, S12): normalize and validate with the core, replay
 * or refuse a reused idempotency key, authorize every reference, price the task from the authorized
 * count, commit it, and render its 202 body from the stored task.
 */
import { computeCharge } from "../pricing/computeCharge.js";
import { InvalidRequestError } from "../pricing/errors.js";
import { normalizeRequest } from "../request/normalizeRequest.js";
import { validateForModel } from "../request/validateForModel.js";
import type { GenerationRequest } from "../types.js";
import type { Caller } from "./auth.js";
import type { ServerContext } from "./createReferenceServer.js";
import { serverMessages as m } from "./errors.js";
import { failure, type Incoming, invalidRequest, jsonText, type Outgoing, readJsonBody } from "./http.js";
import { jobId, newId } from "./ids.js";
import type { GenerationAccepted } from "./openapi.js";
import type { TaskRecord } from "./store.js";

/** How long an idempotency record lives by default: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The fingerprint of a normalized request: every field but the idempotency key, in a fixed order.
 * Because it is taken after normalizing, an omitted default and the same value sent explicitly
 * (or with extra whitespace) have the same fingerprint.
 *
 * @param request - A normalized request.
 * @returns A string equal for exactly the requests that are the same.
 * @internal
 */
export function fingerprint(request: GenerationRequest): string {
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
 * `POST /api/generations`.
 *
 * @param incoming - The request.
 * @param ctx - The server.
 * @param caller - Who authenticated.
 * @param requestId - This request's id.
 * @returns The 202, a replay, or the failure.
 * @internal
 */
export async function createGeneration(
  incoming: Incoming,
  ctx: ServerContext,
  caller: Caller,
  requestId: string,
): Promise<Outgoing> {
  // Every await of this request is here, before anything is checked against the state.
  const body = await readJsonBody(incoming, ctx.maxBodyBytes);
  if (!body.ok) return failure(requestId, body.failure);

  const normalized = normalizeRequest(body.value, { catalog: ctx.catalog });
  const checked = normalized.success ? validateForModel(normalized.output, ctx.catalog) : normalized;
  if (!checked.success) {
    return invalidRequest(requestId, checked.issues);
  }
  return accept(ctx, caller, requestId, checked.output, body.value as Record<string, unknown>);
}

/**
 * The synchronous step: nothing in here awaits, so two requests with one key cannot interleave
 * between the claim check and the debit (S5), and a rejection leaves the key unused.
 */
function accept(
  ctx: ServerContext,
  caller: Caller,
  requestId: string,
  request: GenerationRequest,
  raw: Record<string, unknown>,
): Outgoing {
  const { store } = ctx;
  const now = ctx.now();
  const clientKey = request.idempotencyKey;

  if (clientKey !== undefined) {
    const record = store.findIdempotency(caller.userId, clientKey, now);
    if (record) {
      const original = store.getTask(record.taskId);
      if (original && fingerprint(original.request) === fingerprint(request)) {
        return jsonText(202, record.body, requestId, { "idempotent-replayed": "true" });
      }
      return failure(requestId, { code: "idempotency_key_reused", message: m.idempotencyKeyReused(), param: "idempotencyKey" });
    }
  }

  // A foreign asset answers exactly like an unknown one (S2).
  const ids = request.inputAssetIds;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as string;
    if (store.assetOwner(id) !== caller.userId) {
      const param = `inputAssetIds[${rawIndex(raw.inputAssetIds, id, i)}]`;
      return failure(requestId, { code: "asset_not_found", message: m.assetNotFound(param, id), param });
    }
  }

  const user = store.getUser(caller.userId);
  if (!user) return failure(requestId, { code: "invalid_api_key", message: m.invalidApiKey() });
  let jobCredits: number[];
  try {
    const charge = computeCharge(request, {
      account: { multiplier: user.multiplier },
      referenceCount: ids.length, // every listed reference was authorized above (P6)
      catalog: ctx.catalog,
    });
    jobCredits = charge.lines.map((line) => line.credits);
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    return invalidRequest(requestId, error.issues);
  }

  const task: TaskRecord = {
    id: newId.task(),
    userId: caller.userId,
    createdAt: now,
    request: clientKey === undefined ? { ...request, idempotencyKey: newId.idempotencyKey() } : request,
    clientKey: clientKey !== undefined,
    referenceCount: ids.length,
    multiplier: user.multiplier,
    catalogVersion: ctx.catalog.version,
    jobCredits,
    jobStatus: jobCredits.map(() => "queued" as const),
    balanceAfter: 0,
  };
  const result = store.commitTask(
    {
      task,
      render: renderAccepted,
      ...(clientKey === undefined ? {} : { claim: { key: clientKey, expiresAt: now + ctx.idempotencyTtlMs } }),
    },
    now,
  );
  if (result.ok) return jsonText(202, result.body, requestId);
  if (result.reason === "insufficient_credits") {
    let total = 0;
    for (const credits of jobCredits) total += credits;
    return failure(requestId, { code: "insufficient_credits", message: m.insufficientCredits(total, result.balance) });
  }
  if (result.reason === "idempotency_key_taken") {
    // Only a store shared by several processes gets here; the claim above saw no record.
    return failure(requestId, { code: "idempotency_key_reused", message: m.idempotencyKeyReused(), param: "idempotencyKey" });
  }
  return failure(requestId, { code: "invalid_api_key", message: m.invalidApiKey() });
}

/**
 * Where a (de-duplicated, trimmed) reference sat in the body the client sent, so that `param`
 * points into what the client wrote: `[" a", "a", "b"]` reports `b` at `inputAssetIds[2]`.
 */
function rawIndex(raw: unknown, id: string, fallback: number): number {
  if (!Array.isArray(raw)) return fallback;
  for (let i = 0; i < raw.length; i++) {
    const value: unknown = raw[i];
    if (typeof value === "string" && value.trim() === id) return i;
  }
  return fallback;
}

/**
 * Serializes the 202 body of a task as accepted: every job `queued`, no assets yet.
 *
 * @param task - The task, with its `balanceAfter`.
 * @returns The JSON text.
 * @internal
 */
export function renderAccepted(task: TaskRecord): string {
  const r = task.request;
  let totalCreditCost = 0;
  const results: GenerationAccepted["batch"]["results"] = [];
  for (let i = 0; i < task.jobCredits.length; i++) {
    totalCreditCost += task.jobCredits[i] ?? 0;
    results.push({ job: { id: jobId(task.id, i), status: "queued" }, assets: [] });
  }
  const balanceAfterCredits = task.balanceAfter;
  const body: GenerationAccepted = {
    batch: {
      taskId: task.id,
      request: {
        imageCount: r.imageCount,
        modelId: r.modelId,
        aspectRatio: r.aspectRatio,
        resolution: r.resolution,
        prompt: r.prompt,
      },
      results,
      totalCreditCost,
      balanceAfterCredits,
    },
    billing: { totalCreditCost, balanceAfterCredits },
  };
  return JSON.stringify(body);
}
