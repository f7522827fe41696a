/**
 * The OpenAPI 3.1 document of the four endpoints, and the valibot schemas of every answer it
 * describes: the handlers build their answers as these types, and the document is built from the
 * same schemas converted to JSON Schema ahead of time (scripts/jsonSchemas.ts), so the two cannot
 * drift apart and the converter is not needed at run time.
 */
import * as v from "valibot";
import { JSON_SCHEMAS } from "../generated/jsonSchemas.js";
import { catalog as builtIn } from "../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import type { Catalog } from "../models/modelSpec.js";
import { ADMIN_ERRORS } from "./adminApi.js";
import { SERVER_ERRORS, type ServerErrorCode } from "./errors.js";

/** One problem of a request. */
export const IssueSchema = v.object({ path: v.string(), code: v.string(), message: v.string() });

/** The body of every failed request (S12). */
export const ErrorBodySchema = v.object({
  error: v.object({
    message: v.string(),
    code: v.picklist(Object.keys(SERVER_ERRORS) as ServerErrorCode[]),
    param: v.optional(v.string()),
    issues: v.optional(v.array(IssueSchema)),
    requestId: v.string(),
  }),
});

const wholeCredits = v.pipe(v.number(), v.integer(), v.minValue(0));

const Billing = v.object({ totalCreditCost: wholeCredits, balanceAfterCredits: wholeCredits });

/** The 202 answer of `POST /api/generations` (S3). */
export const GenerationAcceptedSchema = v.object({
  batch: v.object({
    /** The task made (an addition to the interface's fields). */
    taskId: v.pipe(v.string(), v.regex(/^task_/)),
    request: v.object({
      imageCount: v.pipe(v.number(), v.integer(), v.minValue(1)),
      modelId: v.string(),
      aspectRatio: v.picklist(ASPECT_RATIOS),
      resolution: v.picklist(RESOLUTIONS),
      prompt: v.string(),
    }),
    results: v.array(
      v.object({
        job: v.object({ id: v.pipe(v.string(), v.regex(/^job_/)), status: v.literal("queued") }),
        assets: v.array(v.unknown()),
      }),
    ),
    ...Billing.entries,
  }),
  billing: Billing,
});

const CATALOG_VERSION = v.pipe(
  v.string(),
  v.description("The version of the catalog that priced this quote: the UTC date (YYYY-MM-DD) its prices took effect (P8)."),
);

/**
 * The next price change a server already knows of (P8): a later catalog, when it takes effect, and
 * what the quoted spec costs from then at the caller's current multiplier.
 */
export const NextChangeSchema = v.pipe(
  v.object({
    version: v.pipe(v.string(), v.description("The later catalog's version: the UTC date (YYYY-MM-DD) it takes effect.")),
    effectiveAt: v.pipe(
      v.string(),
      v.isoTimestamp(),
      v.description(
        "When it takes effect: 00:00 UTC of that date, as an ISO 8601 date-time. Quotes from this instant on use it.",
      ),
    ),
    credits: v.pipe(
      v.nullable(wholeCredits),
      v.description(
        "What the same spec will cost per image under that catalog at the caller's current multiplier; null when that catalog cannot price it.",
      ),
    ),
  }),
  v.description(
    "Present only when the server already knows a later catalog than the one in force (P8): a price preview can say when prices change. Absent otherwise.",
  ),
);

/** A priced quote (S11). */
export const PricedQuoteSchema = v.object({
  credits: wholeCredits,
  breakdown: v.object({
    modelId: v.string(),
    resolution: v.picklist(RESOLUTIONS),
    quality: v.picklist(QUALITIES),
    baseCredits: wholeCredits,
    referenceCount: wholeCredits,
    referenceSurchargeCredits: wholeCredits,
    subtotalCredits: wholeCredits,
    multiplier: v.string(),
    rounding: v.literal("half-up"),
    credits: wholeCredits,
  }),
  catalogVersion: CATALOG_VERSION,
  nextChange: v.optional(NextChangeSchema),
});

