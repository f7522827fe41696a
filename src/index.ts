/**
 * Validates and prices image-generation requests: the browser-safe core.
 *
 * `checkRequest` is the front door (is this body valid for its model, and what is wrong);
 * `normalizeRequest` and `validateForModel` are its two stages; `quote` prices a preview and
 * `computeCharge` the charge. These five take their input first and the same options second
 * (`catalog`, `at`, `account`, `referenceCount`).
 *
 * @module imagegen-pricing
 */

// Only what a user calls, catches, passes or names in a type of these functions is public here.
// The server, the CLI and the tests import anything else (the value lists, the catalog schemas,
// the quote-spec reader, the bounds) from its own module.

export type { IssueCode, QuoteReason } from "./messages.js";
export type { Capabilities } from "./models/capabilities.js";
export { capabilities } from "./models/capabilities.js";
export { catalog } from "./models/catalog.js";
export type { CatalogOptions } from "./models/catalogOptions.js";
export type { AcceptedValuesField, CatalogChange, CatalogChangeKind } from "./models/diff.js";
export { diffCatalogs } from "./models/diff.js";
export type { CatalogChangeTime, CatalogHistoryProblem, Instant } from "./models/history.js";
export {
  CatalogHistoryError,
  catalogAt,
  catalogHistory,
  defineCatalogHistory,
  NoCatalogInForceError,
  nextCatalogChange,
} from "./models/history.js";
export type { Catalog, ModelSpec, PriceGrid } from "./models/modelSpec.js";
export { defineCatalog } from "./models/modelSpec.js";
export type { Charge, ChargeLine, ChargeOptions } from "./pricing/computeCharge.js";
export { computeCharge } from "./pricing/computeCharge.js";
export { InvalidRequestError } from "./pricing/errors.js";
export { Multiplier, parseMultiplier } from "./pricing/multiplier.js";
export type { PriceBreakdown } from "./pricing/priceOutput.js";
export type {
  AccountPricing,
  PricedQuote,
  Quote,
  QuoteOptions,
  UnpricedQuote,
} from "./pricing/quote.js";
export { quote } from "./pricing/quote.js";
export type { QuoteSpec } from "./pricing/quoteSpec.js";
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
