/**
 * The reference server of the service interface: a web-standard fetch handler with its state in
 * memory (`<package>/server`). Runs on Node, Deno, Bun and workers; `<package>/node` binds it to
 * `node:http`.
 *
 * @packageDocumentation
 */
export { createReferenceServer } from "./createReferenceServer.js";
export { createMemoryStore } from "./memoryStore.js";
export { createOpenApiDocument } from "./openapi.js";
export { AdminError, SERVER_ERRORS } from "./errors.js";
export { API_KEY_PREFIXES } from "./auth.js";
export { DEFAULT_MAX_BODY_BYTES } from "./body.js";
export { DEFAULT_IDEMPOTENCY_TTL_MS } from "./idempotency.js";
export { ledgerBalance } from "./ledger.js";
export { QuoteSpecSchema } from "../pricing/quoteSpec.js";
export {
  CreditsAnswerSchema,
  ErrorBodySchema,
  GenerationAcceptedSchema,
  PingAnswerSchema,
  PricedQuoteSchema,
  QuoteAnswerSchema,
  UnpricedQuoteSchema,
} from "./schemas.js";

export type { ReferenceServer, ReferenceServerOptions } from "./createReferenceServer.js";
export type { Admin, JobView, TaskView } from "./admin.js";
export type { ApiKeyMode } from "./auth.js";
export type { ApiKeyHasher, LogEntry } from "./context.js";
export type { AdminErrorCode, ServerErrorCode } from "./errors.js";
export type { LedgerEntry, LedgerRecord } from "./ledger.js";
export type { OpenApiDocument } from "./openapi.js";
export type { ErrorBody } from "./responses.js";
export type { CreditsAnswer, GenerationAccepted, PingAnswer } from "./schemas.js";
export type {
  ApiKeyRecord,
  CommitInput,
  CommitResult,
  IdempotencyRecord,
  JobStatus,
  Store,
  TaskRecord,
  UserRecord,
} from "./store.js";
