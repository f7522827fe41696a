/**
 * The OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), served at `GET /admin/openapi.json`.
 */

import { catalog } from "../../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, QUALITIES, RESOLUTIONS } from "../../models/lists.js";
import { ADMIN_ERRORS } from "../errors.js";
import { type JsonObject, jsonContent, LICENSE, type OpenApiDocument, RETRY_AFTER, ref, SERVERS } from "./document.js";
import { adminExamples, type Examples } from "./examples.js";

const obj = (properties: Record<string, JsonObject>, required: string[] = Object.keys(properties)): JsonObject => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const WHOLE = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
const MULTIPLIER_IN = {
  description: 'A plain decimal from 0 to 1000, such as "1.15" (or a number in that range); default 1 (P4).',
  type: ["string", "number"],
};
const MULTIPLIER_OUT = {
  type: "string",
  description: 'The multiplier as an exact plain decimal, such as "1.15".',
  example: "1.15",
};
const ID = (prefix: string) => ({ type: "string", pattern: `^${prefix}_` });
const ADMIN_CODES = [
  ...Object.keys(ADMIN_ERRORS),
  "invalid_json",
  "not_found",
  "method_not_allowed",
  "payload_too_large",
  "unsupported_media_type",
  "internal_error",
  "service_unavailable",
];
/** Every example of this document, made once: the document is built on each call, the examples are not. */
const EX = /* @__PURE__ */ adminExamples(catalog);
const adminError = (description: string, examples?: Examples) => ({ description, content: jsonContent("Error", examples) });
/**
 * The answers every admin operation can give, written once under `components.responses` and
 * referenced from each operation (a generated client gets one type for each).
 */
const SHARED_RESPONSES = {
  AdminUnauthorized: adminError(
    "No admin token, or anything else (an API key included): `missing_admin_token`, `invalid_admin_token`.",
    EX.errors.unauthorized,
  ),
  TooManyAttempts: {
    ...adminError(
      "Too many wrong admin tokens from this address within the window; every admin request from it is refused until the window ends (`too_many_attempts`).",
      EX.errors.throttled,
    ),
    headers: RETRY_AFTER,
  },
  AdminUnavailable: {
    ...adminError("The store cannot be reached; nothing changed (`service_unavailable`).", EX.errors.unavailable),
    headers: RETRY_AFTER,
  },
  PayloadTooLarge: adminError("Body over the size limit (`payload_too_large`).", EX.errors.payloadTooLarge),
  UnsupportedMediaType: adminError(
    "A body that is not application/json (`unsupported_media_type`).",
    EX.errors.unsupportedMediaType,
  ),
};
const shared = (name: keyof typeof SHARED_RESPONSES) => ({ $ref: `#/components/responses/${name}` });
const ADMIN_FAILURES = {
  "401": shared("AdminUnauthorized"),
  "429": shared("TooManyAttempts"),
  "503": shared("AdminUnavailable"),
};
/** The answers to a body that is not right, with examples of the field that is wrong in it. */
const badBody = (invalid: Examples) => ({
  "400": adminError(
    "A body field is missing, unknown or invalid (`invalid_request`, see `issues`), or the body is not JSON (`invalid_json`).",
    invalid,
  ),
  "413": shared("PayloadTooLarge"),
  "415": shared("UnsupportedMediaType"),
});
const unknown = (what: string, code: string, examples?: Examples) => ({
  "404": adminError(`There is no such ${what} (\`${code}\`).`, examples),
});
const pathId = (name: string, description: string, prefix: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: ID(prefix),
});
const USER_ID = pathId("userId", "The user's id.", "usr");
const ok = (status: string, description: string, schema: string, examples?: Examples) => ({
  [status]: { description, content: jsonContent(schema, examples) },
});
const body = (schema: string, required = true, examples?: Examples) => ({ required, content: jsonContent(schema, examples) });
const UNKNOWN_USER = unknown("user", "unknown_user", EX.errors.unknownUser);
/** JSON content of a schema with named examples. */
const withExamples = (schema: string, examples: Record<string, { summary: string; value: unknown }>) => ({
  "application/json": { schema: ref(schema), examples },
});
const CLOCK_EXAMPLE = { now: "2027-01-01T00:00:00.000Z", frozen: true };
const CLOCK_ANSWER = {
  "200": {
    description: "The clock now.",
    content: withExamples("Clock", { frozen: { summary: "Frozen at a price change", value: CLOCK_EXAMPLE } }),
  },
};
/** JSON content of a schema with an example. */
const example = (schema: string, value: unknown) => ({ "application/json": { schema: ref(schema), example: value } });
const okExample = (status: string, description: string, schema: string, value: unknown) => ({
  [status]: { description, content: example(schema, value) },
});

