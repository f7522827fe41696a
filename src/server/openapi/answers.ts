/**
 * The bodies the service's account endpoints answer with, as the OpenAPI document describes them
 * (scripts/openapi/schemas.ts holds their valibot schemas; a test checks the two agree).
 */
import type { Quote } from "../../pricing/quote.js";

/** The 200 body of `GET /api/ping`: who the key belongs to (S9). @internal */
export type PingAnswer = {
  ok: true;
  service: string;
  authProvider: "api_key";
  userId: string;
  apiKeyId: string;
};

/** The 200 body of `GET /api/query/credits`: the balance (S10). @internal */
export type CreditsAnswer = {
  creditBalance: number;
  currency: "credits";
  userId: string;
  apiKeyId: string;
};

/** The next price change a server already knows of, and the spec's price then (P8). @internal */
export type NextChange = { version: string; effectiveAt: string; credits: number | null };

/**
 * The 200 body of `POST /api/pricing/quote`: the core's quote, and the next change when known.
 * @internal
 */
export type QuoteAnswer = Quote & { nextChange?: NextChange };
