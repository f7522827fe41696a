/**
 * The reference server of the service interface (`<package>/server`): a web-standard fetch handler
 * over a store (in memory by default). Runs on Node, Deno, Bun and workers; `<package>/node` binds
 * it to `node:http`.
 *
 * @module imagegen-pricing/server
 */

export { createMemoryStore } from "../store/memory.js";
export type {
  ApiKeyMode,
  ApiKeyRecord,
  CallerRecord,
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
} from "../store/store.js";
export { MAX_CREDITS, StoreUnavailableError } from "../store/store.js";
export type { AdminControls } from "./admin/controls.js";
export type { Admin, AdminErrorCode, JobView, LedgerEntry, TaskView, UserView } from "./admin/methods.js";
export { AdminError, ledgerBalance } from "./admin/methods.js";
export { ADMIN_TOKEN_THROTTLE, AdminTokenError, MIN_ADMIN_TOKEN_CHARS } from "./admin/token.js";
export { API_KEY_PREFIXES } from "./auth.js";
export type { ApiKeyHasher, ClockChange, ClockView, LogEntry, ResponseEvent } from "./context.js";
export type { ReferenceServer, ReferenceServerOptions } from "./createReferenceServer.js";
export { createReferenceServer } from "./createReferenceServer.js";
export type { AdminHttpErrorCode, ErrorBody, ServerErrorCode } from "./errors.js";
export { ADMIN_ERRORS, SERVER_ERRORS } from "./errors.js";
export type { FaultInput, FaultKind, FaultView } from "./faults.js";
export { AnswerLostError, FAULT_KINDS, FAULT_LIMITS, FAULT_METHODS, FAULT_PATHS } from "./faults.js";
export type { CheckedFixtures, FixtureApiKey, Fixtures, FixtureUser } from "./fixtures.js";
export { checkFixtures, FixturesError } from "./fixtures.js";
export { DEFAULT_MAX_BODY_BYTES } from "./http/body.js";
export type { CorsOrigins } from "./http/cors.js";
export type { ClientInfo } from "./http/incoming.js";
export type { JournalEntry } from "./journal.js";
export { DEFAULT_JOURNAL_LIMIT, JOURNAL_CAPACITY } from "./journal.js";
export type { CreditsAnswer, GenerationAccepted, NextChange, PingAnswer, QuoteAnswer } from "./openapi/schemas.js";
