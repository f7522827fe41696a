/**
 * The client of the service (`<package>/client`), for server-side code: it checks a generation
 * request with the package's own rules and prices it before sending, sends every create with one
 * idempotency key on all of its attempts, retries only what a retry can fix, and rejects with one
 * typed error. Browser-safe code in itself, but it refuses to run in a page unless told to: an API
 * key in a page is anyone's key.
 *
 * @module imagegen-pricing/client
 */

// The core's types the client's answers are made of, so that a caller of this entry alone can name them.
export type {
  AspectRatio,
  Background,
  GenerationRequest,
  GenerationType,
  Issue,
  ModelId,
  PriceBreakdown,
  PricedQuote,
  Quality,
  Quote,
  QuoteReason,
  QuoteSpec,
  Resolution,
  UnpricedQuote,
} from "../index.js";
export type {
  Billing,
  CreditsAnswer,
  Estimate,
  GenerationAccepted,
  NextChange,
  PingAnswer,
  QuoteAnswer,
} from "./answers.js";
export type {
  Client,
  ClientOptions,
  CreateOptions,
  GenerationInput,
  RequestOptions,
} from "./createClient.js";
export { createClient } from "./createClient.js";
export type {
  ClientErrorCode,
  ImagegenErrorCode,
  ImagegenErrorInit,
  ServiceErrorCode,
} from "./errors.js";
export { ImagegenError } from "./errors.js";
export type { LogFn, Logger, LogLevel } from "./log.js";
export { ImagegenPromise } from "./promise.js";
export type { Fetch, RetryEvent, WithResponse } from "./send.js";
