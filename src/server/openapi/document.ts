/**
 * The OpenAPI 3.1 document of the service's four endpoints, and the one function that folds a table
 * of operations, the converted schemas (src/generated/jsonSchemas.ts) and the examples into a document.
 */
import { JSON_SCHEMAS } from "../../generated/jsonSchemas.js";
import { catalog as builtIn } from "../../models/catalog.js";
import { LIMITS } from "../../models/lists.js";
import type { Catalog } from "../../models/modelSpec.js";
import { SERVER_ERRORS } from "../errors.js";
import { serverMessages as m } from "../messages.js";
import { createExamples, EXAMPLE_IDS, type Examples } from "./examples.js";

/** A JSON object (the document is plain JSON). */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

type JsonObject = Record<string, unknown>;

/** One operation as data: what it takes, what it answers, and the error codes it can answer with. @internal */
export type Operation = {
  summary: string;
  operationId: string;
  /** The request body's component; `optional` when the body may be left out. */
  body?: string;
  optional?: true;
  /** The success answer: its status, its component and what it means. */
  answer: [status: number, schema: string, description: string];
  errors: readonly string[];
  parameters?: JsonObject[];
  headers?: JsonObject;
};

/** What a document is made of besides its operations. @internal */
export type DocumentParts = {
  info: { title: string; version: string; description: string };
  /** The bearer scheme's name and what it takes. */
  auth: [name: string, description: string];
  schemas: Record<string, unknown>;
  examples: Examples;
  /** Each error code's status. */
  statuses: Readonly<Record<string, number>>;
};

const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
};
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * Folds operations into an OpenAPI 3.1 document: each body and answer refers to its component with
 * its example, each error status lists its codes with one example of each, and each `{name}` of a
 * path is a parameter whose example is the examples' id.
 *
 * @param parts - The document's info, authentication, components, examples and error statuses.
 * @param paths - The operations by path and method.
 * @returns A plain JSON document.
 * @internal
 */
export function foldDocument(parts: DocumentParts, paths: Record<string, Record<string, Operation>>): OpenApiDocument {
  const { bodies, errors, invalid } = parts.examples;
  const content = (schema: string, media: unknown) => ({
    "application/json": { schema: ref(schema), ...(media as JsonObject) },
  });
  const example = (schema: string) => content(schema, bodies[schema as keyof typeof bodies]);
  const errorSchema = "AdminError" in parts.schemas ? "AdminError" : "Error";
  const failure = (code: string, operationId: string): JsonObject => {
    const issues = code === "invalid_request" ? invalid[operationId] : undefined;
    const [message, param] = issues ? [m.invalidRequest(issues), issues[0]?.path] : (errors[code] ?? []);
    return {
      error: {
        message,
        code,
        ...(param === undefined ? {} : { param }),
        ...(issues ? { issues } : {}),
        requestId: "req_2c0b44b53bb54e0b",
      },
    };
  };
  const operation = (path: string, op: Operation) => {
    const byStatus = new Map<number, string[]>();
    for (const code of op.errors)
      byStatus.set(parts.statuses[code] ?? 500, [...(byStatus.get(parts.statuses[code] ?? 500) ?? []), code]);
    const responses: JsonObject = {
      [op.answer[0]]: {
        description: op.answer[2],
        ...(op.headers ? { headers: op.headers } : {}),
        content: example(op.answer[1]),
      },
    };
    for (const [status, codes] of byStatus) {
      const named = Object.fromEntries(codes.map((code) => [code, { value: failure(code, op.operationId) }]));
      responses[status] = {
        description: codes.map((code) => `\`${code}\``).join(", "),
        ...(status === 429 || status === 503 ? { headers: RETRY_AFTER } : {}),
        content: content(errorSchema, { examples: named }),
      };
    }
    const ids = [...path.matchAll(/\{(\w+)\}/g)].map(([, name = ""]) => {
      const id = EXAMPLE_IDS[name as keyof typeof EXAMPLE_IDS];
      return { name, in: "path", required: true, schema: { type: "string", pattern: `^${id.split("_")[0]}_` }, example: id };
    });
    const parameters = [...ids, ...(op.parameters ?? [])];
    return {
      summary: op.summary,
      operationId: op.operationId,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(op.body ? { requestBody: { required: !op.optional, content: example(op.body) } } : {}),
      responses,
    };
  };
  const [scheme, description] = parts.auth;
  return {
    openapi: "3.1.0",
    info: { ...parts.info, license: { name: "MIT", identifier: "MIT" } },
    servers: [
      { url: "/", description: "The server that serves this document." },
      { url: "http://127.0.0.1:8787", description: "imagegen-pricing serve (and npm start) on its default address." },
    ],
    security: [{ [scheme]: [] }],
    paths: Object.fromEntries(
      Object.entries(paths).map(([path, methods]) => [
        path,
        Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(path, op)])),
      ]),
    ),
    components: {
      securitySchemes: { [scheme]: { type: "http", scheme: "bearer", description } },
      schemas: structuredClone(parts.schemas),
    },
  };
}

