/**
 * The reference server of the service interface (`<package>/server`): a web-standard fetch handler
 * (a hono app) over a store, in memory by default. Runs on Node, Deno, Bun and workers;
 * `<package>/node` serves it over HTTP.
 *
 * @module imagegen-pricing/server
 */

// The core's types that the server's own name: the very types of the core entry.
export type { IssueCode } from "../messages.js";
export type { Catalog, ModelSpec, PriceGrid } from "../models/modelSpec.js";
export type { ReferenceStore } from "../store/store.js";
export { StoreUnavailableError } from "../store/store.js";
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
  ServiceErrorCode,
} from "../types.js";
export type { ClientInfo } from "./address.js";
export type { Admin, JobView, LedgerEntry, TaskView, UserView } from "./admin.js";
export { AdminTokenError } from "./adminToken.js";
export type { CorsOrigins, ReferenceServer, ReferenceServerOptions } from "./app.js";
export { createReferenceServer } from "./app.js";
export type { ClockChange, ClockView } from "./clock.js";
export type { LogEntry, ResponseEvent } from "./context.js";
export type { FaultInput, FaultKind, FaultView, RequestRecord } from "./controls.js";
export { AnswerLostError } from "./controls.js";
export type { AdminErrorCode, ErrorBody } from "./errors.js";
export { AdminError } from "./errors.js";
export type { FixtureApiKey, Fixtures, FixtureUser } from "./fixtures.js";
export { FixturesError } from "./fixtures.js";
