/**
 * The examples of both OpenAPI documents: what the server answers, made by the same pricing,
 * validation and sentences the handlers use, so that a mock built from a document (Prism, a client
 * generator's fixtures) answers with prices, ids and messages a real server gives.
 */
import type { Catalog } from "../../models/modelSpec.js";
import { quote } from "../../pricing/quote.js";
import { parseQuoteSpec, type QuoteSpec } from "../../pricing/quoteSpec.js";
import { checkRequest } from "../../request/checkRequest.js";
import type { Issue } from "../../types.js";
import { DEFAULT_MAX_BODY_BYTES } from "../body.js";
import { jobId } from "../ids.js";
import { serverMessages as m } from "../messages.js";

/** One example of a media type: a line that says what it shows, and the body. */
type Example = { summary: string; value: unknown };
/** The named examples of a media type, first the one a mock answers with by default. @internal */
export type Examples = Record<string, Example>;

/** Ids as the server makes them (src/server/ids.ts), fixed so that the documents do not change between builds. */
const EXAMPLE_IDS = {
  userId: "usr_5a0830785b7c5777",
  apiKeyId: "apk_1cf73ac11fd29458",
  assetId: "ast_16f414e12e353edb",
  taskId: "task_625ca9b6334f2d26",
  requestId: "req_2c0b44b53bb54e0b",
} as const;

/** The multiplier of the example account: one that rounds, so the breakdown shows how (P4). */
const MULTIPLIER = "1.15";
/** The example account's balance before the example generation. */
const OPENING_BALANCE = 1000;
/** How many images the example generation asks for. */
const IMAGE_COUNT = 2;
/** How long a 503 asks a client to wait, as the store's outage answer does. */
const RETRY_SECONDS = 1;

/**
 * An error answer's body, its fields in the order the server writes them.
 *
 * @param code - The error code.
 * @param message - The sentence.
 * @param issues - What was wrong, for a 400 `invalid_request`.
 * @param param - The field at fault (default: the first issue's).
 * @returns The body.
 */
function errorBody(code: string, message: string, issues?: readonly Issue[], param = issues?.[0]?.path): unknown {
  return {
    error: {
      message,
      code,
      ...(param === undefined ? {} : { param }),
      ...(issues ? { issues } : {}),
      requestId: EXAMPLE_IDS.requestId,
    },
  };
}

/** An example of an error answer. */
const failed = (summary: string, code: string, message: string, issues?: readonly Issue[], param?: string): Example => ({
  summary,
  value: errorBody(code, message, issues, param),
});

/** The 401s of an API key, shared by every operation of the service. */
const API_KEY_FAILURES: Examples = {
  missing_api_key: failed("No Authorization: Bearer header", "missing_api_key", m.missingApiKey()),
  invalid_api_key: failed("A malformed, unknown or revoked key", "invalid_api_key", m.invalidApiKey()),
};

/** The answers every endpoint that reads a body gives to a body it cannot read. */
const BODY_FAILURES = {
  invalidJson: failed("A body that is not JSON", "invalid_json", m.invalidJson()),
  payloadTooLarge: failed("A body over the default limit", "payload_too_large", m.payloadTooLarge(DEFAULT_MAX_BODY_BYTES)),
  unsupportedMediaType: failed(
    "A body sent without Content-Type: application/json",
    "unsupported_media_type",
    m.unsupportedMediaType(),
  ),
  serviceUnavailable: failed("The store cannot be reached", "service_unavailable", m.serviceUnavailable(RETRY_SECONDS)),
} as const;

/**
 * The examples of the service's document for a catalog: a generation and a quote of its default
 * model, priced by that catalog at the example account's multiplier, and every error answer.
 *
 * @param catalog - The catalog the document is made for.
 * @returns The examples of each request body and answer, by where they go.
 * @internal
 */
