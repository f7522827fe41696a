/**
 * The valibot schemas of every answer of the four endpoints, and the types the handlers build their
 * answers as; scripts/jsonSchemas.ts converts them ahead of time for the OpenAPI document.
 */
import * as v from "valibot";
import { ASPECT_RATIOS, QUALITIES, RESOLUTIONS } from "../../models/lists.js";
import { SERVER_ERRORS, type ServerErrorCode } from "../errors.js";

/** One problem of a request. */
const IssueSchema = v.object({ path: v.string(), code: v.string(), message: v.string() });

/** The body of every failed request (S12). */
export const ErrorBodySchema = v.object({
  error: v.object({
    message: v.string(),
    code: v.picklist(Object.keys(SERVER_ERRORS) as ServerErrorCode[]),
    param: v.optional(v.string()),
    issues: v.optional(v.array(IssueSchema)),
    requestId: v.string(),
  }),
});

const wholeCredits = v.pipe(v.number(), v.integer(), v.minValue(0));

const Billing = v.object({ totalCreditCost: wholeCredits, balanceAfterCredits: wholeCredits });

/** The 202 answer of `POST /api/generations` (S3). */
export const GenerationAcceptedSchema = v.object({
  batch: v.object({
    /** The task made (an addition to the interface's fields). */
    taskId: v.pipe(v.string(), v.regex(/^task_/)),
    request: v.object({
      imageCount: v.pipe(v.number(), v.integer(), v.minValue(1)),
      modelId: v.string(),
      aspectRatio: v.picklist(ASPECT_RATIOS),
      resolution: v.picklist(RESOLUTIONS),
      prompt: v.string(),
    }),
    results: v.array(
      v.object({
        job: v.object({ id: v.pipe(v.string(), v.regex(/^job_/)), status: v.literal("queued") }),
        assets: v.array(v.unknown()),
      }),
    ),
    ...Billing.entries,
  }),
  billing: Billing,
});

const CATALOG_VERSION = v.pipe(
  v.string(),
  v.description("The version of the catalog that priced this quote: the UTC date (YYYY-MM-DD) its prices took effect (P8)."),
);

/**
 * The next price change a server already knows of (P8): a later catalog, when it takes effect, and
 * what the quoted spec costs from then at the caller's current multiplier.
 */
export const NextChangeSchema = v.pipe(
  v.object({
    version: v.pipe(v.string(), v.description("The later catalog's version: the UTC date (YYYY-MM-DD) it takes effect.")),
    effectiveAt: v.pipe(
      v.string(),
      v.isoTimestamp(),
      v.description(
        "When it takes effect: 00:00 UTC of that date, as an ISO 8601 date-time. Quotes from this instant on use it.",
      ),
    ),
    credits: v.pipe(
      v.nullable(wholeCredits),
      v.description(
        "What the same spec will cost per image under that catalog at the caller's current multiplier; null when that catalog cannot price it.",
      ),
    ),
  }),
  v.description(
    "Present only when the server already knows a later catalog than the one in force (P8): a price preview can say when prices change. Absent otherwise.",
  ),
);

/** A priced quote (S11). */
export const PricedQuoteSchema = v.object({
  credits: wholeCredits,
  breakdown: v.object({
    modelId: v.string(),
    resolution: v.picklist(RESOLUTIONS),
    quality: v.picklist(QUALITIES),
    baseCredits: wholeCredits,
    referenceCount: wholeCredits,
    referenceSurchargeCredits: wholeCredits,
    subtotalCredits: wholeCredits,
    multiplier: v.string(),
    rounding: v.literal("half-up"),
    credits: wholeCredits,
  }),
  catalogVersion: CATALOG_VERSION,
  nextChange: v.optional(NextChangeSchema),
});

/** A well-formed spec that cannot be priced: `credits: null` and why (P2, S11). */
export const UnpricedQuoteSchema = v.object({
  credits: v.null(),
  reason: v.string(),
  message: v.string(),
  catalogVersion: CATALOG_VERSION,
  nextChange: v.optional(NextChangeSchema),
});

/** The 200 answer of `POST /api/pricing/quote`. */
const QuoteAnswerSchema = v.union([PricedQuoteSchema, UnpricedQuoteSchema]);

/** The 200 answer of `GET /api/ping` (S9). */
export const PingAnswerSchema = v.object({
  ok: v.literal(true),
  service: v.string(),
  authProvider: v.literal("api_key"),
  userId: v.pipe(v.string(), v.regex(/^usr_/)),
  apiKeyId: v.pipe(v.string(), v.regex(/^apk_/)),
});

/** The 200 answer of `GET /api/query/credits` (S10). */
export const CreditsAnswerSchema = v.object({
  creditBalance: wholeCredits,
  currency: v.literal("credits"),
  userId: v.pipe(v.string(), v.regex(/^usr_/)),
  apiKeyId: v.pipe(v.string(), v.regex(/^apk_/)),
});

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
