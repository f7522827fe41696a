/**
 * The OpenAPI 3.1 document of the service's four endpoints, and the one function that folds a table
 * of operations, the converted schemas (src/generated/jsonSchemas.ts) and the examples into a document.
 */
import { JSON_SCHEMAS } from "../../generated/jsonSchemas.js";
import { catalog as builtIn } from "../../models/catalog.js";
import { LIMITS } from "../../models/lists.js";
import type { Catalog } from "../../models/modelSpec.js";
import { SERVER_ERRORS } from "../errors.js";
import { createExamples, EXAMPLE_IDS } from "./examples.js";

/** A JSON object (the document is plain JSON). */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

type JsonObject = Record<string, unknown>;

/**
 * One operation as a row: what it takes and answers, by component name, and the error codes it can
 * answer with. A body ending in `?` may be left out; `more` adds parameters, and headers to the answer.
 * @internal
 */
export type Operation = readonly [
  route: string,
  operationId: string,
  summary: string,
  answer: readonly [status: number, schema: string],
  errors: readonly string[],
  body?: string | undefined,
  more?: { parameters?: JsonObject[]; headers?: JsonObject },
];

/** What a document is made of besides its operations. */
type DocumentParts = {
  info: { title: string; version: string; description: string };
  /** The bearer scheme's name and what it takes. */
  auth: readonly [name: string, description: string];
  schemas: Readonly<Record<string, unknown>>;
  /** The examples' catalog. */
  catalog: Catalog;
  /** Each error code's status. */
  statuses: Readonly<Record<string, number>>;
};

const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 1 },
  },
};

/**
 * Folds operations into an OpenAPI 3.1 document: each body and answer refers to its component with
 * its example; each error status lists its codes with one example of each, written once under
 * `components.responses` unless it holds the operation's own `invalid_request`; each `{name}` of a
 * path is a parameter whose example is the examples' id. @internal
 */
export function foldDocument(
  parts: DocumentParts,
  operations: readonly Operation[],
): OpenApiDocument {
  const { bodies, failure } = createExamples(parts.catalog);
  const content = (schema: string, example: unknown) => ({
    "application/json": {
      schema: { $ref: `#/components/schemas/${schema}` },
      ...(example as JsonObject),
    },
  });
  const paths: Record<string, Record<string, JsonObject>> = {};
  const shared: Record<string, JsonObject> = {};
  const statusOf = (code: string) => {
    const status = parts.statuses[code];
    if (status === undefined) {
      throw new RangeError(`No status for the error code "${code}".`);
    }
    return status;
  };
  for (const [
    route,
    operationId,
    summary,
    [status, answer],
    errors,
    body,
    more = {},
  ] of operations) {
    const [method = "", path = ""] = route.split(" ");
    const responses: JsonObject = {
      [status]: {
        description: summary,
        headers: more.headers,
        content: content(answer, bodies[answer]),
      },
    };
    for (const at of new Set(errors.map(statusOf))) {
      const codes = errors.filter((code) => statusOf(code) === at);
      const examples = Object.fromEntries(
        codes.map((code) => [code, { value: failure(code, operationId) }]),
      );
      const headers = at === 429 || at === 503 ? RETRY_AFTER : undefined;
      const response = {
        description: codes.map((code) => `\`${code}\``).join(", "),
        headers,
        content: content("Error", { examples }),
      };
      // An answer that is the same for every operation is written once, under components.responses.
      const name = codes.includes("invalid_request") ? undefined : codes.join("-");
      if (name) {
        shared[name] = response;
      }
      responses[at] = name ? { $ref: `#/components/responses/${name}` } : response;
    }
    const ids = [...path.matchAll(/\{(\w+)\}/g)].map(([, name = ""]) => {
      const id = EXAMPLE_IDS[name as keyof typeof EXAMPLE_IDS];
      return {
        name,
        in: "path",
        required: true,
        schema: { type: "string", pattern: `^${id.split("_")[0]}_` },
        example: id,
      };
    });
    const parameters = [...ids, ...(more.parameters ?? [])];
    const name = body?.replace("?", "");
    const requestBody = name
      ? { required: !body?.endsWith("?"), content: content(name, bodies[name]) }
      : undefined;
    paths[path] = {
      ...paths[path],
      [method.toLowerCase()]: {
        summary,
        operationId,
        parameters: parameters.length > 0 ? parameters : undefined,
        requestBody,
        responses,
      },
    };
  }
  const [scheme, description] = parts.auth;
  // Through JSON: a document is plain JSON, without the undefined members left above.
  return JSON.parse(
    JSON.stringify({
      openapi: "3.1.0",
      info: {
        ...parts.info,
        description: `${parts.info.description} Every failure is { error: { message, code, param?, issues?, requestId } }.`,
        license: { name: "MIT", identifier: "MIT" },
      },
      servers: [
        { url: "/", description: "The server that serves this document." },
        {
          url: "http://127.0.0.1:8787",
          description: "imagegen-pricing serve (and npm start) on its default address.",
        },
      ],
      security: [{ [scheme]: [] }],
      paths,
      components: {
        responses: shared,
        securitySchemes: { [scheme]: { type: "http", scheme: "bearer", description } },
        schemas: parts.schemas,
      },
    }),
  ) as OpenApiDocument;
}