// The test-double controls (S17); the same values as FAULT_KINDS, FAULT_PATHS, FAULT_METHODS and
// FAULT_LIMITS, which this layer cannot import (a test compares them).
const FAULT_KIND_VALUES = ["unavailable", "internal", "delay", "lose_answer"];
const FAULT_PATH_VALUES = ["/api/generations", "/api/pricing/quote", "/api/ping", "/api/query/credits"];
const FAULT_METHOD_VALUES = ["GET", "POST"];
const FAULT_ID = { type: "string", pattern: "^flt_[0-9a-f]{16}$" };
const FAULT_FIELDS = {
  method: { enum: FAULT_METHOD_VALUES, description: "Only this method (a HEAD counts as its GET); default any." },
  path: { enum: FAULT_PATH_VALUES, description: "Only this service path, matched exactly; default any of them." },
  apiKeyId: { ...ID("apk"), description: "Only requests made with this API key (its id, never the key); default any." },
  kind: {
    enum: FAULT_KIND_VALUES,
    description:
      "unavailable: 503 service_unavailable with Retry-After, nothing changed; internal: 500 internal_error, nothing " +
      "changed; delay: the request is carried out and its normal answer held delayMs; lose_answer: the request is " +
      "carried out in full (charged, committed) and the connection closes without a response.",
  },
  delayMs: { type: "integer", minimum: 0, maximum: 60_000, description: "delay only, and required there." },
  retryAfterS: { type: "integer", minimum: 1, maximum: 3600, description: "unavailable only; default 1." },
};
const FAULT_EXAMPLE = { faultId: "flt_3f9a0c1e5b7d2a64" };
const JOURNAL_EXAMPLE = {
  requestId: "req_5c0e2b9a1f3d7e68",
  method: "POST",
  path: "/api/generations",
  status: 202,
  at: "2026-03-01T12:00:00.000Z",
  durationMs: 3.2,
  apiKeyId: "apk_0a1b2c3d4e5f6a7b",
  idempotencyKey: "order-7",
};

/**
 * Builds the OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), which a reference server
 * answers only when it has an admin token (`createReferenceServer({ adminToken })` or
 * `imagegen-pricing serve --admin-token`). The server serves it at `GET /admin/openapi.json`.
 *
 * @returns A plain JSON document.
 */
