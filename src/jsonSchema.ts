/**
 * JSON Schemas of a generation request, for tools outside TypeScript: form builders, OpenAPI
 * documents, validators in other languages. Kept out of the core entry (`imagegen-pricing`) so a
 * browser bundle that only prices does not carry the converter; import it from
 * `imagegen-pricing/json-schema`.
 *
 * A JSON Schema cannot trim strings or say "count the distinct ids", so these schemas describe the
 * canonical form of a request (already trimmed, ids already distinct). They are a guide for what to
 * offer; `normalizeRequest` and `validateForModel` stay the authority.
 *
 * @module imagegen-pricing/json-schema
 */
import { type JSONSchema7, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { catalog as builtIn } from "./models/catalog.js";
import { GENERATION_TYPES, LIMITS } from "./models/lists.js";
import { type Catalog, findModel, type ModelSpec } from "./models/modelSpec.js";
import { requestSchema } from "./request/schema.js";

export type { JSONSchema7 } from "@valibot/to-json-schema";

const DRAFT = "http://json-schema.org/draft-07/schema#";

/**
 * What no valibot action can say in JSON: an image-to-image request lists at least one reference,
 * a text-to-image request lists none (N12).
 */
const REFERENCE_RULES: JSONSchema7["allOf"] = [
  {
    if: { properties: { generationType: { const: "image-to-image" } }, required: ["generationType"] },
    // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword.
    then: { required: ["inputAssetIds"], properties: { inputAssetIds: { minItems: 1 } } },
    else: { properties: { inputAssetIds: { maxItems: 0 } } },
  },
];

/** Adds what the conversion cannot see: no unknown fields (N2), lengths in code points (N4, N13). */
function finish(schema: JSONSchema7, title: string, description: string): JSONSchema7 {
  const properties = schema.properties as Record<string, JSONSchema7>;
  if (properties.prompt) properties.prompt.maxLength = LIMITS.promptMaxChars;
  if (properties.idempotencyKey) properties.idempotencyKey.maxLength = LIMITS.idempotencyKeyMaxChars;
  const { $schema: _draft, ...rest } = schema;
  return { $schema: DRAFT, title, description, ...rest, additionalProperties: false, allOf: structuredClone(REFERENCE_RULES) };
}

/**
 * The JSON Schema (draft-07) of a generation request body for any model of a catalog, converted from
 * the valibot request schema with `@valibot/to-json-schema`. It lists the public values of every
 * field (all 16 ratios, all resolutions); which of them a model accepts is in
 * {@link modelRequestJsonSchema}.
 *
 * @param catalog - The catalog whose model ids and default model apply (default: the built-in one).
 * @returns A new JSON Schema object (safe to modify).
 * @example
 * ```ts
 * import { requestJsonSchema } from "imagegen-pricing/json-schema";
 * requestJsonSchema().properties?.modelId; // { type: "string", enum: ["alpha-img2", ...], default: "alpha-img2-official" }
 * ```
 */
export function requestJsonSchema(catalog: Catalog = builtIn): JSONSchema7 {
  const converted = toJsonSchema(requestSchema(catalog), { errorMode: "ignore" });
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
      const when: JSONSchema7 = model.id === catalog.defaultModelId ? { properties: named.properties } : named;
      // biome-ignore lint/suspicious/noThenProperty: "then" is a JSON Schema keyword.
      schema.allOf?.push({ if: when, then: { required: ["resolution"] } });
    }
  }
  return schema;
}

/** A valibot schema of the values one model accepts, read from its catalog entry (V1-V7). */
function modelFormSchema(model: ModelSpec) {
  const text = (max: number) => v.pipe(v.string(), v.minLength(1), v.maxLength(max));
  const resolution = v.picklist(model.resolutions);
  return v.strictObject({
    prompt: text(LIMITS.promptMaxChars),
    modelId: v.literal(model.id),
    generationType: v.optional(v.picklist(GENERATION_TYPES), "text-to-image"),
    aspectRatio: v.optional(v.picklist(model.aspectRatios), model.defaultAspectRatio),
    // No default: the request must name it (V2).
    resolution: model.defaultResolution === null ? resolution : v.optional(resolution, model.defaultResolution),
    quality: v.optional(v.picklist(model.qualities), "low"),
    background: v.optional(v.picklist(model.backgrounds), "auto"),
    imageCount: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(model.maxImageCount)), 1),
    inputAssetIds: v.optional(
      v.pipe(v.array(v.pipe(v.string(), v.minLength(1))), v.maxLength(model.maxReferenceImages)),
      () => [],
    ),
    idempotencyKey: v.optional(text(LIMITS.idempotencyKeyMaxChars)),
  });
}

/**
 * The JSON Schema (draft-07) of a generation request for one model: each field offers only the
 * values the model accepts, with the model's defaults, limits and required fields. A form built
 * from it can offer nothing the service would reject for that model's own limits.
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
export function modelRequestJsonSchema(modelId: string, catalog: Catalog = builtIn): JSONSchema7 | undefined {
  const model = findModel(catalog, modelId);
  if (!model) return undefined;
  const converted = toJsonSchema(modelFormSchema(model), { errorMode: "ignore" });
  return finish(converted, `Generation request for ${model.id}`, `What ${model.id} accepts (catalog ${catalog.version}).`);
}

/**
 * {@link modelRequestJsonSchema} for every model of a catalog.
 *
 * @param catalog - The catalog to read (default: the built-in one).
 * @returns One JSON Schema per model id, in catalog order.
 */
export function modelRequestJsonSchemas(catalog: Catalog = builtIn): Record<string, JSONSchema7> {
  const out: Record<string, JSONSchema7> = {};
  for (const id of Object.keys(catalog.models)) {
    const schema = modelRequestJsonSchema(id, catalog);
    if (schema) out[id] = schema;
  }
  return out;
}