/** A well-formed spec that cannot be priced: `credits: null` and why (P2, S11). */
export const UnpricedQuoteSchema = v.object({
  credits: v.null(),
  reason: v.string(),
  message: v.string(),
  catalogVersion: CATALOG_VERSION,
  nextChange: v.optional(NextChangeSchema),
});

/** The 200 answer of `POST /api/pricing/quote`. */
export const QuoteAnswerSchema = v.union([PricedQuoteSchema, UnpricedQuoteSchema]);

/** The 200 answer of `GET /api/ping` (S9). */
export const PingAnswerSchema = v.object({
  ok: v.literal(true),
  service: v.string(),
  authProvider: v.literal("api_key"),
  userId: v.pipe(v.string(), v.regex(/^usr_/)),
  apiKeyId: v.pipe(v.string(), v.regex(/^apk_/)),
});

/** The 200 answer of `GET /api/query/credits` (S10). */
export const CreditsAnswerSchema = v.object({
  creditBalance: wholeCredits,
  currency: v.literal("credits"),
  userId: v.pipe(v.string(), v.regex(/^usr_/)),
  apiKeyId: v.pipe(v.string(), v.regex(/^apk_/)),
});

/** The next price change in a quote answer (P8). */
export type NextChange = v.InferOutput<typeof NextChangeSchema>;
/** The 200 body of a quote: the core's quote, and the next price change when one is known. */
export type QuoteAnswer = v.InferOutput<typeof QuoteAnswerSchema>;
/** The 202 body of an accepted generation. */
export type GenerationAccepted = v.InferOutput<typeof GenerationAcceptedSchema>;
/** The 200 body of a ping. */
export type PingAnswer = v.InferOutput<typeof PingAnswerSchema>;
/** The 200 body of a credits query. */
export type CreditsAnswer = v.InferOutput<typeof CreditsAnswerSchema>;

/** A JSON object (the document is plain JSON). */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

type JsonObject = Record<string, unknown>;

/** A converted schema as a new object, without the draft-07 `$schema` (OpenAPI 3.1 names its own dialect). */
function jsonSchema(name: keyof typeof JSON_SCHEMAS): JsonObject {
  // Trimming, de-duplication and cross-field checks have no JSON Schema form; they are documented
  // in the descriptions below and enforced by the server.
  const out = structuredClone(JSON_SCHEMAS[name]) as JsonObject;
  delete out.$schema;
  return out;
}

/** Adds to a property what valibot's pipes (trim, then a list) do not carry over. */
function refine(schema: JsonObject, extra: Record<string, JsonObject>): JsonObject {
  const properties = schema.properties as Record<string, JsonObject>;
  for (const [name, more] of Object.entries(extra)) properties[name] = { ...properties[name], ...more };
  return { ...schema, additionalProperties: false };
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A quote answer's schema, its `nextChange` named once as a component so that clients get one type for it. */
function quoteSchema(name: "pricedQuote" | "unpricedQuote"): JsonObject {
  const out = jsonSchema(name);
  (out.properties as Record<string, unknown>).nextChange = ref("NextChange");
  return out;
}
const jsonContent = (name: string) => ({ "application/json": { schema: ref(name) } });
const errorResponse = (description: string) => ({ description, content: jsonContent("Error") });
const codesOf = (status: number) =>
  Object.entries(SERVER_ERRORS)
    .filter(([, s]) => s === status)
    .map(([code]) => `\`${code}\``)
    .join(", ");

const ERRORS: Record<number, string> = {
  400: "Invalid JSON or request",
  401: "Missing, malformed, unknown or revoked API key",
  402: "Too few credits; nothing was charged",
  409: "The idempotencyKey was used with a different request",
  413: "Body over the size limit",
  415: "Body is not application/json",
  503: "The store cannot be reached; nothing was charged. Retry after the Retry-After header's seconds",
};
const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
};
const errors = (...statuses: number[]): JsonObject =>
  Object.fromEntries(
    statuses.map((s) => {
      const response = errorResponse(`${ERRORS[s]} (${codesOf(s)}).`);
      return [String(s), s === 503 ? { ...response, headers: RETRY_AFTER } : response];
    }),
  );