const KEY = ["missing_api_key", "invalid_api_key", "service_unavailable"];
const BODY = [
  "invalid_json",
  "invalid_request",
  "payload_too_large",
  "unsupported_media_type",
  ...KEY,
];
const GENERATION = [...BODY, "asset_not_found", "insufficient_credits", "idempotency_key_reused"];
const KEYED = {
  parameters: [
    {
      name: "Idempotency-Key",
      in: "header",
      description:
        "The idempotency key of a body without idempotencyKey; a body that has one must carry the same key.",
      required: false,
      schema: { type: "string", minLength: 1, maxLength: LIMITS.idempotencyKeyMaxChars },
    },
  ],
  headers: {
    "Idempotent-Replayed": {
      description: "The stored answer of an earlier request.",
      schema: { const: "true" },
    },
  },
};

const OPERATIONS: readonly Operation[] = [
  [
    "POST /api/generations",
    "createGeneration",
    "Create an image generation task",
    [202, "GenerationAccepted"],
    GENERATION,
    "GenerationRequest",
    KEYED,
  ],
  [
    "POST /api/pricing/quote",
    "quotePrice",
    "Price one image for the caller's account",
    [200, "Quote"],
    BODY,
    "QuoteSpec",
  ],
  ["GET /api/ping", "ping", "Check connectivity and who authenticated", [200, "Ping"], KEY],
  ["GET /api/query/credits", "queryCredits", "Read the remaining credits", [200, "Credits"], KEY],
];

/**
 * Builds the OpenAPI 3.1 document of the reference server for a catalog.
 *
 * @param catalog - Whose model ids the request schema lists and whose prices the examples show
 *   (default: the built-in one).
 * @internal
 */
export function createOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const schemas = structuredClone(JSON_SCHEMAS.service) as Record<string, JsonObject>;
  // Only the model ids depend on the catalog; lengths in code points and "no other field" (N2, N4,
  // N13) are checks the conversion cannot see.
  const request = schemas.GenerationRequest as { properties: Record<string, JsonObject> };
  request.properties.modelId = {
    type: "string",
    enum: Object.keys(catalog.models),
    default: catalog.defaultModelId,
  };
  Object.assign(request.properties.prompt ?? {}, { maxLength: LIMITS.promptMaxChars });
  Object.assign(request.properties.idempotencyKey ?? {}, {
    maxLength: LIMITS.idempotencyKeyMaxChars,
  });
  schemas.GenerationRequest = { ...request, additionalProperties: false };
  const info = {
    title: "Image generation task service (imagegen-pricing reference server)",
    version: catalog.version,
    description:
      "Creates image generation tasks charged in credits, quotes prices, and reports the balance.",
  };
  const auth = ["bearerAuth", "An API key: ck_live_... or ck_test_..."] as const;
  return foldDocument({ info, auth, schemas, catalog, statuses: SERVER_ERRORS }, OPERATIONS);
}
