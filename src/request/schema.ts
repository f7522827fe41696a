/**
 * The valibot schema of a generation request body (N3-N14), built once per catalog: the shape rules
 * field by field, then the checks across fields.
 */
import * as v from "valibot";
import { type IssueCode, messages } from "../messages.js";
import { catalog as builtIn } from "../models/catalog.js";
import {
  ASPECT_RATIOS,
  BACKGROUNDS,
  DEFAULTS,
  GENERATION_TYPES,
  LIMITS,
  RESOLUTIONS,
} from "../models/lists.js";
import { type Catalog, findModel, type ModelSpec } from "../models/modelSpec.js";
import type { GenerationRequest } from "../types.js";
import { BOUNDS } from "./bounds.js";
import { nonBlank, option, qualityOption, sizedFirst, trimmedString } from "./fields.js";
import { coded, formatPath } from "./issues.js";

/** The fields of a generation request, in the order the output lists them. */
export const REQUEST_FIELDS = [
  "prompt",
  "modelId",
  "generationType",
  "aspectRatio",
  "resolution",
  "quality",
  "background",
  "imageCount",
  "inputAssetIds",
  "idempotencyKey",
] as const;

const dedupe = (ids: string[]): string[] => [...new Set(ids)];

function createRequestSchema(catalog: Catalog) {
  const modelIds = Object.keys(catalog.models);
  const entries = {
    prompt: trimmedString("prompt", LIMITS.promptMaxChars),
    modelId: v.optional(
      option("modelId", modelIds, {
        code: "unknown_model",
        message: (got) => messages.unknownModel(got, modelIds),
      }),
      catalog.defaultModelId,
    ),
    generationType: v.optional(option("generationType", GENERATION_TYPES), DEFAULTS.generationType),
    aspectRatio: v.optional(option("aspectRatio", ASPECT_RATIOS)),
    resolution: v.optional(option("resolution", RESOLUTIONS)),
    quality: v.optional(qualityOption(), DEFAULTS.quality),
    background: v.optional(option("background", BACKGROUNDS), DEFAULTS.background),
    imageCount: v.optional(
      v.pipe(
        v.number((i) => messages.wrongType("imageCount", "a number", i.input)),
        v.integer(coded("not_integer", (i) => messages.notInteger("imageCount", i.input))),
        v.minValue(
          1,
          coded("too_small", (i) => messages.tooSmall("imageCount", 1, i.input)),
        ),
      ),
      DEFAULTS.imageCount,
    ),
    inputAssetIds: v.optional(
      v.pipe(
        // The list's length is checked before its entries (S15).
        sizedFirst(
          v.array(nonBlank("each inputAssetIds entry"), (i) =>
            messages.wrongType("inputAssetIds", "an array of asset id strings", i.input),
          ),
          BOUNDS.maxReferenceEntries,
          "too_many_references",
          (length) =>
            messages.tooManyEntries(LIMITS.maxReferences, BOUNDS.maxReferenceEntries, length),
        ),
        v.transform(dedupe),
        v.maxLength(
          LIMITS.maxReferences,
          coded("too_many_references", (i) =>
            messages.tooManyReferences(
              LIMITS.maxReferences,
              (i.input as readonly unknown[]).length,
            ),
          ),
        ),
      ),
    ),
    idempotencyKey: v.optional(trimmedString("idempotencyKey", LIMITS.idempotencyKeyMaxChars)),
  };

  // valibot reports a missing key with the object's message, at the key's path.
  const shape = v.object(entries, (i) =>
    i.path ? messages.required(formatPath(i.path)) : messages.notAnObject(i.input),
  );
  type Fields = v.InferOutput<typeof shape>;
  type Field = keyof Fields & string;
  /**
   * A check across fields, run when `field` is well formed whatever the others (valibot's partial
   * check), and reported there with `code` (N12, N15, V2). Each requirement holds for a malformed
   * value of the other field it reads (a malformed `generationType` is neither type, a malformed
   * `modelId` names no model), so it needs only `field` to be well formed.
   */
  const across = (
    code: IssueCode,
    field: Field,
    requirement: (r: Partial<Fields>) => boolean,
    message: string | ((issue: v.PartialCheckIssue<Partial<Fields>>) => string),
  ) =>
    v.partialCheck(
      [[field]] as never,
      requirement as never,
      coded(code, message as never, field),
    ) as unknown as v.BaseValidation<Fields, Fields, v.BaseIssue<unknown>>;

  return v.pipe(
    shape,
    across(
      "references_required",
      "inputAssetIds",
      (r) => r.generationType !== "image-to-image" || (r.inputAssetIds?.length ?? 0) > 0,
      messages.referencesRequired(),
    ),
    across(
      "references_not_allowed",
      "inputAssetIds",
      (r) => r.generationType !== "text-to-image" || (r.inputAssetIds?.length ?? 0) === 0,
      messages.referencesNotAllowed(),
    ),
    across(
      "resolution_required",
      "resolution",
      (r) =>
        r.resolution !== undefined || findModel(catalog, r.modelId)?.defaultResolution !== null,
      (i) => {
        // Reported only for a model found without a default resolution.
        const model = findModel(catalog, i.input.modelId) as ModelSpec;
        return messages.resolutionRequired(model.id, model.resolutions);
      },
    ),
    v.transform((r): GenerationRequest => {
      // Every entry passed, so the model exists and (V2 aside, checked above) has its defaults.
      const model = findModel(catalog, r.modelId) as ModelSpec;
      const out = {
        prompt: r.prompt,
        modelId: r.modelId,
        generationType: r.generationType,
        aspectRatio: r.aspectRatio ?? model.defaultAspectRatio,
        resolution: r.resolution ?? model.defaultResolution,
        quality: r.quality,
        background: r.background,
        imageCount: r.imageCount,
        inputAssetIds: r.inputAssetIds ?? [],
      } as GenerationRequest;
      if (r.idempotencyKey !== undefined) {
        out.idempotencyKey = r.idempotencyKey;
      }
      return out;
    }),
  );
}

/** A valibot schema of a generation request for some catalog. @internal */
type RequestSchema = ReturnType<typeof createRequestSchema>;

const schemas = new WeakMap<Catalog, RequestSchema>();

/**
 * The valibot schema of a generation request body (N3-N14) for a catalog, built once per catalog.
 * It is a Standard Schema, so frameworks that accept one can use it directly. Unknown fields (N2)
 * and a body that is not an object (N1) are checked by {@link normalizeRequest} before it runs.
 *
 * `checkRequest` and `normalizeRequest` take a catalog in their options; this stays internal.
 * @internal
 *
 * @param catalog - The catalog whose models and defaults apply (default: the built-in one).
 * @returns The schema.
 */
export function requestSchema(catalog: Catalog = builtIn): RequestSchema {
  let schema = schemas.get(catalog);
  if (!schema) {
    schema = createRequestSchema(catalog);
    schemas.set(catalog, schema);
  }
  return schema;
}

/**
 * The valibot schema of a generation request body for the built-in catalog (N3-N14), a Standard
 * Schema for tRPC, Hono or TanStack Form.
 *
 * For another catalog, use `checkRequest(body, { catalog })`.
 */
export const GenerationRequestSchema: v.GenericSchema<unknown, GenerationRequest> =
  /* @__PURE__ */ requestSchema();