export function serviceExamples(catalog: Catalog) {
  const model = catalog.models[catalog.defaultModelId];
  if (!model) throw new RangeError(`The catalog has no model "${catalog.defaultModelId}" (its defaultModelId).`);
  // A catalog's lists are never empty (CatalogSchema), so the first entry is there.
  const resolution = model.defaultResolution ?? (model.resolutions[0] as string);
  const quality = model.qualities.includes("medium") ? "medium" : (model.qualities[0] as string);
  const spec: QuoteSpec = { kind: "image", modelId: model.id, resolution, quality };
  const priced = quote(spec, { account: { multiplier: MULTIPLIER }, catalog });
  if (priced.credits === null) throw new RangeError(`The catalog cannot price its default model: ${priced.message}`);
  const unknownModel: QuoteSpec = { kind: "image", modelId: "delta-video-1" };
  const unpriced = quote(unknownModel, { account: { multiplier: MULTIPLIER }, catalog });

  // A generation of that spec: the charge is the quote's credits per image (P7).
  const total = priced.credits * IMAGE_COUNT;
  const balanceAfter = OPENING_BALANCE - total;
  const prompt = "a lighthouse at dusk, long exposure";
  const generation = { prompt, modelId: model.id, resolution, quality, imageCount: IMAGE_COUNT, idempotencyKey: "order-1042" };
  const billing = { totalCreditCost: total, balanceAfterCredits: balanceAfter };
  const accepted = {
    batch: {
      taskId: EXAMPLE_IDS.taskId,
      request: { imageCount: IMAGE_COUNT, modelId: model.id, aspectRatio: model.defaultAspectRatio, resolution, prompt },
      results: Array.from({ length: IMAGE_COUNT }, (_, i) => ({
        job: { id: jobId(EXAMPLE_IDS.taskId, i), status: "queued" },
        assets: [],
      })),
      ...billing,
    },
    billing,
  };

  // The issues the server's own validation finds in a blank prompt and an unknown resolution.
  const badGeneration = checkRequest({ prompt: " ", modelId: model.id, resolution: "8K" }, { catalog });
  const generationIssues = badGeneration.success ? [] : badGeneration.issues;
  const badSpec = parseQuoteSpec({ kind: "image", modelId: model.id, resolution: "8K" });
  const badQuote = badSpec.success ? [] : badSpec.issues;
  const firstVersion = catalog.version;

  return {
    generationRequest: {
      generation: { summary: `${IMAGE_COUNT} images of ${model.id}, with an idempotency key`, value: generation },
    },
    generationAccepted: {
      accepted: {
        summary: `${IMAGE_COUNT} jobs queued, ${total} credits charged at multiplier ${MULTIPLIER} from ${OPENING_BALANCE}`,
        value: accepted,
      },
    },
    generationErrors: {
      "400": {
        invalid_request: failed(
          "Request rules broken (every issue listed)",
          "invalid_request",
          m.invalidRequest(generationIssues),
          generationIssues,
        ),
        invalid_json: BODY_FAILURES.invalidJson,
        asset_not_found: failed(
          "A reference the caller does not own",
          "asset_not_found",
          m.assetNotFound("inputAssetIds[0]", "ast_0b7e9c4d2a1f3e58"),
          undefined,
          "inputAssetIds[0]",
        ),
      },
      "401": API_KEY_FAILURES,
      "402": {
        insufficient_credits: failed(
          "The balance does not cover the whole task",
          "insufficient_credits",
          m.insufficientCredits(total, balanceAfter < total ? balanceAfter : total - 1),
        ),
      },
      "409": {
        idempotency_key_reused: failed(
          "The key of an earlier, different request",
          "idempotency_key_reused",
          m.idempotencyKeyReused(),
          undefined,
          "idempotencyKey",
        ),
      },
    },
    quoteSpec: {
      priced: { summary: `${model.id} at ${resolution}, ${quality} quality`, value: spec },
      unpriced: { summary: "A model the catalog does not have", value: unknownModel },
    },
    quote: {
      priced: { summary: `The price per image at multiplier ${MULTIPLIER}`, value: priced },
      unpriced: { summary: "No price, and why (never a fallback price)", value: unpriced },
    },
    quoteErrors: {
      "400": {
        invalid_request: failed("A malformed spec", "invalid_request", m.invalidRequest(badQuote), badQuote),
        invalid_json: BODY_FAILURES.invalidJson,
      },
      "401": API_KEY_FAILURES,
    },
    ping: {
      ping: {
        summary: "Who authenticated",
        value: {
          ok: true,
          service: "imagegen-pricing-reference",
          authProvider: "api_key",
          userId: EXAMPLE_IDS.userId,
          apiKeyId: EXAMPLE_IDS.apiKeyId,
        },
      },
    },
    credits: {
      credits: {
        summary: "The balance after the example generation",
        value: { creditBalance: balanceAfter, currency: "credits", userId: EXAMPLE_IDS.userId, apiKeyId: EXAMPLE_IDS.apiKeyId },
      },
    },
    accountErrors: { "401": API_KEY_FAILURES },
    bodyErrors: {
      "413": { payload_too_large: BODY_FAILURES.payloadTooLarge },
      "415": { unsupported_media_type: BODY_FAILURES.unsupportedMediaType },
    },
    unavailable: { service_unavailable: BODY_FAILURES.serviceUnavailable },
    pricingUnavailable: {
      service_unavailable: BODY_FAILURES.serviceUnavailable,
      no_catalog_in_force: failed(
        "A price history whose first catalog is still ahead",
        "service_unavailable",
        m.noCatalogInForce(firstVersion, 3600),
      ),
    },
  } satisfies Record<string, Examples | Record<string, Examples>>;
}

