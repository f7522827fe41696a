/**
 * The examples of both OpenAPI documents: one account's answers, made by the same pricing,
 * validation and sentences the handlers use, so that a mock built from a document answers with the
 * prices, ids and messages a real server gives. What a catalog prices comes from `catalogExamples`,
 * which a server on another catalog runs too.
 */
import type { Catalog } from "../../src/models/modelSpec.js";
import { parseQuoteSpec } from "../../src/pricing/quoteSpec.js";
import { checkRequest } from "../../src/request/checkRequest.js";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/server/body.js";
import { jobId } from "../../src/server/ids.js";
import { serverMessages as m } from "../../src/server/messages.js";
import {
  catalogExamples,
  EXAMPLE_IDS,
  EXAMPLE_MULTIPLIER as MULTIPLIER,
  OPENING_BALANCE,
} from "../../src/server/openapi/document.js";
import type { Issue, Result } from "../../src/types.js";

const { userId, apiKeyId, assetId, taskId, faultId } = EXAMPLE_IDS;

/** A media type's example: one value, or several by name (a mock answers with the first). */
type Media = { example: unknown } | { examples: Record<string, { value: unknown }> };
const one = (value: unknown): Media => ({ example: value });
const named = (values: Record<string, unknown>): Media => ({
  examples: Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { value }])),
});

const GRANTED = 250;
const CREATED_AT = "2026-11-23T09:30:00.000Z";
const issue = (path: string, code: string, message: string): readonly Issue<string>[] => [
  { path, code, message },
];
const issuesOf = (result: Result<unknown>) => (result.success ? [] : result.issues);

/**
 * The examples of one account: it asks for a generation and a quote of the catalog's default model,
 * priced by that catalog, then the operator fails one of its jobs and grants it credits.
 *
 * @param catalog - The catalog that prices the service's examples.
 * @returns Each body's example by component name, and the error answer of an operation with a code.
 * @internal
 */
