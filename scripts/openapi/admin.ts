/**
 * Builds the OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), which a server serves at
 * `GET /admin/openapi.json`: its operations as rows, folded with the admin components and the
 * built-in catalog's examples. Run when the package is built (scripts/openapi-json.ts).
 */
import { catalog } from "../../src/models/catalog.js";
import { ADMIN_ERRORS, SERVER_ERRORS } from "../../src/server/errors.js";
import type { OpenApiDocument } from "../../src/server/openapi/document.js";
import { components, foldDocument, type Operation } from "./document.js";
import { ADMIN_SCHEMAS } from "./schemas.js";

const ADMIN = [
  "missing_admin_token",
  "invalid_admin_token",
  "too_many_attempts",
  "service_unavailable",
];
const BODY = [
  "invalid_json",
  "invalid_request",
  "payload_too_large",
  "unsupported_media_type",
  ...ADMIN,
];
const USER = ["unknown_user", ...ADMIN];
const USER_BODY = ["unknown_user", ...BODY];
const JOB = ["unknown_job", ...ADMIN];
const LIMIT = {
  name: "limit",
  in: "query",
  required: false,
  schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
  example: 20,
};

const OPERATIONS: readonly Operation[] = [
  [
    "POST /admin/users",
    "createUser",
    "Create a user with an opening grant",
    [201, "CreatedUser"],
    BODY,
    "NewUser",
  ],
  [
    "GET /admin/users/{userId}",
    "getUser",
    "Read a user's balance and multiplier",
    [200, "User"],
    USER,
  ],
  [
    "POST /admin/users/{userId}/api-keys",
    "createApiKey",
    "Make an API key (shown once)",
    [201, "CreatedApiKey"],
    USER_BODY,
    "NewApiKey?",
  ],
  [
    "POST /admin/users/{userId}/assets",
    "createAsset",
    "Add an asset owned by a user",
    [201, "CreatedAsset"],
    USER,
  ],
  [
    "PUT /admin/users/{userId}/multiplier",
    "setMultiplier",
    "Set a user's multiplier",
    [200, "MultiplierSet"],
    USER_BODY,
    "MultiplierChange",
  ],
  [
    "POST /admin/users/{userId}/grants",
    "grantCredits",
    "Grant credits to a user",
    [200, "Balance"],
    USER_BODY,
    "Grant",
  ],
  [
    "GET /admin/users/{userId}/ledger",
    "getLedger",
    "Read a user's ledger, oldest first (S13)",
    [200, "Ledger"],
    USER,
  ],
  [
    "POST /admin/api-keys/{apiKeyId}/revoke",
    "revokeApiKey",
    "Revoke an API key",
    [200, "RevokedApiKey"],
    ["unknown_api_key", ...ADMIN],
  ],
  ["GET /admin/jobs/{jobId}", "getJob", "Read a job", [200, "Job"], JOB],
  [
    "POST /admin/jobs/{jobId}/fail",
    "failJob",
    "Fail a job and refund its charge, once (S6)",
    [200, "Refund"],
    JOB,
  ],
  [
    "GET /admin/tasks/{taskId}",
    "getTask",
    "Read a task as stored (S8)",
    [200, "Task"],
    ["unknown_task", ...ADMIN],
  ],
  [
    "POST /admin/reset",
    "reset",
    "Reset to the start-up fixtures and real time (S17)",
    [200, "ResetDone"],
    BODY,
    "ResetRequest?",
  ],
  ["GET /admin/clock", "getClock", "Read the test clock (S17)", [200, "Clock"], ADMIN],
  [
    "POST /admin/clock",
    "setClock",
    "Freeze, advance or run the test clock (S17)",
    [200, "Clock"],
    BODY,
    "ClockChange",
  ],
  [
    "POST /admin/faults",
    "addFault",
    "Add a fault to the service's requests (S17)",
    [201, "FaultId"],
    BODY,
    "NewFault",
  ],
  [
    "GET /admin/faults",
    "listFaults",
    "List the faults still waiting, oldest first",
    [200, "Faults"],
    ADMIN,
  ],
  ["DELETE /admin/faults", "clearFaults", "Remove every fault", [200, "FaultsCleared"], ADMIN],
  [
    "DELETE /admin/faults/{faultId}",
    "removeFault",
    "Remove one fault",
    [200, "FaultId"],
    ["unknown_fault", ...ADMIN],
  ],
  [
    "GET /admin/requests",
    "listRequests",
    "Read the request journal, newest first (S17)",
    [200, "Journal"],
    ["invalid_request", ...ADMIN],
    undefined,
    { parameters: [LIMIT] },
  ],
  ["GET /admin/openapi.json", "getAdminOpenApiDocument", "This document", [200, "Document"], ADMIN],
];

/**
 * Builds the OpenAPI 3.1 document of the admin HTTP API (`/admin/...`): what
 * data/admin-openapi.json holds.
 *
 * @returns The document, as plain JSON.
 */
export function buildAdminOpenApiDocument(): OpenApiDocument {
  const info = {
    title: "Admin API of the imagegen-pricing reference server",
    version: "1",
    description:
      "The operator's side of the reference server, for test suites in any language; only the admin token opens it.",
  };
  const auth = ["adminToken", "The server's admin token (never an API key)."] as const;
  const statuses = { ...SERVER_ERRORS, ...ADMIN_ERRORS };
  return foldDocument(
    { info, auth, schemas: components(ADMIN_SCHEMAS), catalog, statuses },
    OPERATIONS,
  );
}
