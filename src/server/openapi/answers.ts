/**
 * The bodies the service's account endpoints answer with, as the OpenAPI document describes them
 * (scripts/openapi/schemas.ts holds their valibot schemas; a test checks the two agree).
 */
import type { Quote } from "../../pricing/quote.js";

export type { CreditsAnswer, PingAnswer } from "../../types.js";

/** The next price change a server already knows of, and the spec's price then (P8). @internal */
export type NextChange = { version: string; effectiveAt: string; credits: number | null };

/**
 * The 200 body of `POST /api/pricing/quote`: the core's quote, and the next change when known.
 * @internal
 */
export type QuoteAnswer = Quote & { nextChange?: NextChange };
