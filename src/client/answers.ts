/**
 * The answers of the service's four endpoints as the client resolves them, and the estimate of a
 * generation's charge.
 */
import * as v from "valibot";
import type { QuoteReason } from "../messages.js";
import { ASPECT_RATIOS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import type { Quote } from "../pricing/quote.js";
import type { AspectRatio, GenerationRequest, Issue, Resolution } from "../types.js";

/** Both amounts of an accepted generation, in whole credits (S3). */
export type Billing = { totalCreditCost: number; balanceAfterCredits: number };

/** The 202 body of `POST /api/generations`: the task queued and what it cost (S3). */
export type GenerationAccepted = {
  batch: {
    /** The task made. */
    taskId: string;
    /** The accepted request, as the service normalized it. */
    request: {
      imageCount: number;
      modelId: string;
      aspectRatio: AspectRatio;
      resolution: Resolution;
      prompt: string;
    };
    /** One per output image, each `queued` on acceptance. */
    results: { job: { id: string; status: "queued" }; assets: unknown[] }[];
    /** The same as `billing.totalCreditCost`, kept for older callers. */
    totalCreditCost: number;
    /** The same as `billing.balanceAfterCredits`, kept for older callers. */
    balanceAfterCredits: number;
  };
  billing: Billing;
};

export type { CreditsAnswer, PingAnswer } from "../types.js";

/** A later catalog the service already knows of, and what the quoted spec costs under it (P8). */
export type NextChange = { version: string; effectiveAt: string; credits: number | null };

/**
 * The 200 body of `POST /api/pricing/quote`: exactly the core's `quote` for the account, and the
 * next price change when known.
 */
export type QuoteAnswer = Quote & { nextChange?: NextChange };

/**
 * What a generation request will be charged, before it is sent.
 *
 * The account's per-image price times the image count (P5), or `credits: null` with the reason when
 * it has none: never a base price.
 */
export type Estimate =
  | {
      /**
       * The whole charge: `imageCount x perOutputCredits`, the sum of the rounded per-image
       * amounts.
       */
      credits: number;
      /**
       * One output image, priced for this account (multiplier and reference surcharge included).
       */
      perOutputCredits: number;
      imageCount: number;
      /** The request as the local check normalized it: what the charge is for. */
      request: GenerationRequest;
      /** The quote endpoint's answer the charge is built on. */
      quote: QuoteAnswer & { credits: number };
    }
  | {
      credits: null;
      /**
       * `invalid_request` when the local check refused the body (see `issues`), else the quote's
       * reason.
       */
      reason: QuoteReason | "invalid_request";
      message: string;
      /** Every issue of a refused body. */
      issues?: Issue<string>[];
    };

const whole = v.pipe(v.number(), v.integer(), v.minValue(0));
const billing = { totalCreditCost: whole, balanceAfterCredits: whole };
const caller = { userId: v.string(), apiKeyId: v.string() };
const nextChange = v.exactOptional(
  v.object({ version: v.string(), effectiveAt: v.string(), credits: v.nullable(whole) }),
);
const QUOTE_REASONS = [
  "invalid_spec",
  "invalid_kind",
  "unknown_model",
  "resolution_required",
  "unsupported_resolution",
  "unsupported_quality",
  "invalid_reference_count",
  "too_many_references",
  "invalid_multiplier",
  "not_priceable",
] as const satisfies readonly QuoteReason[];

/**
 * The shape of each 2xx answer, as the service's interface gives it: what the client checks before
 * it resolves a call. Fields a newer service adds are let through; a field of the types above that
 * is missing or of another type is an `invalid_response`.
 *
 * @internal
 */
export const ANSWER_SCHEMAS = {
  accepted: v.object({
    batch: v.object({
      taskId: v.string(),
      request: v.object({
        imageCount: v.pipe(whole, v.minValue(1)),
        modelId: v.string(),
        aspectRatio: v.picklist(ASPECT_RATIOS),
        resolution: v.picklist(RESOLUTIONS),
        prompt: v.string(),
      }),
      results: v.array(
        v.object({
          job: v.object({ id: v.string(), status: v.literal("queued") }),
          assets: v.array(v.unknown()),
        }),
      ),
      ...billing,
    }),
    billing: v.object(billing),
  }),
  quote: v.union([
    v.object({
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
      nextChange,
    }),
    v.object({
      credits: v.null(),
      reason: v.picklist(QUOTE_REASONS),
      message: v.string(),
      catalogVersion: v.string(),
      nextChange,
    }),
  ]),
  ping: v.object({
    ok: v.literal(true),
    service: v.string(),
    authProvider: v.literal("api_key"),
    ...caller,
  }),
  credits: v.object({ creditBalance: whole, currency: v.literal("credits"), ...caller }),
};

/** The schema of one answer, by its name. @internal */
export type AnswerSchema = (typeof ANSWER_SCHEMAS)[keyof typeof ANSWER_SCHEMAS];
