/**
 * Validates and prices image-generation requests: the browser-safe core.
 *
 * @module imagegen-pricing
 */
export { normalizeRequest } from "./request/normalizeRequest.js";
export { validateForModel } from "./request/validateForModel.js";
export { checkRequest } from "./request/checkRequest.js";
export { BOUNDS } from "./request/bounds.js";
export { GenerationRequestSchema, requestSchema } from "./request/schema.js";
export { quote } from "./pricing/quote.js";
export { parseQuoteSpec, QuoteSpecSchema } from "./pricing/quoteSpec.js";
export { computeCharge } from "./pricing/computeCharge.js";
export { InvalidRequestError } from "./pricing/errors.js";
export { Multiplier, parseMultiplier, ROUNDING } from "./pricing/multiplier.js";
export { catalog, MODEL_IDS } from "./models/catalog.js";
export { capabilities } from "./models/capabilities.js";
export { CatalogSchema, ModelSpecSchema, defineCatalog } from "./models/modelSpec.js";
export {
  CatalogHistoryError,
  catalogAt,
  catalogHistory,
  defineCatalogHistory,
  NoCatalogInForceError,
  nextCatalogChange,
} from "./models/history.js";
export { describeCatalogChange, diffCatalogs } from "./models/diff.js";
export { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "./models/lists.js";

export type {
  AspectRatio,
  Background,
  GenerationRequest,
  GenerationType,
  Issue,
  ModelId,
  OutputFormat,
  Quality,
  Resolution,
  Result,
} from "./types.js";
export type { IssueCode, QuoteReason } from "./messages.js";
export type { Catalog, ModelSpec, PriceGrid } from "./models/modelSpec.js";
export type { Capabilities } from "./models/capabilities.js";
export type { CatalogChangeTime, CatalogHistoryProblem, Instant } from "./models/history.js";
export type { AcceptedValuesField, CatalogChange, CatalogChangeKind } from "./models/diff.js";
export type { RequestSchema } from "./request/schema.js";
export type { AccountPricing, PricedQuote, Quote, UnpricedQuote } from "./pricing/quote.js";
export type { QuoteSpec } from "./pricing/quoteSpec.js";
export type { Charge, ChargeLine, ChargeOptions } from "./pricing/computeCharge.js";
export type { PriceBreakdown } from "./pricing/priceOutput.js";
