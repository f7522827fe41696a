/**
 * The valibot schemas of every body of both OpenAPI documents, by component name: the service's
 * requests and answers, and the admin API's, converted to the documents' components when they are
 * built (scripts/openapi-json.ts).
 */
import * as v from "valibot";
import { catalog } from "../../src/models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, QUALITIES, RESOLUTIONS } from "../../src/models/lists.js";
import { QuoteSpecSchema } from "../../src/pricing/quoteSpec.js";
import { requestSchema } from "../../src/request/schema.js";
import { ADMIN_ERRORS, SERVER_ERRORS } from "../../src/server/errors.js";
import type { ServiceErrorCode } from "../../src/types.js";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const whole = int(0);
const id = (prefix: string) => v.pipe(v.string(), v.regex(new RegExp(`^${prefix}_`)));
const time = v.pipe(v.string(), v.isoTimestamp());

/** The body of a failed request, for a list of codes (S12). */
const errorBody = <const T extends readonly [string, ...string[]]>(codes: T) =>
  v.object({
    error: v.object({
      message: v.string(),
      code: v.picklist(codes),
      param: v.optional(v.string()),
      issues: v.optional(
        v.array(v.object({ path: v.string(), code: v.string(), message: v.string() })),
      ),
      requestId: v.string(),
    }),
  });

/** The body of every failed request of the service (S12). */
export const ErrorBodySchema = errorBody(
  Object.keys(SERVER_ERRORS) as [ServiceErrorCode, ...ServiceErrorCode[]],
);

const Billing = v.object({ totalCreditCost: whole, balanceAfterCredits: whole });

/** The 202 answer of `POST /api/generations` (S3). */
export const GenerationAcceptedSchema = v.object({
  batch: v.object({
    taskId: id("task"),
    request: v.object({
      imageCount: int(1),
      modelId: v.string(),
      aspectRatio: v.picklist(ASPECT_RATIOS),
      resolution: v.picklist(RESOLUTIONS),
      prompt: v.string(),
    }),
    results: v.array(
      v.object({
        job: v.object({ id: id("job"), status: v.literal("queued") }),
        assets: v.array(v.unknown()),
      }),
    ),
    ...Billing.entries,
  }),
  billing: Billing,
});

/** The next price change a server already knows of (P8): when a later catalog takes effect, and the spec's price then. */
const NextChangeSchema = v.pipe(
  v.object({ version: v.string(), effectiveAt: time, credits: v.nullable(whole) }),
  v.description(
    "Present only when the server already knows a later catalog than the one in force (P8).",
  ),
);

/** A priced quote (S11). */
export const PricedQuoteSchema = v.object({
  credits: whole,
  breakdown: v.object({
    modelId: v.string(),
    resolution: v.picklist(RESOLUTIONS),
    quality: v.picklist(QUALITIES),
    baseCredits: whole,
    referenceCount: whole,
    referenceSurchargeCredits: whole,
    subtotalCredits: whole,
    multiplier: v.string(),
    rounding: v.literal("half-up"),
    credits: whole,
  }),
  catalogVersion: v.string(),
  nextChange: v.optional(NextChangeSchema),
});

/** A well-formed spec that cannot be priced: `credits: null` and why (P2, S11). */
export const UnpricedQuoteSchema = v.object({
  credits: v.null(),
  reason: v.string(),
  message: v.string(),
  catalogVersion: v.string(),
  nextChange: v.optional(NextChangeSchema),
});

const QuoteAnswerSchema = v.union([PricedQuoteSchema, UnpricedQuoteSchema]);

const caller = { userId: id("usr"), apiKeyId: id("apk") };
/** The 200 answer of `GET /api/ping` (S9). */
export const PingAnswerSchema = v.object({
  ok: v.literal(true),
  service: v.string(),
  authProvider: v.literal("api_key"),
  ...caller,
});
/** The 200 answer of `GET /api/query/credits` (S10). */
export const CreditsAnswerSchema = v.object({
  creditBalance: whole,
  currency: v.literal("credits"),
  ...caller,
});

/** The components of the service's document. @internal */
export const SERVICE_SCHEMAS = {
  GenerationRequest: requestSchema(catalog),
  GenerationAccepted: GenerationAcceptedSchema,
  QuoteSpec: QuoteSpecSchema,
  Quote: QuoteAnswerSchema,
  PricedQuote: PricedQuoteSchema,
  UnpricedQuote: UnpricedQuoteSchema,
  NextChange: NextChangeSchema,
  Ping: PingAnswerSchema,
  Credits: CreditsAnswerSchema,
  Error: ErrorBodySchema,
};

