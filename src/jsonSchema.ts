/**
 * JSON Schemas of a generation request, for tools outside TypeScript: form builders, OpenAPI
 * documents, validators in other languages. Kept out of the core entry (`imagegen-pricing`) so a
 * browser bundle that only prices does not carry them; import it from
 * `imagegen-pricing/json-schema`. The request schema was converted from its valibot schema when the
 * package was built (scripts/jsonSchemas.ts, into data/request.converted.json), so no converter
 * runs, or is installed, at run time.
 *
 * A JSON Schema cannot trim strings or say "count the distinct ids", so these schemas describe the
 * canonical form of a request (already trimmed, ids already distinct). They are a guide for what to
 * offer; `checkRequest` stays the authority.
 *
 * @module imagegen-pricing/json-schema
 */
import convertedRequest from "../data/request.converted.json" with { type: "json" };
import { catalog as builtIn } from "./models/catalog.js";
import { GENERATION_TYPES, LIMITS } from "./models/lists.js";
import { type Catalog, findModel, type ModelSpec } from "./models/modelSpec.js";

// The core's catalog type these functions take, and the types it is made of, so that the entry's
// declarations name no type the entry does not export.
export type {
  AspectRatio,
  Background,
  Catalog,
  ModelSpec,
  OutputFormat,
  PriceGrid,
  Quality,
  Resolution,
} from "./index.js";

/**
 * A JSON Schema (draft-07) as these functions return it: the keywords they write, each optional.
 *
 * Plain JSON, assignable to `JsonSchema` of `@types/json-schema` for a caller who uses that type.
 */
export interface JsonSchema {
  $schema?: string;
  title?: string;
  description?: string;
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean" | "null";
  /** Each field's schema, by name. */
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  /** Rules that hold together: here, the ones that tie one field to another (N12, V2). */
  allOf?: JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
  else?: JsonSchema;
  enum?: string[];
  const?: string;
  default?: string | number | string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
}

const DRAFT = "http://json-schema.org/draft-07/schema#";

/**
 * What no valibot action can say in JSON: an image-to-image request lists at least one reference,
 * a text-to-image request lists none (N12).
 */
const REFERENCE_RULES: JsonSchema[] = [
  {
    if: {
      properties: { generationType: { const: "image-to-image" } },
      required: ["generationType"],
    },
    // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword.
    then: { required: ["inputAssetIds"], properties: { inputAssetIds: { minItems: 1 } } },
    else: { properties: { inputAssetIds: { maxItems: 0 } } },
  },
];

/**
 * Adds what the conversion cannot see: no unknown fields (N2), lengths in code points (N4, N13).
 */
function finish(schema: JsonSchema, title: string, description: string): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  if (properties.prompt) {
    properties.prompt.maxLength = LIMITS.promptMaxChars;
  }
  if (properties.idempotencyKey) {
    properties.idempotencyKey.maxLength = LIMITS.idempotencyKeyMaxChars;
  }
  const { $schema: _draft, ...rest } = schema;
  return {
    $schema: DRAFT,
    title,
    description,
    ...rest,
    additionalProperties: false,
    allOf: structuredClone(REFERENCE_RULES),
  };
}

/**
 * The JSON Schema (draft-07) of a generation request body for any model of a catalog.
 *
 * It was converted from the valibot request schema with `@valibot/to-json-schema` ahead of time. It
 * lists the public
 * values of every field (all 16 ratios, all resolutions); which of them a model accepts is in
 * {@link modelRequestJsonSchema}.
 *
 * @param catalog - The catalog whose model ids and default model apply (default: the built-in one).
 * @returns A new JSON Schema object (safe to modify).
 * @example
 * ```ts
 * import { requestJsonSchema } from "imagegen-pricing/json-schema";
 * requestJsonSchema().properties?.modelId; // { type: "string", enum: ["alpha-img2", ...], default:
 * "alpha-img2-official" }
 * ```
 */