export function createAdminOpenApiDocument(): OpenApiDocument {
  const op = (summary: string, operationId: string, rest: JsonObject) => ({ summary, operationId, ...rest });
  return {
    openapi: "3.1.0",
    info: {
      title: "Admin API of the imagegen-pricing reference server",
      version: "1",
      description:
        "The operator's side of the reference server, for test suites in any language: users, API keys, assets, " +
        "multipliers, grants, failing jobs, balances, the ledger, and the test-double controls (reset, the test clock, faults on the service's requests, the request journal). Authorized by the admin token only; an API key " +
        "gets 401 here, and the admin token gets 401 on the service's endpoints. Failures have the service's shape, " +
        "{ error: { message, code, param?, issues?, requestId } }, and every response has a Request-Id header.",
      license: LICENSE,
    },
    servers: SERVERS,
    security: [{ adminToken: [] }],
    paths: {
      "/admin/users": {
        post: op("Create a user with an opening grant", "createUser", {
          requestBody: body("NewUser", true, EX.newUser),
          responses: {
            ...ok("201", "Created.", "CreatedUser", EX.createdUser),
            ...badBody(EX.errors.newUser),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}": {
        get: op("Read a user's balance and multiplier", "getUser", {
          parameters: [USER_ID],
          responses: { ...ok("200", "The user.", "User", EX.user), ...UNKNOWN_USER, ...ADMIN_FAILURES },
        }),
      },
      "/admin/users/{userId}/api-keys": {
        post: op("Make an API key for a user (shown once)", "createApiKey", {
          parameters: [USER_ID],
          requestBody: body("NewApiKey", false, EX.newApiKey),
          responses: {
            ...ok("201", "The key, shown only in this answer.", "CreatedApiKey", EX.createdApiKey),
            ...badBody(EX.errors.newApiKey),
            ...UNKNOWN_USER,
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/assets": {
        post: op("Add an asset owned by a user", "createAsset", {
          parameters: [USER_ID],
          responses: { ...ok("201", "Created.", "CreatedAsset", EX.createdAsset), ...UNKNOWN_USER, ...ADMIN_FAILURES },
        }),
      },
      "/admin/users/{userId}/multiplier": {
        put: op("Set a user's price multiplier", "setMultiplier", {
          parameters: [USER_ID],
          requestBody: body("MultiplierChange", true, EX.multiplierChange),
          responses: {
            ...ok("200", "Set; tasks already accepted keep their charges (S7).", "MultiplierSet", EX.multiplierSet),
            ...badBody(EX.errors.multiplier),
            ...UNKNOWN_USER,
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/grants": {
        post: op("Grant credits to a user", "grantCredits", {
          parameters: [USER_ID],
          requestBody: body("Grant", true, EX.grant),
          responses: {
            ...ok("200", "Granted: a grant entry in the ledger.", "Balance", EX.balance),
            ...badBody(EX.errors.grant),
            ...UNKNOWN_USER,
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/ledger": {
        get: op("Read a user's ledger, oldest first", "getLedger", {
          parameters: [USER_ID],
          responses: {
            ...ok("200", "Grants, debits and refunds (S13).", "Ledger", EX.ledger),
            ...UNKNOWN_USER,
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/api-keys/{apiKeyId}/revoke": {
        post: op("Revoke an API key", "revokeApiKey", {
          parameters: [pathId("apiKeyId", "The key's id (not the key).", "apk")],
          responses: {
            ...ok("200", "Revoked (again is fine).", "RevokedApiKey", EX.revokedApiKey),
            ...unknown("API key", "unknown_api_key", EX.errors.unknownApiKey),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/jobs/{jobId}": {
        get: op("Read a job", "getJob", {
          parameters: [pathId("jobId", "The job's id.", "job")],
          responses: {
            ...ok("200", "The job.", "Job", EX.job),
            ...unknown("job", "unknown_job", EX.errors.unknownJob),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/jobs/{jobId}/fail": {
        post: op("Fail a job and refund its charge, once", "failJob", {
          parameters: [pathId("jobId", "The job's id.", "job")],
          responses: {
            ...ok(
              "200",
              "The credits refunded: the job's stored charge, or 0 when it had failed before (S6).",
              "Refund",
              EX.refund,
            ),
            ...unknown("job", "unknown_job", EX.errors.unknownJob),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/tasks/{taskId}": {
        get: op("Read a task as stored", "getTask", {
          parameters: [pathId("taskId", "The task's id.", "task")],
          responses: {
            ...ok("200", "The task (S8).", "Task", EX.task),
            ...unknown("task", "unknown_task", EX.errors.unknownTask),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/reset": {
        post: op("Reset to the start-up fixtures (S17)", "reset", {
          description:
            "Empties the state (users, keys, assets, tasks, jobs, idempotency claims, the ledger), loads the fixtures " +
            "the server was started with again and puts the clock back on real time. Requests that arrive meanwhile " +
            "wait for the fixtures. Send no body, or {}.",
          requestBody: {
            required: false,
            content: withExamples("ResetRequest", { empty: { summary: "No fields (or no body at all)", value: {} } }),
          },
          responses: {
            "200": {
              description: "Reset: the start-up fixtures are loaded and the clock runs on real time.",
              content: withExamples("ResetDone", {
                reset: { summary: "Done", value: { reset: true, clock: { now: "2026-11-23T09:30:00.000Z", frozen: false } } },
              }),
            },
            ...badBody(EX.errors.reset),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/clock": {
        get: op("Read the test clock (S17)", "getClock", {
          description:
            "The instant every part of the server reads as now (prices in force, ledger times, task times, idempotency windows).",
          responses: { ...CLOCK_ANSWER, ...ADMIN_FAILURES },
        }),
        post: op("Freeze, advance or run the test clock (S17)", "setClock", {
          description:
            "Exactly one field. `now` freezes the clock at that instant, which may not be before the clock's now " +
            "(time never runs backward: 400 naming `now`, clock unchanged). `advanceMs` moves it forward: a frozen " +
            "clock stays frozen at the later instant; a running clock runs on ahead of real time by that much. " +
            "`frozen: true` freezes it where it is; `frozen: false` sets it running at real speed, on real time again " +
            "unless the clock stands ahead of real time, in which case it runs on from its now. A reset puts it back on real time.",
          requestBody: {
            required: true,
            content: withExamples("ClockChange", {
              freeze: { summary: "Freeze at an instant", value: { now: "2027-01-01T00:00:00Z" } },
              advance: { summary: "Move forward one day", value: { advanceMs: 86_400_000 } },
              run: { summary: "Run again at real speed", value: { frozen: false } },
            }),
          },
          responses: { ...CLOCK_ANSWER, ...badBody(EX.errors.clock), ...ADMIN_FAILURES },
        }),
      },
      "/admin/faults": {
        post: op("Add a fault to the service's requests (S17)", "addFault", {
          description:
            "The next `times` service requests the fault matches are answered as its kind says, once their API key " +
            "is checked: an unauthenticated request is answered as usual and leaves the fault waiting. The first " +
            "matching fault (oldest first) fires. Faults never touch /admin/ or /openapi.json, live in the server " +
            "process (never in the store) and move no credit except as the request they answer would.",
          requestBody: {
            required: true,
            content: example("NewFault", {
              kind: "unavailable",
              method: "POST",
              path: "/api/generations",
              times: 2,
              retryAfterS: 3,
            }),
          },
          responses: {
            ...okExample("201", "Added.", "CreatedFault", FAULT_EXAMPLE),
            ...badBody(EX.errors.fault),
            ...ADMIN_FAILURES,
          },
        }),
        get: op("List the faults still waiting, oldest first", "listFaults", {
          responses: {
            ...okExample("200", "Each fault with how many times it still fires.", "Faults", {
              faults: [
                { ...FAULT_EXAMPLE, kind: "unavailable", method: "POST", path: "/api/generations", retryAfterS: 3, timesLeft: 2 },
              ],
            }),
            ...ADMIN_FAILURES,
          },
        }),
        delete: op("Remove every fault", "clearFaults", {
          responses: { ...okExample("200", "How many were removed.", "FaultsCleared", { removed: 1 }), ...ADMIN_FAILURES },
        }),
      },
      "/admin/faults/{faultId}": {
        delete: op("Remove one fault", "removeFault", {
          parameters: [
            {
              name: "faultId",
              in: "path",
              required: true,
              description: "The fault's id.",
              schema: FAULT_ID,
              example: FAULT_EXAMPLE.faultId,
            },
          ],
          responses: {
            ...okExample("200", "Removed.", "RemovedFault", FAULT_EXAMPLE),
            ...unknown("fault", "unknown_fault", EX.errors.unknownFault),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/requests": {
        get: op("Read the request journal, newest first (S17)", "listRequests", {
          description:
            "The last 1000 requests to the service's endpoints (never /admin/), newest first. Never a key, a token or a " +
            "prompt: the path is masked like a log line (a run of 16 or more letters, digits, _ or - is <hidden>), and " +
            "so is an idempotency key unless it is a UUID.",
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
          responses: {
            ...okExample("200", "The requests, newest first.", "Journal", { requests: [JOURNAL_EXAMPLE] }),
            "400": adminError("limit is not a whole number from 1 to 1000 (`invalid_request`, param `limit`).", EX.errors.limit),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/openapi.json": {
        get: op("This document", "getAdminOpenApiDocument", {
          responses: {
            "200": {
              description: "The admin API's OpenAPI document.",
              content: { "application/json": { schema: { type: "object" }, examples: EX.document } },
            },
            ...ADMIN_FAILURES,
          },
        }),
      },
    },
    components: {
      responses: structuredClone(SHARED_RESPONSES),
      securitySchemes: {
        adminToken: {
          type: "http",
          scheme: "bearer",
          description: "The server's admin token (never an API key).",
        },
      },
      schemas: {
        NewUser: obj({ credits: { ...WHOLE, description: "The opening grant, in whole credits." }, multiplier: MULTIPLIER_IN }, [
          "credits",
        ]),
        CreatedUser: obj({ userId: ID("usr") }),
        User: obj({ userId: ID("usr"), balance: WHOLE, multiplier: MULTIPLIER_OUT }),
        NewApiKey: obj({ mode: { enum: ["live", "test"], description: "Default test: a ck_test_ key." } }, []),
        CreatedApiKey: obj({ apiKeyId: ID("apk"), key: { type: "string", pattern: "^ck_(live|test)_" } }),
        CreatedAsset: obj({ assetId: ID("ast") }),
        MultiplierChange: obj({ multiplier: MULTIPLIER_IN }),
        MultiplierSet: obj({ userId: ID("usr"), multiplier: MULTIPLIER_OUT }),
        Grant: obj({ credits: { ...WHOLE, description: "Credits to add; the balance stays at most 2^53 - 1." } }),
        Balance: obj({ userId: ID("usr"), balance: WHOLE }),
        LedgerEntry: obj(
          {
            kind: { enum: ["grant", "debit", "refund"] },
            credits: { ...WHOLE, description: "Positive; the kind gives the direction." },
            at: { type: "string", format: "date-time" },
            taskId: ID("task"),
            jobId: ID("job"),
          },
          ["kind", "credits", "at"],
        ),
        Ledger: obj({ entries: { type: "array", items: ref("LedgerEntry") } }),
        RevokedApiKey: obj({ apiKeyId: ID("apk") }),
        Refund: obj({ refundedCredits: WHOLE }),
        ResetRequest: obj({}, []),
        Clock: obj({
          now: { type: "string", format: "date-time", description: "The clock's now, UTC." },
          frozen: { type: "boolean", description: "Whether it stands still at now." },
        }),
        ResetDone: obj({ reset: { const: true }, clock: ref("Clock") }),
        ClockChange: {
          description: "Exactly one of now, advanceMs and frozen.",
          oneOf: [
            obj({
              now: {
                type: "string",
                description: 'An ISO 8601 instant with Z or an offset ("2027-01-01T00:00:00Z"), at or after the clock\'s now.',
              },
            }),
            obj({ advanceMs: { ...WHOLE, description: "Milliseconds to move the clock forward." } }),
            obj({ frozen: { type: "boolean", description: "true: freeze it where it is; false: run at real speed." } }),
          ],
        },
        Job: obj({ jobId: ID("job"), taskId: ID("task"), status: { enum: ["queued", "failed"] }, credits: WHOLE }),
        Task: {
          type: "object",
          description: "A task as stored: its choices, per-job charges and the complete normalized request (S8).",
          required: ["taskId", "userId", "createdAt", "multiplier", "catalogVersion", "totalCreditCost", "jobs", "request"],
          properties: {
            taskId: ID("task"),
            userId: ID("usr"),
            createdAt: { type: "string", format: "date-time" },
            aspectRatio: { enum: [...ASPECT_RATIOS] },
            resolution: { enum: [...RESOLUTIONS] },
            quality: { enum: [...QUALITIES] },
            background: { enum: [...BACKGROUNDS] },
            referenceCount: WHOLE,
            multiplier: MULTIPLIER_OUT,
            catalogVersion: { type: "string" },
            totalCreditCost: WHOLE,
            jobs: { type: "array", items: ref("Job") },
            request: { type: "object", description: "The normalized generation request, with its idempotency key." },
            clientIdempotencyKey: { type: "boolean" },
          },
        },
        NewFault: obj(
          {
            ...FAULT_FIELDS,
            times: {
              type: "integer",
              minimum: 1,
              maximum: 1000,
              description: "How many matching requests it fires on; default 1.",
            },
          },
          ["kind"],
        ),
        CreatedFault: obj({ faultId: FAULT_ID }),
        RemovedFault: obj({ faultId: FAULT_ID }),
        Fault: obj(
          {
            faultId: FAULT_ID,
            ...FAULT_FIELDS,
            timesLeft: { type: "integer", minimum: 1, description: "How many more times it fires." },
          },
          ["faultId", "kind", "timesLeft"],
        ),
        Faults: obj({ faults: { type: "array", items: ref("Fault") } }),
        FaultsCleared: obj({ removed: WHOLE }),
        JournalEntry: obj(
          {
            requestId: { type: "string" },
            method: { type: "string" },
            path: { type: "string", description: "Without query string; a key- or token-shaped run is shown as <hidden>." },
            status: { type: "integer", description: "The answer's status; 0 when the answer was lost on purpose (lose_answer)." },
            at: { type: "string", format: "date-time", description: "When the request arrived, by the server's clock." },
            durationMs: { type: "number", minimum: 0 },
            apiKeyId: ID("apk"),
            idempotencyKey: { type: "string", maxLength: 128 },
            issueCodes: { type: "array", items: { type: "string" }, description: "The issue codes of a 400." },
          },
          ["requestId", "method", "path", "status", "at", "durationMs"],
        ),
        Journal: obj({ requests: { type: "array", items: ref("JournalEntry") } }),
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["message", "code", "requestId"],
              properties: {
                message: { type: "string" },
                code: { enum: ADMIN_CODES },
                param: { type: "string", description: "The body field of the first issue." },
                issues: {
                  type: "array",
                  items: obj({ path: { type: "string" }, code: { type: "string" }, message: { type: "string" } }),
                },
                requestId: { type: "string" },
              },
            },
          },
        },
      },
    },
  };
}
