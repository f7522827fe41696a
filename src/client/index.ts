/**
 * The client of the service (`<package>/client`), for server-side code: it checks a generation
 * request with the package's own rules and prices it before sending, sends every create with one
 * idempotency key on all of its attempts, retries only what a retry can fix, and rejects with one
 * typed error. Browser-safe code in itself, but it refuses to run in a page unless told to: an API
 * key in a page is anyone's key.
 *
 * @module imagegen-pricing/client
 */

// The core's types the client's calls take and answer with, and the types they are made of, so
// that the entry's declarations name no type the entry does not export.
export type {
  AspectRatio,
  Background,
  GenerationRequest,
  GenerationType,
  Issue,
  IssueCode,
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
