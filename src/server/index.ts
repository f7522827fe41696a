/**
 * The reference server of the service interface (`<package>/server`): a web-standard fetch handler
 * over a store (in memory by default). Runs on Node, Deno, Bun and workers; `<package>/node` binds
 * it to `node:http`.
 *
 * @module imagegen-pricing/server
 */

export { QuoteSpecSchema } from "../pricing/quoteSpec.js";
export type { Admin, JobView, LedgerEntry, TaskView, UserView } from "./admin.js";
export { ledgerBalance } from "./admin.js";
export type { AdminHttpErrorCode } from "./adminApi.js";
export { ADMIN_ERRORS, ADMIN_TOKEN_THROTTLE, MIN_ADMIN_TOKEN_CHARS } from "./adminApi.js";
export type { ApiKeyHasher } from "./auth.js";
export { API_KEY_PREFIXES } from "./auth.js";
export type { LogEntry, ReferenceServer, ReferenceServerOptions } from "./createReferenceServer.js";
export { createReferenceServer } from "./createReferenceServer.js";
export type { AdminErrorCode, ErrorBody, ServerErrorCode } from "./errors.js";
export { AdminError, AdminTokenError, SERVER_ERRORS } from "./errors.js";
export type { CheckedFixtures, FixtureApiKey, Fixtures, FixtureUser } from "./fixtures.js";
export { checkFixtures, FixturesError } from "./fixtures.js";
export { DEFAULT_IDEMPOTENCY_TTL_MS } from "./generations.js";
export type { ClientInfo } from "./http.js";
export { DEFAULT_MAX_BODY_BYTES } from "./http.js";
export { createMemoryStore } from "./memoryStore.js";
export type {
  CreditsAnswer,
  GenerationAccepted,
  NextChange,
  OpenApiDocument,
  PingAnswer,
  QuoteAnswer,
} from "./openapi.js";
export {
  CreditsAnswerSchema,
  createAdminOpenApiDocument,
  createOpenApiDocument,
  ErrorBodySchema,
  GenerationAcceptedSchema,
  NextChangeSchema,
  PingAnswerSchema,
  PricedQuoteSchema,
  QuoteAnswerSchema,
  UnpricedQuoteSchema,
} from "./openapi.js";
export type {
  ApiKeyMode,
  ApiKeyRecord,
  CommitInput,
  CommitResult,
  FixtureLoadResult,
  FixtureUserLoad,
  GrantResult,
  JobStatus,
  LedgerRecord,
  Store,
  TaskDraft,
  TaskRecord,
  UserRecord,
} from "./store.js";
export { MAX_CREDITS, StoreUnavailableError } from "./store.js";
