/**
 * The OpenAPI 3.1 document of the four endpoints, built from the answers' schemas converted to JSON
 * Schema ahead of time (src/generated/jsonSchemas.ts), so document and handlers cannot drift apart
 * and the converter is not needed at run time.
 */
import { JSON_SCHEMAS } from "../../generated/jsonSchemas.js";
import { catalog as builtIn } from "../../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../../models/lists.js";
import type { Catalog } from "../../models/modelSpec.js";
import { SERVER_ERRORS } from "../errors.js";
import { type Examples, serviceExamples } from "./examples.js";

/** A JSON object (the document is plain JSON). */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

/** A JSON object of a document. @internal */
export type JsonObject = Record<string, unknown>;

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

/** A reference to a component schema. @internal */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A quote answer's schema, its `nextChange` named once as a component so that clients get one type for it. */
function quoteSchema(name: "pricedQuote" | "unpricedQuote"): JsonObject {
  const out = jsonSchema(name);
  (out.properties as Record<string, unknown>).nextChange = ref("NextChange");
  return out;
}
/** A JSON body of a component schema, with its examples (every body of both documents has some). @internal */
export const jsonContent = (name: string, examples?: Examples) => ({
  "application/json": examples ? { schema: ref(name), examples } : { schema: ref(name) },
});
const errorResponse = (description: string, examples: Examples) => ({ description, content: jsonContent("Error", examples) });
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
/** The `Retry-After` header of a 429 or 503. @internal */
export const RETRY_AFTER = {
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 1 } },
};
/** The error answers of an endpoint, by status, each with its examples. */
const errors = (examples: Record<string, Examples>): JsonObject =>
  Object.fromEntries(
    Object.entries(examples).map(([s, byCode]) => {
      const response = errorResponse(`${ERRORS[Number(s)]} (${codesOf(Number(s))}).`, byCode);
      return [s, s === "503" ? { ...response, headers: RETRY_AFTER } : response];
    }),
  );
/** The 503 of an endpoint that prices: it also covers a price history whose first catalog is still ahead (P8). */
const pricingUnavailable = (examples: Examples): JsonObject => ({
  "503": {
    ...errorResponse(
      `The store cannot be reached, or no catalog is in force yet (a price history whose first catalog is still ahead); nothing was charged. Retry after the Retry-After header's seconds (${codesOf(503)}).`,
      examples,
    ),
    headers: RETRY_AFTER,
  },
});

/** The package's license, as both documents state it. */
export const LICENSE = { name: "MIT", identifier: "MIT" };

/**
 * Where the documents' paths are: the server that serves them, whatever its address (a relative
 * URL resolves against the document's own), and the default address of `imagegen-pricing serve`.
 */
export const SERVERS = [
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
    resolution: { description: "1K, 2K or 4K; default: the model's. Another value quotes credits: null." },
    quality: { description: "low, medium or high; default: low. Another value quotes credits: null." },
    referenceImageCount: {
      description: "Default 0. A count that is not a whole number from 0 to the model's limit quotes credits: null.",
    },
  });

  const ex = serviceExamples(catalog);
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
          requestBody: { required: true, content: jsonContent("GenerationRequest", ex.generationRequest) },
          responses: {
            "202": {
              description: "Accepted: every job queued, the whole charge debited.",
              headers: {
                "Idempotent-Replayed": {
                  description: "`true` when this is the stored answer of an earlier request with the same idempotencyKey.",
                  schema: { type: "string", enum: ["true"] },
                },
              },
              content: jsonContent("GenerationAccepted", ex.generationAccepted),
            },
            ...errors({ ...ex.generationErrors, ...ex.bodyErrors }),
            ...pricingUnavailable(ex.pricingUnavailable),
          },
        }),
      },
      "/api/pricing/quote": {
        post: secured("Price one output image for the caller's account", "quotePrice", {
          requestBody: { required: true, content: jsonContent("QuoteSpec", ex.quoteSpec) },
          responses: {
            "200": {
              description:
                "The price, or credits: null with a reason, from the catalog in force now (catalogVersion); nextChange says when a later catalog already known takes effect.",
              content: jsonContent("Quote", ex.quote),
            },
            ...errors({ ...ex.quoteErrors, ...ex.bodyErrors }),
            ...pricingUnavailable(ex.pricingUnavailable),
          },
        }),
      },
      "/api/ping": {
        get: secured("Check connectivity and who authenticated", "ping", {
          responses: {
            "200": { description: "Authenticated.", content: jsonContent("Ping", ex.ping) },
            ...errors({ ...ex.accountErrors, "503": ex.unavailable }),
          },
        }),
      },
      "/api/query/credits": {
        get: secured("Read the remaining credits", "queryCredits", {
          responses: {
            "200": { description: "The balance.", content: jsonContent("Credits", ex.credits) },
            ...errors({ ...ex.accountErrors, "503": ex.unavailable }),
          },
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