const KEY = ["missing_api_key", "invalid_api_key", "service_unavailable"];
const BODY = ["invalid_json", "invalid_request", "payload_too_large", "unsupported_media_type"];

/**
 * Builds the OpenAPI 3.1 document of the reference server for a catalog.
 *
 * @param catalog - Whose model ids the request schema lists and whose prices the examples show
 *   (default: the built-in one).
 * @returns A plain JSON document.
 * @internal
 */
export function createOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const schemas = structuredClone(JSON_SCHEMAS.service) as Record<string, JsonObject>;
  // Only the model ids depend on the catalog; lengths in code points and "no other field" (N2, N4,
  // N13) are checks the conversion cannot see.
  const request = schemas.GenerationRequest as { properties: Record<string, JsonObject> };
  request.properties.modelId = { type: "string", enum: Object.keys(catalog.models), default: catalog.defaultModelId };
  Object.assign(request.properties.prompt ?? {}, { maxLength: LIMITS.promptMaxChars });
  Object.assign(request.properties.idempotencyKey ?? {}, { maxLength: LIMITS.idempotencyKeyMaxChars });
  schemas.GenerationRequest = { ...request, additionalProperties: false };
  const parts: DocumentParts = {
    info: {
      title: "Image generation task service (imagegen-pricing reference server)",
      version: catalog.version,
      description: "Creates image generation tasks charged in credits, quotes prices, and reports the balance.",
    },
    auth: ["bearerAuth", "An API key: ck_live_... or ck_test_..."],
    schemas,
    examples: createExamples(catalog),
    statuses: SERVER_ERRORS,
  };
  return foldDocument(parts, {
    "/api/generations": {
      post: {
        summary: "Create an image generation task",
        operationId: "createGeneration",
        body: "GenerationRequest",
        parameters: [
          {
            name: "Idempotency-Key",
            in: "header",
            required: false,
            description: "The idempotency key of a body without idempotencyKey; a body that has one must carry the same key.",
            schema: { type: "string", minLength: 1, maxLength: LIMITS.idempotencyKeyMaxChars },
          },
        ],
        answer: [202, "GenerationAccepted", "Accepted: every job queued, the whole charge debited."],
        headers: {
          "Idempotent-Replayed": {
            description: "`true` when this is the stored answer of an earlier request with the same idempotency key.",
            schema: { type: "string", enum: ["true"] },
          },
        },
        errors: [...BODY, "asset_not_found", ...KEY, "insufficient_credits", "idempotency_key_reused"],
      },
    },
    "/api/pricing/quote": {
      post: {
        summary: "Price one output image for the caller's account",
        operationId: "quotePrice",
        body: "QuoteSpec",
        answer: [200, "Quote", "The price, or credits: null with a reason, from the catalog in force now."],
        errors: [...BODY, ...KEY],
      },
    },
    "/api/ping": {
      get: {
        summary: "Check connectivity and who authenticated",
        operationId: "ping",
        answer: [200, "Ping", "Authenticated."],
        errors: KEY,
      },
    },
    "/api/query/credits": {
      get: {
        summary: "Read the remaining credits",
        operationId: "queryCredits",
        answer: [200, "Credits", "The balance."],
        errors: KEY,
      },
    },
  });
}