const multiplierIn = v.pipe(
  v.union([v.string(), v.number()]),
  v.description(
    'A plain decimal from 0 to 1000, such as "1.15" (or a number in that range); default 1 (P4).',
  ),
);
const multiplier = v.pipe(v.string(), v.description('An exact plain decimal, such as "1.15".'));
const faultId = v.pipe(v.string(), v.regex(/^flt_[0-9a-f]{16}$/));
// The values of FAULT_KINDS, FAULT_PATHS, FAULT_METHODS and FAULT_LIMITS, which sit above this
// module (a test compares them).
const faultFields = {
  kind: v.picklist(["unavailable", "internal", "delay", "lose_answer"]),
  method: v.optional(v.picklist(["GET", "POST"])),
  path: v.optional(
    v.picklist(["/api/generations", "/api/pricing/quote", "/api/ping", "/api/query/credits"]),
  ),
  apiKeyId: v.optional(id("apk")),
  delayMs: v.optional(int(0, 60_000)),
  retryAfterMs: v.optional(int(1, 3_600_000)),
  retryAfterS: v.optional(
    v.pipe(int(1, 3600), v.description("Deprecated: the wait in seconds; use retryAfterMs.")),
  ),
};
const Job = v.object({
  jobId: id("job"),
  taskId: id("task"),
  status: v.picklist(["queued", "failed"]),
  credits: whole,
});
const Clock = v.object({ now: time, frozen: v.boolean() });
const LedgerEntry = v.object({
  kind: v.picklist(["grant", "debit", "refund"]),
  credits: whole,
  at: time,
  taskId: v.optional(id("task")),
  jobId: v.optional(id("job")),
});
const Fault = v.object({ faultId, ...faultFields, timesLeft: int(1) });
const JournalEntry = v.object({
  requestId: v.string(),
  method: v.string(),
  path: v.string(),
  status: int(0, 599),
  at: time,
  durationMs: v.pipe(v.number(), v.minValue(0)),
  apiKeyId: v.optional(id("apk")),
  idempotencyKey: v.optional(v.pipe(v.string(), v.maxLength(128))),
  issueCodes: v.optional(v.array(v.string())),
});
const ADMIN_CODES = [
  ...(["invalid_json", "not_found", "method_not_allowed", "payload_too_large"] as const),
  ...(["unsupported_media_type", "internal_error", "service_unavailable"] as const),
  ...(Object.keys(ADMIN_ERRORS) as (keyof typeof ADMIN_ERRORS)[]),
] as const;

/** The components of the admin API's document. @internal */
export const ADMIN_SCHEMAS = {
  NewUser: v.strictObject({ credits: whole, multiplier: v.optional(multiplierIn) }),
  CreatedUser: v.object({ userId: id("usr") }),
  User: v.object({ userId: id("usr"), balance: whole, multiplier }),
  NewApiKey: v.strictObject({ mode: v.optional(v.picklist(["live", "test"])) }),
  CreatedApiKey: v.object({
    apiKeyId: id("apk"),
    key: v.pipe(v.string(), v.regex(/^ck_(live|test)_/)),
  }),
  CreatedAsset: v.object({ assetId: id("ast") }),
  MultiplierChange: v.strictObject({ multiplier: multiplierIn }),
  MultiplierSet: v.object({ userId: id("usr"), multiplier }),
  Grant: v.strictObject({ credits: whole }),
  Balance: v.object({ userId: id("usr"), balance: whole }),
  LedgerEntry,
  Ledger: v.object({ entries: v.array(LedgerEntry) }),
  RevokedApiKey: v.object({ apiKeyId: id("apk") }),
  Job,
  Refund: v.object({ refundedCredits: whole }),
  Task: v.object({
    taskId: id("task"),
    userId: id("usr"),
    createdAt: time,
    aspectRatio: v.picklist(ASPECT_RATIOS),
    resolution: v.picklist(RESOLUTIONS),
    quality: v.picklist(QUALITIES),
    background: v.picklist(BACKGROUNDS),
    referenceCount: whole,
    multiplier,
    catalogVersion: v.string(),
    totalCreditCost: whole,
    jobs: v.array(Job),
    request: v.pipe(
      v.record(v.string(), v.unknown()),
      v.description("The normalized request, with its idempotency key (S8)."),
    ),
    clientIdempotencyKey: v.boolean(),
  }),
  ResetRequest: v.strictObject({}),
  Clock,
  ResetDone: v.object({ reset: v.literal(true), clock: Clock }),
  ClockChange: v.union([
    v.strictObject({ now: v.string() }),
    v.strictObject({ advanceMs: whole }),
    v.strictObject({ frozen: v.boolean() }),
  ]),
  NewFault: v.strictObject({ ...faultFields, times: v.optional(int(1, 1000)) }),
  FaultId: v.object({ faultId }),
  Fault,
  Faults: v.object({ faults: v.array(Fault) }),
  FaultsCleared: v.object({ removed: whole }),
  JournalEntry,
  Journal: v.object({ requests: v.array(JournalEntry) }),
  Document: v.objectWithRest({ openapi: v.literal("3.1.0") }, v.unknown()),
  Error: errorBody(ADMIN_CODES),
};

/** The next price change in a quote answer (P8). */
export type NextChange = v.InferOutput<typeof NextChangeSchema>;
/** The 200 body of a quote: the core's quote, and the next price change when one is known. */
export type QuoteAnswer = v.InferOutput<typeof QuoteAnswerSchema>;
/** The 202 body of an accepted generation. */
export type GenerationAccepted = v.InferOutput<typeof GenerationAcceptedSchema>;
/** The 200 body of a ping. */
export type PingAnswer = v.InferOutput<typeof PingAnswerSchema>;
/** The 200 body of a credits query. */
export type CreditsAnswer = v.InferOutput<typeof CreditsAnswerSchema>;
