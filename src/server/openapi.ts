/**
 * The OpenAPI 3.1 document of the four endpoints, generated from the same valibot schemas the
 * server checks requests with and builds answers from (`@valibot/to-json-schema`).
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { catalog as builtIn } from "../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import type { Catalog } from "../models/modelSpec.js";
import { requestSchema } from "../request/schema.js";
import { SERVER_ERRORS } from "./errors.js";
import { QuoteSpecSchema } from "../pricing/quoteSpec.js";
import {
  CreditsAnswerSchema,
  ErrorBodySchema,
  GenerationAcceptedSchema,
  PingAnswerSchema,
  PricedQuoteSchema,
  UnpricedQuoteSchema,
} from "./schemas.js";

/** A JSON object (the document is plain JSON). */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

type JsonObject = Record<string, unknown>;
type AnySchema = v.GenericSchema;

/** A valibot schema as JSON Schema, without the draft-07 `$schema` (OpenAPI 3.1 names its own dialect). */
function jsonSchema(schema: AnySchema, typeMode: "input" | "output"): JsonObject {
  // Trimming, de-duplication and cross-field checks have no JSON Schema form; they are documented
  // in the descriptions below and enforced by the server.
  const out = toJsonSchema(schema, { errorMode: "ignore", typeMode }) as JsonObject;
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
};
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), errorResponse(`${ERRORS[s]} (${codesOf(s)}).`)]));

/**
 * Builds the OpenAPI 3.1 document of the reference server for a catalog.
 *
 * @param catalog - Whose model ids the request schema lists (default: the built-in one).
 * @returns A plain JSON document.
 */
export function createOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const generationRequest = refine(jsonSchema(requestSchema(catalog), "input"), {
    prompt: { maxLength: LIMITS.promptMaxChars, description: "Trimmed; 1 to 12000 characters (code points)." },
    modelId: { enum: Object.keys(catalog.models) },
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
  const quoteSpec = refine(jsonSchema(QuoteSpecSchema, "input"), {
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
    },
    security: [{ bearerAuth: [] }],
    paths: {
      "/api/generations": {
        post: secured("Create an image generation task", "createGeneration", {
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
            ...errors(400, 401, 402, 409, 413, 415),
          },
        }),
      },
      "/api/pricing/quote": {
        post: secured("Price one output image for the caller's account", "quotePrice", {
          requestBody: { required: true, content: jsonContent("QuoteSpec") },
          responses: {
            "200": { description: "The price, or credits: null with a reason.", content: jsonContent("Quote") },
            ...errors(400, 401, 413, 415),
          },
        }),
      },
      "/api/ping": {
        get: secured("Check connectivity and who authenticated", "ping", {
          responses: { "200": { description: "Authenticated.", content: jsonContent("Ping") }, ...errors(401) },
        }),
      },
      "/api/query/credits": {
        get: secured("Read the remaining credits", "queryCredits", {
          responses: { "200": { description: "The balance.", content: jsonContent("Credits") }, ...errors(401) },
        }),
      },
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", description: "An API key: ck_live_... or ck_test_..." },
      },
      schemas: {
        GenerationRequest: generationRequest,
        GenerationAccepted: jsonSchema(GenerationAcceptedSchema, "output"),
        QuoteSpec: quoteSpec,
        Quote: { anyOf: [ref("PricedQuote"), ref("UnpricedQuote")] },
        PricedQuote: jsonSchema(PricedQuoteSchema, "output"),
        UnpricedQuote: jsonSchema(UnpricedQuoteSchema, "output"),
        Ping: jsonSchema(PingAnswerSchema, "output"),
        Credits: jsonSchema(CreditsAnswerSchema, "output"),
        Error: jsonSchema(ErrorBodySchema, "output"),
      },
    },
  };
}