/** The error answers of an endpoint that prices: its 503 also covers a price history whose first catalog is still ahead (P8). */
const pricingErrors = (...statuses: number[]): JsonObject => ({
  ...errors(...statuses),
  "503": {
    ...errorResponse(
      `The store cannot be reached, or no catalog is in force yet (a price history whose first catalog is still ahead); nothing was charged. Retry after the Retry-After header's seconds (${codesOf(503)}).`,
    ),
    headers: RETRY_AFTER,
  },
});

/** The package's license, as both documents state it. */
const LICENSE = { name: "MIT", identifier: "MIT" };

/**
 * Where the documents' paths are: the server that serves them, whatever its address (a relative
 * URL resolves against the document's own), and the default address of `imagegen-pricing serve`.
 */
const SERVERS = [
  { url: "/", description: "The server that serves this document." },
  { url: "http://127.0.0.1:8787", description: "imagegen-pricing serve (and npm start) on its default address." },
];

/**
 * Builds the OpenAPI 3.1 document of the reference server for a catalog.
 *
 * @param catalog - Whose model ids the request schema lists (default: the built-in one).
 * @returns A plain JSON document.
 */
export function createOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const generationRequest = refine(jsonSchema("requestInput"), {
    prompt: { maxLength: LIMITS.promptMaxChars, description: "Trimmed; 1 to 12000 characters (code points)." },
    modelId: { enum: Object.keys(catalog.models), default: catalog.defaultModelId },
    generationType: { enum: [...GENERATION_TYPES] },
    aspectRatio: { enum: [...ASPECT_RATIOS], description: "Default: the model's (9:16). Each model accepts a subset." },
    resolution: { enum: [...RESOLUTIONS], description: "Default: 1K for the 2.5 models, 2K otherwise; alpha-img2 needs 1K." },
    quality: { enum: [...QUALITIES] },
    background: { enum: [...BACKGROUNDS] },
    inputAssetIds: {
      maxItems: LIMITS.maxReferences,
      description: "Trimmed and de-duplicated; required for image-to-image, empty for text-to-image.",
    },
    idempotencyKey: {
      maxLength: LIMITS.idempotencyKeyMaxChars,
      description: "Trimmed; 1 to 128 characters. The same key with the same request replays the first answer.",
    },
  });
  const quoteSpec = refine(jsonSchema("quoteSpec"), {
    kind: { description: 'Trimmed. "image" is priced; any other kind quotes credits: null (reason invalid_kind).' },
    modelId: { description: "Trimmed. An unknown model quotes credits: null (reason unknown_model)." },
    resolution: { enum: [...RESOLUTIONS], description: "Default: the model's default resolution." },
    quality: { enum: [...QUALITIES], description: "Default: low." },
  });

  const secured = (summary: string, operationId: string, rest: JsonObject) => ({ summary, operationId, ...rest });

  return {
    openapi: "3.1.0",
    info: {
      title: "Image generation task service (imagegen-pricing reference server)",
      version: catalog.version,
      description:
        "Creates image generation tasks charged in credits, quotes prices, and reports the balance. " +
        "Every failure is { error: { message, code, param?, issues?, requestId } }; every response has a Request-Id header.",
      license: LICENSE,
    },
    servers: SERVERS,
    security: [{ bearerAuth: [] }],
    paths: {
      "/api/generations": {
        post: secured("Create an image generation task", "createGeneration", {
          parameters: [
            {
              name: "Idempotency-Key",
              in: "header",
              required: false,
              description:
                "The idempotency key of a body without idempotencyKey, checked by the same rules (trimmed; 1 to 128 characters). A body that has idempotencyKey too must carry the same key: different keys are 400 invalid_request with an idempotency_key_mismatch issue at idempotencyKey.",
              schema: { type: "string", minLength: 1, maxLength: LIMITS.idempotencyKeyMaxChars },
            },
          ],
          requestBody: { required: true, content: jsonContent("GenerationRequest") },
          responses: {
            "202": {
              description: "Accepted: every job queued, the whole charge debited.",
              headers: {
                "Idempotent-Replayed": {
                  description: "`true` when this is the stored answer of an earlier request with the same idempotencyKey.",
                  schema: { type: "string", enum: ["true"] },
                },
              },
              content: jsonContent("GenerationAccepted"),
            },
            ...pricingErrors(400, 401, 402, 409, 413, 415),
          },
        }),
      },
      "/api/pricing/quote": {
        post: secured("Price one output image for the caller's account", "quotePrice", {
          requestBody: { required: true, content: jsonContent("QuoteSpec") },
          responses: {
            "200": {
              description:
                "The price, or credits: null with a reason, from the catalog in force now (catalogVersion); nextChange says when a later catalog already known takes effect.",
              content: jsonContent("Quote"),
            },
            ...pricingErrors(400, 401, 413, 415),
          },
        }),
      },
      "/api/ping": {
        get: secured("Check connectivity and who authenticated", "ping", {
          responses: { "200": { description: "Authenticated.", content: jsonContent("Ping") }, ...errors(401, 503) },
        }),
      },
      "/api/query/credits": {
        get: secured("Read the remaining credits", "queryCredits", {
          responses: { "200": { description: "The balance.", content: jsonContent("Credits") }, ...errors(401, 503) },
        }),
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: ck_live_... or ck_test_..." },
      },
      schemas: {
        GenerationRequest: generationRequest,
        GenerationAccepted: jsonSchema("generationAccepted"),
        QuoteSpec: quoteSpec,
        Quote: { anyOf: [ref("PricedQuote"), ref("UnpricedQuote")] },
        PricedQuote: quoteSchema("pricedQuote"),
        UnpricedQuote: quoteSchema("unpricedQuote"),
        NextChange: jsonSchema("nextChange"),
        Ping: jsonSchema("ping"),
        Credits: jsonSchema("credits"),
        Error: jsonSchema("error"),
      },
    },
  };
}

