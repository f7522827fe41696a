/**
 * Builds the OpenAPI 3.1 document of the service's four endpoints, with the one function that folds
 * a table of operations, the components converted from their valibot schemas and the examples into
 * a document. Run when the package is built (scripts/openapi-json.ts), never by a server.
 */
import { toJsonSchemaDefs } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { catalog as builtIn } from "../../src/models/catalog.js";
import { LIMITS } from "../../src/models/lists.js";
import type { Catalog } from "../../src/models/modelSpec.js";
import { SERVER_ERRORS } from "../../src/server/errors.js";
import { EXAMPLE_IDS, type OpenApiDocument } from "../../src/server/openapi/document.js";
import { createExamples } from "./examples.js";
import { SERVICE_SCHEMAS } from "./schemas.js";

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

/**
 * The components of an OpenAPI 3.1 document (JSON Schema 2020-12), converted from valibot schemas,
 * each schema that another one uses named by its `$ref`.
 *
 * @param schemas - The valibot schemas by component name.
 * @returns The JSON Schemas by component name, as plain JSON.
 */
export function components(schemas: Record<string, v.GenericSchema>): Record<string, JsonObject> {
  const converted = toJsonSchemaDefs(schemas, {
    target: "draft-2020-12",
    typeMode: "output",
    errorMode: "ignore",
    overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
  });
  return JSON.parse(JSON.stringify(converted)) as Record<string, JsonObject>;
}

const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 1 },
  },
};

/** The headers an error answer carries, by status. */
const ERROR_HEADERS: Record<number, JsonObject> = {
  401: {
    "WWW-Authenticate": {
      description: "The scheme to authenticate with: `Bearer`.",
      schema: { type: "string" },
    },
  },
  405: {
    Allow: {
      description: "The methods the path takes, such as `POST`.",
      schema: { type: "string" },
    },
  },
  429: RETRY_AFTER,
  503: RETRY_AFTER,
};

/** When an error code that every operation lists is answered. */
const WHEN: Record<string, string> = {
  not_found: "no endpoint at the path as sent (paths are case-sensitive, with no trailing slash)",
  method_not_allowed: "a method the path does not take; `Allow` lists those it does",
  internal_error: "a fault of the server's own (a bug, or a test double's `internal` fault)",
};

/** The error codes every operation can answer with, whatever it does (S12). @internal */
export const EVERY_OPERATION = ["not_found", "method_not_allowed", "internal_error"] as const;

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
    const all = [...errors, ...EVERY_OPERATION];
    for (const at of new Set(all.map(statusOf))) {
      const codes = all.filter((code) => statusOf(code) === at);
      const examples = Object.fromEntries(
        codes.map((code) => [code, { value: failure(code, operationId) }]),
      );
      const said = (code: string) => `\`${code}\`${WHEN[code] ? `: ${WHEN[code]}` : ""}`;
      const response = {
        description: codes.map(said).join(codes.some((code) => WHEN[code]) ? "; " : ", "),
        headers: ERROR_HEADERS[at],
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
 * Builds the OpenAPI 3.1 document of the reference server for a catalog: what data/openapi.json
 * holds for the built-in one.
 *
 * @param catalog - Whose model ids the request schema lists and whose prices the examples show
 *   (default: the built-in one).
 * @returns The document, as plain JSON.
 */
export function buildOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const schemas = components(SERVICE_SCHEMAS);
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
