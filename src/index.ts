/**
 * Validates and prices image-generation requests: the browser-safe core.
 *
 * @module imagegen-pricing
 */

export type { IssueCode, QuoteReason } from "./messages.js";
export type { Capabilities } from "./models/capabilities.js";
export { capabilities } from "./models/capabilities.js";
export { catalog, MODEL_IDS } from "./models/catalog.js";
export type { CatalogOptions } from "./models/catalogOptions.js";
export type { AcceptedValuesField, CatalogChange, CatalogChangeKind } from "./models/diff.js";
export { describeCatalogChange, diffCatalogs } from "./models/diff.js";
export type { CatalogChangeTime, CatalogHistoryProblem, Instant } from "./models/history.js";
export {
  CatalogHistoryError,
  catalogAt,
  catalogHistory,
  defineCatalogHistory,
  NoCatalogInForceError,
  nextCatalogChange,
} from "./models/history.js";
export { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "./models/lists.js";
export type { Catalog, ModelSpec, PriceGrid } from "./models/modelSpec.js";
export { CatalogSchema, defineCatalog, ModelSpecSchema } from "./models/modelSpec.js";
export type { Charge, ChargeLine, ChargeOptions } from "./pricing/computeCharge.js";
export { computeCharge } from "./pricing/computeCharge.js";
export { InvalidRequestError } from "./pricing/errors.js";
export { Multiplier, parseMultiplier, ROUNDING } from "./pricing/multiplier.js";
export type { PriceBreakdown } from "./pricing/priceOutput.js";
export type { AccountPricing, PricedQuote, Quote, QuoteOptions, UnpricedQuote } from "./pricing/quote.js";
export { quote } from "./pricing/quote.js";
export type { QuoteSpec } from "./pricing/quoteSpec.js";
export { parseQuoteSpec, QuoteSpecSchema } from "./pricing/quoteSpec.js";
export { BOUNDS } from "./request/bounds.js";
export { checkRequest } from "./request/checkRequest.js";
export { normalizeRequest } from "./request/normalizeRequest.js";
export { GenerationRequestSchema } from "./request/schema.js";
export { validateForModel } from "./request/validateForModel.js";
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
