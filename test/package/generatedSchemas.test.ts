import { readFileSync } from "node:fs";
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { CONVERTED_REQUEST_PATH, convertRequestSchema } from "../../scripts/jsonSchemas.js";
import { renderDocument } from "../../scripts/openapi-json.js";
import { type Catalog, catalog, type ModelSpec } from "../../src/index.js";
import { modelRequestJsonSchemas, requestJsonSchema } from "../../src/jsonSchema.js";
import { GENERATION_TYPES, LIMITS } from "../../src/models/lists.js";
import { requestSchema } from "../../src/request/schema.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { otherCatalog } from "../support/catalogs.js";

type JsonObject = Record<string, unknown>;
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as JsonObject;

/** The valibot schema of the values one model accepts (V1-V7): what modelRequestJsonSchema describes. */
function modelFormSchema(model: ModelSpec) {
  const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
  const resolution = v.picklist(model.resolutions);
  return v.strictObject({
    prompt: text(LIMITS.promptMaxChars),
    modelId: v.literal(model.id),
    generationType: v.optional(v.picklist(GENERATION_TYPES), "text-to-image"),
    aspectRatio: v.optional(v.picklist(model.aspectRatios), model.defaultAspectRatio),
    resolution:
      model.defaultResolution === null
        ? resolution
        : v.optional(resolution, model.defaultResolution),
    quality: v.optional(v.picklist(model.qualities), "low"),
    background: v.optional(v.picklist(model.backgrounds), "auto"),
    imageCount: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(model.maxImageCount)),
      1,
    ),
    inputAssetIds: v.optional(
      v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.maxLength(model.maxReferenceImages)),
      () => [],
    ),
    idempotencyKey: v.optional(text(LIMITS.idempotencyKeyMaxChars)),
  });
}

describe("JSON Schemas converted when the package is built (no converter at run time)", () => {
  it("N2-N13: data/request.converted.json is what scripts/jsonSchemas.ts makes now (run it after changing the request schema)", () => {
    const text = readFileSync(CONVERTED_REQUEST_PATH, "utf8");
    expect(JSON.parse(text), 'stale: run "npx tsx scripts/jsonSchemas.ts"').toEqual(
      convertRequestSchema(),
    );
    expect(text).toBe(renderDocument(convertRequestSchema(), CONVERTED_REQUEST_PATH));
  });

  it("N2-N13: requestJsonSchema(catalog) is the conversion of that catalog's request schema, for any catalog", () => {
    for (const c of [catalog, otherCatalog]) {
      const converted = plain(toJsonSchema(requestSchema(c), { errorMode: "ignore" }));
      const properties = converted.properties as Record<string, JsonObject>;
      // The two lengths a conversion cannot see (code points), added by requestJsonSchema.
      (properties.prompt as JsonObject).maxLength = LIMITS.promptMaxChars;
      (properties.idempotencyKey as JsonObject).maxLength = LIMITS.idempotencyKeyMaxChars;
      const schema = requestJsonSchema(c);
      expect(plain(schema.properties)).toEqual(properties);
      expect(schema.required).toEqual(converted.required);
      expect(schema.type).toBe("object");
    }
    expect(plain(requestJsonSchema(otherCatalog).properties).modelId).toMatchObject({
      enum: ["beta", "gamma-image-1.5"],
    });
  });

  it("V1-V7: each model's schema is the conversion of the valibot schema of what the model accepts, for any catalog", () => {
    for (const c of [catalog, otherCatalog]) {
      const schemas = modelRequestJsonSchemas(c);
      expect(Object.keys(schemas)).toEqual(Object.keys(c.models));
      for (const model of Object.values(c.models)) {
        const converted = plain(toJsonSchema(modelFormSchema(model), { errorMode: "ignore" }));
        const schema = plain(schemas[model.id]);
        expect(schema.properties, model.id).toEqual(converted.properties);
        expect(schema.required, model.id).toEqual(converted.required);
        expect(schema.type).toBe(converted.type);
      }
    }
  });

  it("S12: the OpenAPI document takes its model ids and default model from the catalog it is made for", () => {
    const request = (c: Catalog) =>
      (
        createOpenApiDocument(c).components as {
          schemas: { GenerationRequest: { properties: Record<string, JsonObject> } };
        }
      ).schemas.GenerationRequest.properties;
    expect(request(otherCatalog).modelId).toMatchObject({
      type: "string",
      enum: ["beta", "gamma-image-1.5"],
      default: "gamma-image-1.5",
    });
    expect(request(catalog).modelId).toMatchObject({
      enum: Object.keys(catalog.models),
      default: catalog.defaultModelId,
    });
    const { modelId: _a, ...restCustom } = request(otherCatalog);
    const { modelId: _b, ...restBuiltIn } = request(catalog);
    expect(restCustom).toEqual(restBuiltIn);
    // Each document is a new object: changing one changes no other.
    const first = request(catalog);
    (first.prompt as JsonObject).maxLength = 1;
    expect(request(catalog).prompt?.maxLength).toBe(LIMITS.promptMaxChars);
  });
});
