import type { JSONSchema7 } from "@valibot/to-json-schema";
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  capabilities,
  catalog,
  defineCatalog,
  type GenerationRequest,
  normalizeRequest,
  validateForModel,
} from "../../src/index.js";
import {
  type JsonSchema,
  modelRequestJsonSchema,
  modelRequestJsonSchemas,
  requestJsonSchema,
} from "../../src/jsonSchema.js";
import {
  ASPECT_RATIOS,
  BACKGROUNDS,
  LIMITS,
  QUALITIES,
  RESOLUTIONS,
} from "../../src/models/lists.js";
import { ORACLE_FIELDS } from "../oracle/seed.js";

type Prop = {
  enum?: string[];
  default?: unknown;
  maximum?: number;
  maxItems?: number;
  maxLength?: number;
  const?: string;
};
const props = (schema: unknown) => (schema as { properties: Record<string, Prop> }).properties;

function accepts(modelId: string, field: string, value: unknown): boolean {
  const normalized = normalizeRequest({ prompt: "x", modelId, resolution: "1K", [field]: value });
  return normalized.success && validateForModel(normalized.output as GenerationRequest).success;
}

describe("imagegen-pricing/json-schema", () => {
  it("a JsonSchema is a draft-07 JSON Schema to a library that types one (checked by the type checker)", () => {
    expectTypeOf<JsonSchema>().toExtend<JSONSchema7>();
    expectTypeOf(requestJsonSchema()).toEqualTypeOf<JsonSchema>();
  });

  it("N2-N13: the request schema lists the public values, rejects unknown fields and counts code points", () => {
    const schema = requestJsonSchema();
    const p = props(schema);
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["prompt"]);
    expect(Object.keys(p)).toEqual(ORACLE_FIELDS);
    expect(p.modelId?.enum).toEqual(Object.keys(catalog.models));
    expect(p.modelId?.default).toBe(catalog.defaultModelId);
    expect(p.aspectRatio?.enum).toEqual([...ASPECT_RATIOS]);
    expect(p.quality?.enum).toEqual([...QUALITIES]);
    expect(p.prompt?.maxLength).toBe(LIMITS.promptMaxChars);
    expect(p.idempotencyKey?.maxLength).toBe(LIMITS.idempotencyKeyMaxChars);
    expect(p.inputAssetIds?.maxItems).toBe(LIMITS.maxReferences);
  });

  it("V2: the request schema requires a resolution for a model with no default, read from the catalog", () => {
    const rules = requestJsonSchema().allOf ?? [];
    expect(rules).toContainEqual({
      if: { properties: { modelId: { const: "alpha-img2" } }, required: ["modelId"] },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema keyword
      then: { required: ["resolution"] },
    });
  });

  it("V1-V6: each model's schema offers exactly the values validateForModel accepts", () => {
    const all = modelRequestJsonSchemas();
    expect(Object.keys(all)).toEqual(Object.keys(catalog.models));
    for (const [id, schema] of Object.entries(all)) {
      const p = props(schema);
      const caps = capabilities(id);
      if (!caps) {
        throw new Error(id);
      }
      expect(p.modelId?.const).toBe(id);
      for (const [field, values] of [
        ["aspectRatio", ASPECT_RATIOS],
        ["resolution", RESOLUTIONS],
        ["quality", QUALITIES],
        ["background", BACKGROUNDS],
      ] as const) {
        const offered = values.filter((value) => accepts(id, field, value));
        expect([...(p[field]?.enum ?? [])].sort(), `${id} ${field}`).toEqual([...offered].sort());
      }
      expect(p.aspectRatio?.default).toBe(caps.defaultAspectRatio);
      expect(p.imageCount?.maximum).toBe(caps.maxImageCount);
      expect(accepts(id, "imageCount", caps.maxImageCount)).toBe(true);
      expect(accepts(id, "imageCount", caps.maxImageCount + 1)).toBe(false);
      expect(p.inputAssetIds?.maxItems).toBe(caps.maxReferenceImages);
      expect(schema.required).toEqual(
        caps.defaultResolution === null
          ? ["prompt", "modelId", "resolution"]
          : ["prompt", "modelId"],
      );
      expect(schema.additionalProperties).toBe(false);
    }
  });

  it("V7: a custom catalog gets its own schemas with no code change", () => {
    const base = catalog.models.beta2;
    const custom = defineCatalog({
      version: "2027-01-01",
      defaultModelId: "delta",
      models: {
        delta: {
          ...base,
          id: "delta",
          maxImageCount: 6,
          aspectRatios: ["1:1"],
          defaultAspectRatio: "1:1",
        },
      },
    });
    expect(props(requestJsonSchema(custom)).modelId?.enum).toEqual(["delta"]);
    const delta = props(modelRequestJsonSchema("delta", custom));
    expect(delta.aspectRatio?.enum).toEqual(["1:1"]);
    expect(delta.imageCount?.maximum).toBe(6);
    expect(modelRequestJsonSchema("beta2", custom)).toBeUndefined();
  });

  it("N12: image-to-image needs references, text-to-image allows none", () => {
    const [rule] = modelRequestJsonSchema("beta2")?.allOf ?? [];
    expect(rule).toMatchObject({
      if: { properties: { generationType: { const: "image-to-image" } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema keyword
      then: { required: ["inputAssetIds"], properties: { inputAssetIds: { minItems: 1 } } },
      else: { properties: { inputAssetIds: { maxItems: 0 } } },
    });
  });
});