export function requestJsonSchema(catalog: Catalog = builtIn): JsonSchema {
  // Converted from the valibot request schema when the package was built (scripts/jsonSchemas.ts);
  // only the model ids and the default model depend on the catalog.
  const converted = structuredClone(convertedRequest) as JsonSchema;
  const properties = converted.properties as Record<string, JsonSchema>;
  properties.modelId = {
    ...properties.modelId,
    enum: Object.keys(catalog.models),
    default: catalog.defaultModelId,
  };
  const schema = finish(
    converted,
    "Generation request",
    "Body of POST /api/generations, in canonical form (strings trimmed, inputAssetIds distinct).",
  );
  // A model with no default resolution needs one named (V2), read from the catalog (V7).
  for (const model of Object.values(catalog.models)) {
    if (model.defaultResolution === null) {
      const named = { properties: { modelId: { const: model.id } }, required: ["modelId"] };
      // An absent modelId means the default model, so then the rule applies too.
      const when: JsonSchema =
        model.id === catalog.defaultModelId ? { properties: named.properties } : named;
      // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword.
      schema.allOf?.push({ if: when, then: { required: ["resolution"] } });
    }
  }
  return schema;
}

/**
 * The JSON Schema of the values one model accepts, read from its catalog entry (V1-V7): what the
 * valibot schema of these rules converts to (the package's tests check the two agree for every
 * model), written out so that no converter is needed at run time.
 */
function modelForm(model: ModelSpec): JsonSchema {
  const text = (max: number): JsonSchema => ({ type: "string", minLength: 1, maxLength: max });
  const pick = (values: readonly string[], fallback?: string): JsonSchema =>
    fallback === undefined
      ? { enum: [...values], type: "string" }
      : { enum: [...values], type: "string", default: fallback };
  const required = ["prompt", "modelId"];
  // No default resolution: the request must name it (V2).
  if (model.defaultResolution === null) {
    required.push("resolution");
  }
  return {
    type: "object",
    properties: {
      prompt: text(LIMITS.promptMaxChars),
      modelId: { const: model.id },
      generationType: pick(GENERATION_TYPES, "text-to-image"),
      aspectRatio: pick(model.aspectRatios, model.defaultAspectRatio),
      resolution: pick(model.resolutions, model.defaultResolution ?? undefined),
      quality: pick(model.qualities, "low"),
      background: pick(model.backgrounds, "auto"),
      imageCount: { type: "integer", minimum: 1, maximum: model.maxImageCount, default: 1 },
      inputAssetIds: {
        type: "array",
        items: { type: "string", minLength: 1 },
        maxItems: model.maxReferenceImages,
        default: [],
      },
      idempotencyKey: text(LIMITS.idempotencyKeyMaxChars),
    },
    required,
  };
}

/**
 * The JSON Schema (draft-07) of a generation request for one model: each field offers only the
 * values the model accepts, with the model's defaults, limits and required fields.
 *
 * A form built from it can offer nothing the service would reject for that model's own limits.
 *
 * @param modelId - The model to describe.
 * @param catalog - The catalog to read (default: the built-in one).
 * @returns A new JSON Schema object, or `undefined` for a model the catalog does not have.
 * @example
 * ```ts
 * import { modelRequestJsonSchema } from "imagegen-pricing/json-schema";
 * modelRequestJsonSchema("gamma-image-1.5")?.properties?.aspectRatio;
 * // { type: "string", enum: ["1:1", "16:9", "9:16", "3:2", "2:3"], default: "9:16" }
 * ```
 */
export function modelRequestJsonSchema(
  modelId: string,
  catalog: Catalog = builtIn,
): JsonSchema | undefined {
  const model = findModel(catalog, modelId);
  if (!model) {
    return undefined;
  }
  return finish(
    modelForm(model),
    `Generation request for ${model.id}`,
    `What ${model.id} accepts (catalog ${catalog.version}).`,
  );
}

/**
 * {@link modelRequestJsonSchema} for every model of a catalog.
 *
 * @param catalog - The catalog to read (default: the built-in one).
 * @returns One JSON Schema per model id, in catalog order.
 */
export function modelRequestJsonSchemas(catalog: Catalog = builtIn): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const id of Object.keys(catalog.models)) {
    const schema = modelRequestJsonSchema(id, catalog);
    if (schema) {
      out[id] = schema;
    }
  }
  return out;
}