// The admin API's document

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
const adminError = (description: string) => ({ description, content: jsonContent("Error") });
const ADMIN_FAILURES = {
  "401": adminError("No admin token, or anything else (an API key included): `missing_admin_token`, `invalid_admin_token`."),
  "429": {
    ...adminError(
      "Too many wrong admin tokens from this address within the window; every admin request from it is refused until the window ends (`too_many_attempts`).",
    ),
    headers: RETRY_AFTER,
  },
  "503": { ...adminError("The store cannot be reached; nothing changed (`service_unavailable`)."), headers: RETRY_AFTER },
};
const BAD_BODY = {
  "400": adminError(
    "A body field is missing, unknown or invalid (`invalid_request`, see `issues`), or the body is not JSON (`invalid_json`).",
  ),
  "413": adminError("Body over the size limit (`payload_too_large`)."),
  "415": adminError("A body that is not application/json (`unsupported_media_type`)."),
};
const unknown = (what: string, code: string) => ({ "404": adminError(`There is no such ${what} (\`${code}\`).`) });
const pathId = (name: string, description: string, prefix: string) => ({
  name,
  in: "path",
  required: true,
  description,
  schema: ID(prefix),
});
const USER_ID = pathId("userId", "The user's id.", "usr");
const ok = (status: string, description: string, schema: string) => ({
  [status]: { description, content: jsonContent(schema) },
});
const body = (schema: string, required = true) => ({ required, content: jsonContent(schema) });

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
        "multipliers, grants, failing jobs, balances and the ledger. Authorized by the admin token only; an API key " +
        "gets 401 here, and the admin token gets 401 on the service's endpoints. Failures have the service's shape, " +
        "{ error: { message, code, param?, issues?, requestId } }, and every response has a Request-Id header.",
      license: LICENSE,
    },
    servers: SERVERS,
    security: [{ adminToken: [] }],
    paths: {
      "/admin/users": {
        post: op("Create a user with an opening grant", "createUser", {
          requestBody: body("NewUser"),
          responses: { ...ok("201", "Created.", "CreatedUser"), ...BAD_BODY, ...ADMIN_FAILURES },
        }),
      },
      "/admin/users/{userId}": {
        get: op("Read a user's balance and multiplier", "getUser", {
          parameters: [USER_ID],
          responses: { ...ok("200", "The user.", "User"), ...unknown("user", "unknown_user"), ...ADMIN_FAILURES },
        }),
      },
      "/admin/users/{userId}/api-keys": {
        post: op("Make an API key for a user (shown once)", "createApiKey", {
          parameters: [USER_ID],
          requestBody: body("NewApiKey", false),
          responses: {
            ...ok("201", "The key, shown only in this answer.", "CreatedApiKey"),
            ...BAD_BODY,
            ...unknown("user", "unknown_user"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/assets": {
        post: op("Add an asset owned by a user", "createAsset", {
          parameters: [USER_ID],
          responses: { ...ok("201", "Created.", "CreatedAsset"), ...unknown("user", "unknown_user"), ...ADMIN_FAILURES },
        }),
      },
      "/admin/users/{userId}/multiplier": {
        put: op("Set a user's price multiplier", "setMultiplier", {
          parameters: [USER_ID],
          requestBody: body("MultiplierChange"),
          responses: {
            ...ok("200", "Set; tasks already accepted keep their charges (S7).", "MultiplierSet"),
            ...BAD_BODY,
            ...unknown("user", "unknown_user"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/grants": {
        post: op("Grant credits to a user", "grantCredits", {
          parameters: [USER_ID],
          requestBody: body("Grant"),
          responses: {
            ...ok("200", "Granted: a grant entry in the ledger.", "Balance"),
            ...BAD_BODY,
            ...unknown("user", "unknown_user"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/users/{userId}/ledger": {
        get: op("Read a user's ledger, oldest first", "getLedger", {
          parameters: [USER_ID],
          responses: {
            ...ok("200", "Grants, debits and refunds (S13).", "Ledger"),
            ...unknown("user", "unknown_user"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/api-keys/{apiKeyId}/revoke": {
        post: op("Revoke an API key", "revokeApiKey", {
          parameters: [pathId("apiKeyId", "The key's id (not the key).", "apk")],
          responses: {
            ...ok("200", "Revoked (again is fine).", "RevokedApiKey"),
            ...unknown("API key", "unknown_api_key"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/jobs/{jobId}": {
        get: op("Read a job", "getJob", {
          parameters: [pathId("jobId", "The job's id.", "job")],
          responses: { ...ok("200", "The job.", "Job"), ...unknown("job", "unknown_job"), ...ADMIN_FAILURES },
        }),
      },
      "/admin/jobs/{jobId}/fail": {
        post: op("Fail a job and refund its charge, once", "failJob", {
          parameters: [pathId("jobId", "The job's id.", "job")],
          responses: {
            ...ok("200", "The credits refunded: the job's stored charge, or 0 when it had failed before (S6).", "Refund"),
            ...unknown("job", "unknown_job"),
            ...ADMIN_FAILURES,
          },
        }),
      },
      "/admin/tasks/{taskId}": {
        get: op("Read a task as stored", "getTask", {
          parameters: [pathId("taskId", "The task's id.", "task")],
          responses: { ...ok("200", "The task (S8).", "Task"), ...unknown("task", "unknown_task"), ...ADMIN_FAILURES },
        }),
      },
      "/admin/openapi.json": {
        get: op("This document", "getAdminOpenApiDocument", {
          responses: {
            "200": {
              description: "The admin API's OpenAPI document.",
              content: { "application/json": { schema: { type: "object" } } },
            },
            ...ADMIN_FAILURES,
          },
        }),
      },
    },
    components: {
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