export function createExamples(catalog: Catalog) {
  const priced = catalogExamples(catalog);
  const { request, perImage, total, balance, jobs } = priced;
  const generation = priced.bodies.GenerationRequest;
  const { modelId, aspectRatio, background, resolution, quality } = request;
  const job = (i: number, status: "queued" | "failed") => ({
    jobId: jobId(taskId, i),
    taskId,
    status,
    credits: perImage,
  });
  const fault = {
    kind: "unavailable",
    method: "POST",
    path: "/api/generations",
    retryAfterMs: 3000,
  } as const;
  const journal = {
    requestId: "req_5c0e2b9a1f3d7e68",
    method: "POST",
    path: "/api/generations",
    status: 202,
    at: CREATED_AT,
  };

  const bodies = {
    GenerationRequest: one(generation),
    GenerationAccepted: one(priced.bodies.GenerationAccepted),
    QuoteSpec: named(priced.bodies.QuoteSpec),
    Quote: named(priced.bodies.Quote),
    Ping: one({
      ok: true,
      service: "imagegen-pricing-reference",
      authProvider: "api_key",
      userId,
      apiKeyId,
    }),
    Credits: one(priced.bodies.Credits),

    NewUser: one({ credits: OPENING_BALANCE, multiplier: MULTIPLIER }),
    CreatedUser: one({ userId }),
    User: one({ userId, balance, multiplier: MULTIPLIER }),
    NewApiKey: one({ mode: "test" }),
    CreatedApiKey: one({ apiKeyId, key: "ck_test_4fJq9TzX2mLr7WcY1bNv8KdH5sQp3GaE" }),
    CreatedAsset: one({ assetId }),
    MultiplierChange: one({ multiplier: MULTIPLIER }),
    MultiplierSet: one({ userId, multiplier: MULTIPLIER }),
    Grant: one({ credits: GRANTED }),
    Balance: one({ userId, balance: balance + perImage + GRANTED }),
    Ledger: one({
      entries: [
        { kind: "grant", credits: OPENING_BALANCE, at: "2026-11-23T09:00:00.000Z" },
        { kind: "debit", credits: total, at: CREATED_AT, taskId },
        {
          kind: "refund",
          credits: perImage,
          at: "2026-11-23T09:45:00.000Z",
          taskId,
          jobId: jobId(taskId, 0),
        },
      ],
    }),
    RevokedApiKey: one({ apiKeyId }),
    Job: one(job(0, "queued")),
    Refund: one({ refundedCredits: perImage }),
    Task: one({
      taskId,
      userId,
      createdAt: CREATED_AT,
      aspectRatio,
      resolution,
      quality,
      background,
      referenceCount: 0,
      multiplier: MULTIPLIER,
      catalogVersion: catalog.version,
      totalCreditCost: total,
      jobs: jobs.map((i) => job(i, i === 0 ? "failed" : "queued")),
      request,
      clientIdempotencyKey: true,
    }),
    ResetRequest: named({ empty: {} }),
    ResetDone: named({ reset: { reset: true, clock: { now: CREATED_AT, frozen: false } } }),
    Clock: named({ frozen: { now: "2027-01-01T00:00:00.000Z", frozen: true } }),
    ClockChange: named({
      now: { now: "2027-01-01T00:00:00Z" },
      advanceMs: { advanceMs: 86_400_000 },
      frozen: { frozen: false },
    }),
    NewFault: one({ ...fault, times: 2 }),
    FaultId: one({ faultId }),
    Faults: one({ faults: [{ faultId, ...fault, timesLeft: 2 }] }),
    FaultsCleared: one({ removed: 1 }),
    Journal: one({
      requests: [
        { ...journal, durationMs: 3.2, apiKeyId, idempotencyKey: generation.idempotencyKey },
      ],
    }),
    Document: one({
      openapi: "3.1.0",
      info: { title: "Admin API of the imagegen-pricing reference server", version: "1" },
    }),
  };

  const errors: Record<string, [message: string, param?: string]> = {
    invalid_json: [m.invalidJson()],
    asset_not_found: [
      m.assetNotFound("inputAssetIds[0]", "ast_0b7e9c4d2a1f3e58"),
      "inputAssetIds[0]",
    ],
    missing_api_key: [m.missingApiKey()],
    invalid_api_key: [m.invalidApiKey()],
    insufficient_credits: [priced.insufficientCredits],
    idempotency_key_reused: [m.idempotencyKeyReused(), "idempotencyKey"],
    payload_too_large: [m.payloadTooLarge(DEFAULT_MAX_BODY_BYTES)],
    unsupported_media_type: [m.unsupportedMediaType()],
    service_unavailable: [m.serviceUnavailable(1)],
    missing_admin_token: [m.missingAdminToken()],
    invalid_admin_token: [m.invalidAdminToken()],
    too_many_attempts: [m.tooManyAdminAttempts(10, 60, 42)],
    unknown_user: [m.unknown("user", userId)],
    unknown_api_key: [m.unknown("API key", apiKeyId)],
    unknown_job: [m.unknown("job", jobId(taskId, 0))],
    unknown_task: [m.unknown("task", taskId)],
    unknown_fault: [m.unknown("fault", faultId)],
    not_found: [m.notFound("/api/generation")],
    method_not_allowed: [m.methodNotAllowed("GET", ["POST"])],
    internal_error: [m.internalError()],
  };
  // What each operation's invalid_request example finds wrong, by operation id.
  const invalid: Record<string, readonly Issue<string>[]> = {
    createGeneration: issuesOf(
      checkRequest({ prompt: " ", modelId: modelId, resolution: "8K" }, { catalog }),
    ),
    quotePrice: issuesOf(
      parseQuoteSpec({ kind: "image", modelId: modelId, referenceImageCount: "2" }),
    ),
    createUser: issue("credits", "invalid_credits", m.invalidCredits(-1)),
    createApiKey: issue("mode", "invalid_mode", m.invalidMode("prod")),
    setMultiplier: issue("multiplier", "invalid_multiplier", m.invalidMultiplier("1,15")),
    grantCredits: issue("credits", "invalid_credits", m.invalidCredits(2.5)),
    reset: issue("keep", "unknown_field", m.resetTakesNoFields("keep")),
    setClock: issue(
      "now",
      "clock_backward",
      m.clockBackward("2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"),
    ),
    addFault: issue(
      "kind",
      "invalid_kind",
      m.mustBeOneOf("kind", ["unavailable", "internal", "delay", "lose_answer"], "explode"),
    ),
    listRequests: issue("limit", "invalid_limit", m.journalLimit(1000, 100, "0")),
  };
  /** The error answer of an operation with a code, as the server writes it. */
  const failure = (code: string, operationId: string) => {
    const issues = code === "invalid_request" ? invalid[operationId] : undefined;
    const [message, param] = issues
      ? [m.invalidRequest(issues), issues[0]?.path]
      : (errors[code] ?? []);
    return { error: { message, code, param, issues, requestId: "req_2c0b44b53bb54e0b" } };
  };
  return { bodies: bodies as Record<string, Media>, failure };
}
