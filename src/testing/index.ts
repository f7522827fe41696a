/**
 * fast-check arbitraries for your own property tests: valid generation requests, requests that
 * break exactly one named rule, quote specs and price multipliers, all read from the package's
 * catalog (or your own). Import from `imagegen-pricing/testing`; `fast-check` (v4) is an optional
 * peer dependency, never pulled into the core entry, and importing this entry without it installed
 * throws one line saying so.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { normalizeRequest, validateForModel } from "imagegen-pricing";
 * import { generationRequestBody } from "imagegen-pricing/testing";
 *
 * fc.assert(
 *   fc.property(generationRequestBody({ modelId: "beta2" }), (body) => {
 *     const normalized = normalizeRequest(body);
 *     return normalized.success && validateForModel(normalized.output).success;
 *   }),
 * );
 * ```
 *
 * @module imagegen-pricing/testing
 */

// The core's types the arbitraries take and produce, and the types they are made of, so that the
// entry's declarations name no type the entry does not export.
export type {
  AspectRatio,
  Background,
  Catalog,
  GenerationRequest,
  GenerationType,
  ModelId,
  ModelSpec,
  OutputFormat,
  PriceGrid,
  Quality,
  QuoteSpec,
  Resolution,
} from "../index.js";
export {
  BREAKABLE_RULES,
  type BreakableRule,
  type NearlyValidRequest,
  nearlyValidRequestBody,
} from "./nearlyValidRequests.js";
export { priceMultiplier, quoteSpec } from "./quotes.js";
export { generationRequest, generationRequestBody, type TestingOptions } from "./validRequests.js";
