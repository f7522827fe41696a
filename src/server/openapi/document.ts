/**
 * The OpenAPI 3.1 document of the service that a reference server serves: for the built-in catalog,
 * data/openapi.json as `npm run openapi:json` built it (scripts/openapi/); for another catalog, the
 * same document with the parts a catalog decides made for it: its version, its model ids and
 * default model, and the examples it prices.
 */
import serviceDocument from "../../../data/openapi.json" with { type: "json" };
import { catalog as builtIn } from "../../models/catalog.js";
import type { Catalog } from "../../models/modelSpec.js";
import { computeCharge } from "../../pricing/computeCharge.js";
import { quote } from "../../pricing/quote.js";
import type { QuoteSpec } from "../../pricing/quoteSpec.js";
import { checkRequest } from "../../request/checkRequest.js";
import type { Quality, Resolution } from "../../types.js";
import { jobId } from "../ids.js";
import { serverMessages as m } from "../messages.js";

/** An OpenAPI 3.1 document, as plain JSON. @internal */
export type OpenApiDocument = { openapi: "3.1.0"; [key: string]: unknown };

/**
 * Ids as the server makes them, fixed so that the documents do not change between builds. @internal
 */
export const EXAMPLE_IDS = {
  userId: "usr_5a0830785b7c5777",
  apiKeyId: "apk_1cf73ac11fd29458",
  assetId: "ast_16f414e12e353edb",
  taskId: "task_625ca9b6334f2d26",
  jobId: jobId("task_625ca9b6334f2d26", 0),
  faultId: "flt_3f9a0c1e5b7d2a64",
} as const;

/**
 * The multiplier of the example account: one that rounds, so the breakdown shows how (P4).
 * @internal
 */
export const EXAMPLE_MULTIPLIER = "1.15";
/** The example account's opening balance. @internal */
export const OPENING_BALANCE = 1000;

/**
 * The examples a catalog prices: one account asks for two images and a quote of the catalog's
 * default model, priced by that catalog with the example multiplier (P4-P7).
 *
 * @param catalog - The catalog that prices the examples.
 * @returns Each example body by the component it shows, and the amounts the other examples repeat.
 * @throws RangeError when the catalog has no default model, or refuses the example generation.
 * @internal
 */
export function catalogExamples(catalog: Catalog) {
  const model = catalog.models[catalog.defaultModelId];
  if (!model) {
    throw new RangeError(
      `The catalog has no model "${catalog.defaultModelId}" (its defaultModelId).`,
    );
  }
  // A catalog's lists are never empty (CatalogSchema), so the first entry is there.
  const resolution = model.defaultResolution ?? (model.resolutions[0] as Resolution);
  const quality = model.qualities.includes("medium") ? "medium" : (model.qualities[0] as Quality);
  const spec: QuoteSpec = { kind: "image", modelId: model.id, resolution, quality };
  const unknownModel: QuoteSpec = { kind: "image", modelId: "delta-video-1" };
  const account = { account: { multiplier: EXAMPLE_MULTIPLIER }, catalog };

  const generation = {
    prompt: "a lighthouse",
    modelId: model.id,
    resolution,
    quality,
    imageCount: 2,
    idempotencyKey: "order-1042",
  };
  const checked = checkRequest(generation, { catalog });
  if (!checked.success) {
    throw new RangeError(
      `The catalog refuses the example generation: ${checked.issues[0]?.message}`,
    );
  }
  const request = checked.output;
  const {
    perOutputCredits: perImage,
    totalCreditCost: total,
    lines,
  } = computeCharge(request, account);
  const balance = OPENING_BALANCE - total;
  const billing = { totalCreditCost: total, balanceAfterCredits: balance };
  const { taskId, userId, apiKeyId } = EXAMPLE_IDS;
  const { aspectRatio, imageCount, prompt } = request;
  return {
    request,
    perImage,
    total,
    balance,
    jobs: lines.map((line) => line.index),
    bodies: {
      GenerationRequest: generation,
      GenerationAccepted: {
        batch: {
          taskId,
          request: { imageCount, modelId: model.id, aspectRatio, resolution, prompt },
          results: lines.map(({ index }) => ({
            job: { id: jobId(taskId, index), status: "queued" },
            assets: [],
          })),
          ...billing,
        },
        billing,
      },
      QuoteSpec: { priced: spec, unpriced: unknownModel },
      Quote: { priced: quote(spec, account), unpriced: quote(unknownModel, account) },
      Credits: { creditBalance: balance, currency: "credits", userId, apiKeyId },
    },
    insufficientCredits: m.insufficientCredits(total, total - 1),
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a walk of plain JSON, whose shape the build checked
type Json = Record<string, any>;

/** The `application/json` media type of an operation's request body or of one of its answers. */
function media(document: Json, route: string, status: string): Json {
  const [method = "", path = ""] = route.split(" ");
  const operation = document.paths[path][method];
  const body = status === "request" ? operation.requestBody : operation.responses[status];
  return body.content["application/json"];
}

/** Named examples, as a media type holds them. */
const named = (values: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(values).map(([name, value]) => [name, { value }]));

/**
 * The OpenAPI 3.1 document of the service's four endpoints for a catalog: the built document
 * (data/openapi.json) for the built-in catalog, and for another one the same document with that
 * catalog's version, model ids, default model and priced examples.
 *
 * @param catalog - Whose model ids the request schema lists and whose prices the examples show
 *   (default: the built-in one).
 * @returns A new document (safe to modify).
 * @internal
 */
export function createOpenApiDocument(catalog: Catalog = builtIn): OpenApiDocument {
  const document = structuredClone(serviceDocument) as Json;
  if (catalog === builtIn) {
    return document as OpenApiDocument;
  }
  const { bodies, insufficientCredits } = catalogExamples(catalog);
  document.info.version = catalog.version;
  document.components.schemas.GenerationRequest.properties.modelId = {
    type: "string",
    enum: Object.keys(catalog.models),
    default: catalog.defaultModelId,
  };
  media(document, "post /api/generations", "request").example = bodies.GenerationRequest;
  media(document, "post /api/generations", "202").example = bodies.GenerationAccepted;
  media(document, "post /api/pricing/quote", "request").examples = named(bodies.QuoteSpec);
  media(document, "post /api/pricing/quote", "200").examples = named(bodies.Quote);
  media(document, "get /api/query/credits", "200").example = bodies.Credits;
  const poor = document.components.responses.insufficient_credits.content["application/json"];
  poor.examples.insufficient_credits.value.error.message = insufficientCredits;
  return document as OpenApiDocument;
}