/** The one example of a body. */
const answer = (summary: string, value: unknown): Examples => ({ example: { summary, value } });

/**
 * The examples of the admin document: the example account of the service's document (its user,
 * key, task and charges, priced by the built-in catalog) as the admin API shows it, and every error
 * answer.
 *
 * @param catalog - The built-in catalog, whose prices the charges come from.
 * @returns The examples of each request body and answer, by where they go.
 * @internal
 */
export function adminExamples(catalog: Catalog) {
  const service = serviceExamples(catalog);
  const accepted = service.generationAccepted.accepted.value;
  const request = service.generationRequest.generation.value;
  const perImage = accepted.batch.totalCreditCost / IMAGE_COUNT;
  const { userId, apiKeyId, assetId, taskId } = EXAMPLE_IDS;
  const job0 = jobId(taskId, 0);
  const createdAt = "2026-11-23T09:30:00.000Z";
  const granted = 250;
  const issue = (path: string, code: string, message: string) => [{ path, code, message }];
  const invalid = (path: string, code: string, message: string): Examples => ({
    invalid_request: failed(
      `An invalid ${path}`,
      "invalid_request",
      m.invalidRequest(issue(path, code, message)),
      issue(path, code, message),
    ),
    invalid_json: BODY_FAILURES.invalidJson,
  });
  const job = (index: number, status: "queued" | "failed") => ({
    jobId: jobId(taskId, index),
    taskId,
    status,
    credits: perImage,
  });
  return {
    newUser: answer("An account with 1000 credits and a multiplier that rounds", {
      credits: OPENING_BALANCE,
      multiplier: MULTIPLIER,
    }),
    createdUser: answer("The new user's id", { userId }),
    user: answer("After the service document's example generation", {
      userId,
      balance: accepted.billing.balanceAfterCredits,
      multiplier: MULTIPLIER,
    }),
    newApiKey: answer("A test-mode key (the default)", { mode: "test" }),
    createdApiKey: answer("The key, shown only here", { apiKeyId, key: "ck_test_4fJq9TzX2mLr7WcY1bNv8KdH5sQp3GaE" }),
    createdAsset: answer("The new asset's id, for inputAssetIds", { assetId }),
    multiplierChange: answer("A 15% surcharge", { multiplier: MULTIPLIER }),
    multiplierSet: answer("The multiplier as an exact decimal", { userId, multiplier: MULTIPLIER }),
    grant: answer("A top-up", { credits: granted }),
    balance: answer("The balance after the refund and the grant", {
      userId,
      balance: accepted.billing.balanceAfterCredits + perImage + granted,
    }),
    ledger: answer("The opening grant, the example generation's debit and one job's refund", {
      entries: [
        { kind: "grant", credits: OPENING_BALANCE, at: "2026-11-23T09:00:00.000Z" },
        { kind: "debit", credits: accepted.batch.totalCreditCost, at: createdAt, taskId },
        { kind: "refund", credits: perImage, at: "2026-11-23T09:45:00.000Z", taskId, jobId: job0 },
      ],
    }),
    revokedApiKey: answer("Revoked", { apiKeyId }),
    job: answer("A queued job and its charge", job(0, "queued")),
    refund: answer("The job's charge, refunded once", { refundedCredits: perImage }),
    task: answer("The example generation as stored, one job failed", {
      taskId,
      userId,
      createdAt,
      aspectRatio: accepted.batch.request.aspectRatio,
      resolution: request.resolution,
      quality: request.quality,
      background: "auto",
      referenceCount: 0,
      multiplier: MULTIPLIER,
      catalogVersion: catalog.version,
      totalCreditCost: accepted.batch.totalCreditCost,
      jobs: Array.from({ length: IMAGE_COUNT }, (_, i) => job(i, i === 0 ? "failed" : "queued")),
      request: {
        prompt: request.prompt,
        modelId: request.modelId,
        generationType: "text-to-image",
        aspectRatio: accepted.batch.request.aspectRatio,
        resolution: request.resolution,
        quality: request.quality,
        background: "auto",
        imageCount: IMAGE_COUNT,
        inputAssetIds: [],
        idempotencyKey: request.idempotencyKey,
      },
      clientIdempotencyKey: true,
    }),
    document: answer("This document (abridged)", {
      openapi: "3.1.0",
      info: { title: "Admin API of the imagegen-pricing reference server", version: "1" },
      paths: {},
    }),
    errors: {
      newUser: invalid("credits", "invalid_credits", m.invalidCredits(-1)),
      newApiKey: invalid("mode", "invalid_mode", m.invalidMode("prod")),
      multiplier: invalid("multiplier", "invalid_multiplier", m.invalidMultiplier("1,15")),
      grant: invalid("credits", "invalid_credits", m.invalidCredits(2.5)),
      clock: invalid("now", "clock_backward", m.clockBackward("2026-01-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z")),
      reset: invalid("keep", "unknown_field", m.resetTakesNoFields("keep")),
      fault: invalid(
        "kind",
        "invalid_kind",
        m.mustBeOneOf("kind", ["unavailable", "internal", "delay", "lose_answer"], "explode"),
      ),
      limit: {
        invalid_request: failed(
          "A limit out of range",
          "invalid_request",
          m.invalidRequest(issue("limit", "invalid_limit", m.journalLimit(1000, 100, "0"))),
          issue("limit", "invalid_limit", m.journalLimit(1000, 100, "0")),
        ),
      },
      unknownFault: { unknown_fault: failed("No such fault", "unknown_fault", m.unknown("fault", "flt_3f9a0c1e5b7d2a64")) },
      payloadTooLarge: { payload_too_large: BODY_FAILURES.payloadTooLarge },
      unsupportedMediaType: { unsupported_media_type: BODY_FAILURES.unsupportedMediaType },
      unknownUser: { unknown_user: failed("No such user", "unknown_user", m.unknown("user", userId)) },
      unknownApiKey: { unknown_api_key: failed("No such API key", "unknown_api_key", m.unknown("API key", apiKeyId)) },
      unknownJob: { unknown_job: failed("No such job", "unknown_job", m.unknown("job", job0)) },
      unknownTask: { unknown_task: failed("No such task", "unknown_task", m.unknown("task", taskId)) },
      unauthorized: {
        missing_admin_token: failed(
          "No Authorization: Bearer header",
          "missing_admin_token",
          "Send the admin token as Authorization: Bearer <admin token>.",
        ),
        invalid_admin_token: failed(
          "Anything but the admin token, an API key included",
          "invalid_admin_token",
          "The admin token is not valid. API keys are not accepted here: only the server's admin token.",
        ),
      },
      throttled: {
        too_many_attempts: failed(
          "Too many wrong admin tokens from one address",
          "too_many_attempts",
          m.tooManyAdminAttempts(10, 60, 42),
        ),
      },
      unavailable: {
        service_unavailable: failed("The store cannot be reached", "service_unavailable", m.serviceUnavailable(RETRY_SECONDS)),
      },
    },
  };
}
