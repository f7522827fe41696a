/**
 * The OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), served at `GET /admin/openapi.json`:
 * its operations as data, folded with the admin components and the built-in catalog's examples.
 */
import { JSON_SCHEMAS } from "../../generated/jsonSchemas.js";
import { catalog } from "../../models/catalog.js";
import { ADMIN_ERRORS, SERVER_ERRORS } from "../errors.js";
import { type DocumentParts, foldDocument, type OpenApiDocument, type Operation } from "./document.js";
import { createExamples } from "./examples.js";

const GUARD = ["missing_admin_token", "invalid_admin_token", "too_many_attempts", "service_unavailable"];
const BODY = ["invalid_json", "invalid_request", "payload_too_large", "unsupported_media_type", ...GUARD];
const USER = ["unknown_user", ...GUARD];

/** An operation whose answer is 200, or `status`. */
const op = (
  operationId: string,
  summary: string,
  answer: string,
  errors: readonly string[],
  more: Partial<Operation> & { status?: number } = {},
): Operation => {
  const { status = 200, ...rest } = more;
  return { operationId, summary, answer: [status, answer, summary], errors, ...rest };
};

/** Every admin operation, by path and method. */
const PATHS: Record<string, Record<string, Operation>> = {
  "/admin/users": {
    post: op("createUser", "Create a user with an opening grant", "CreatedUser", BODY, { body: "NewUser", status: 201 }),
  },
  "/admin/users/{userId}": { get: op("getUser", "Read a user's balance and multiplier", "User", USER) },
  "/admin/users/{userId}/api-keys": {
    post: op("createApiKey", "Make an API key for a user (shown once)", "CreatedApiKey", ["unknown_user", ...BODY], {
      body: "NewApiKey",
      optional: true,
      status: 201,
    }),
  },
  "/admin/users/{userId}/assets": {
    post: op("createAsset", "Add an asset owned by a user", "CreatedAsset", USER, { status: 201 }),
  },
  "/admin/users/{userId}/multiplier": {
    put: op("setMultiplier", "Set a user's price multiplier", "MultiplierSet", ["unknown_user", ...BODY], {
      body: "MultiplierChange",
    }),
  },
  "/admin/users/{userId}/grants": {
    post: op("grantCredits", "Grant credits to a user", "Balance", ["unknown_user", ...BODY], { body: "Grant" }),
  },
  "/admin/users/{userId}/ledger": { get: op("getLedger", "Read a user's ledger, oldest first (S13)", "Ledger", USER) },
  "/admin/api-keys/{apiKeyId}/revoke": {
    post: op("revokeApiKey", "Revoke an API key (again is fine)", "RevokedApiKey", ["unknown_api_key", ...GUARD]),
  },
  "/admin/jobs/{jobId}": { get: op("getJob", "Read a job", "Job", ["unknown_job", ...GUARD]) },
  "/admin/jobs/{jobId}/fail": {
    post: op("failJob", "Fail a job and refund its charge, once (S6)", "Refund", ["unknown_job", ...GUARD]),
  },
  "/admin/tasks/{taskId}": { get: op("getTask", "Read a task as stored (S8)", "Task", ["unknown_task", ...GUARD]) },
  "/admin/reset": {
    post: op("reset", "Reset to the start-up fixtures and real time (S17)", "ResetDone", BODY, {
      body: "ResetRequest",
      optional: true,
    }),
  },
  "/admin/clock": {
    get: op("getClock", "Read the test clock (S17)", "Clock", GUARD),
    post: op("setClock", "Freeze, advance or run the test clock (S17)", "Clock", BODY, { body: "ClockChange" }),
  },
  "/admin/faults": {
    post: op("addFault", "Add a fault to the service's requests (S17)", "FaultId", BODY, { body: "NewFault", status: 201 }),
    get: op("listFaults", "List the faults still waiting, oldest first", "Faults", GUARD),
    delete: op("clearFaults", "Remove every fault", "FaultsCleared", GUARD),
  },
  "/admin/faults/{faultId}": { delete: op("removeFault", "Remove one fault", "FaultId", ["unknown_fault", ...GUARD]) },
  "/admin/requests": {
    get: op("listRequests", "Read the request journal, newest first (S17)", "Journal", ["invalid_request", ...GUARD], {
      parameters: [
        {
          name: "limit",
          in: "query",
          required: false,
          description: "How many requests, 1 to 1000 (default 100).",
          schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
          example: 20,
        },
      ],
    }),
  },
  "/admin/openapi.json": { get: op("getAdminOpenApiDocument", "This document", "Document", GUARD) },
};

/**
 * Builds the OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), which a reference server
 * answers only when it has an admin token. The server serves it at `GET /admin/openapi.json`.
 *
 * @returns A plain JSON document.
 * @internal
 */
export function createAdminOpenApiDocument(): OpenApiDocument {
  const parts: DocumentParts = {
    info: {
      title: "Admin API of the imagegen-pricing reference server",
      version: "1",
      description:
        "The operator's side of the reference server, for test suites in any language; authorized by the admin token only.",
    },
    auth: ["adminToken", "The server's admin token (never an API key)."],
    schemas: JSON_SCHEMAS.admin,
    examples: createExamples(catalog),
    statuses: { ...SERVER_ERRORS, ...ADMIN_ERRORS },
  };
  return foldDocument(parts, PATHS);
}
