/**
 * The answers of the service's four endpoints as the client resolves them, and the estimate of a
 * generation's charge.
 */
import type { QuoteReason } from "../messages.js";
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

/** The 200 body of `GET /api/ping`: who the key belongs to (S9). */
export type PingAnswer = {
  ok: true;
  service: string;
  authProvider: "api_key";
  userId: string;
  apiKeyId: string;
};

/** The 200 body of `GET /api/query/credits`: the balance (S10). */
export type CreditsAnswer = {
  creditBalance: number;
  currency: "credits";
  userId: string;
  apiKeyId: string;
};

/** A later catalog the service already knows of, and what the quoted spec costs under it (P8). */
export type NextChange = { version: string; effectiveAt: string; credits: number | null };

/** The 200 body of `POST /api/pricing/quote`: exactly the core's `quote` for the account, and the next price change when known. */
export type QuoteAnswer = Quote & { nextChange?: NextChange };

/**
 * What a generation request will be charged, before it is sent.
 *
 * The account's per-image price times the image count (P5), or `credits: null` with the reason when
 * it has none: never a base price.
 */
export type Estimate =
  | {
      /** The whole charge: `imageCount x perImageCredits`, the sum of the rounded per-image amounts. */
      credits: number;
      /** One output image, priced for this account (multiplier and reference surcharge included). */
      perImageCredits: number;
      imageCount: number;
      /** The request as the local check normalized it: what the charge is for. */
      request: GenerationRequest;
      /** The quote endpoint's answer the charge is built on. */
      quote: QuoteAnswer & { credits: number };
    }
  | {
      credits: null;
      /** `invalid_request` when the local check refused the body (see `issues`), else the quote's reason. */
      reason: QuoteReason | "invalid_request";
      message: string;
      /** Every issue of a refused body. */
      issues?: Issue<string>[];
    };
