import * as v from "valibot";
import { catalog as builtIn } from "../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, DEFAULTS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { type Catalog, findModel } from "../models/modelSpec.js";
import { type IssueCode, messages } from "../messages.js";
import type { GenerationRequest } from "../types.js";

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

/** Length in Unicode code points, the unit of every length rule. @internal */
export function charLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A string is at most `max` code points; the cheap UTF-16 length answers most cases alone. */
const fitsIn = (max: number) => (s: string) => s.length <= max || (s.length <= 2 * max && charLength(s) <= max);

/**
 * Gives a valibot check action a stable issue code as its `type`, so an issue names the rule it
 * broke without a lookup table. @internal
 */
function coded<A extends { type: string }>(code: IssueCode, action: A): A {
  return { ...action, type: code };
}

const text = (field: string) => v.string((i) => messages.wrongType(field, "a string", i.input));

const trimmedString = (field: string, max: number) =>
  v.pipe(
    text(field),
    v.trim(),
    v.minLength(1, messages.blank(field)),
    coded(
      "too_long",
      v.check(fitsIn(max), (i) => messages.tooLong(field, max, charLength(i.input))),
    ),
  );

const option = <const T extends string>(field: string, allowed: readonly T[], hint?: (got: unknown) => string) =>
  v.pipe(
    text(field),
    v.trim(),
    v.picklist(allowed, (i) => messages.invalidOption(field, i.input, allowed, hint?.(i.input) ?? "")),
  );

const UNOFFERED_QUALITIES = ["auto", "xhigh", "max"];

function dedupe(ids: string[]): string[] {
  return ids.length < 2 ? ids : [...new Set(ids)];
}

function createRequestSchema(catalog: Catalog) {
  const modelIds = Object.keys(catalog.models);
  const entries = {
    prompt: trimmedString("prompt", LIMITS.promptMaxChars),
    modelId: v.optional(
      v.pipe(
        text("modelId"),
        v.trim(),
        v.picklist(modelIds, (i) => messages.unknownModel(i.input, modelIds)),
      ),
      catalog.defaultModelId,
    ),
    generationType: v.optional(option("generationType", GENERATION_TYPES), DEFAULTS.generationType),
    aspectRatio: v.optional(option("aspectRatio", ASPECT_RATIOS)),
    resolution: v.optional(option("resolution", RESOLUTIONS)),
    quality: v.optional(
      option("quality", QUALITIES, (got) =>
        UNOFFERED_QUALITIES.includes(String(got)) ? " (auto, xhigh and max are not offered by any model)" : "",
      ),
      DEFAULTS.quality,
    ),
    background: v.optional(option("background", BACKGROUNDS), DEFAULTS.background),
    imageCount: v.optional(
      v.pipe(
        v.number((i) => messages.wrongType("imageCount", "a number", i.input)),
        v.integer((i) => messages.notInteger("imageCount", i.input)),
        v.minValue(1, (i) => messages.tooSmall("imageCount", 1, i.input)),
      ),
      DEFAULTS.imageCount,
    ),
    inputAssetIds: v.optional(
      v.pipe(
        v.array(
          v.pipe(
            v.string((i) => messages.wrongType("each inputAssetIds entry", "a string", i.input)),
            v.trim(),
            v.minLength(1, messages.blank("each inputAssetIds entry")),
          ),
          (i) => messages.wrongType("inputAssetIds", "an array of asset id strings", i.input),
        ),
        v.transform(dedupe),
        v.maxLength(LIMITS.maxReferences, (i) => messages.tooManyReferences(LIMITS.maxReferences, i.input.length)),
      ),
    ),
    idempotencyKey: v.optional(trimmedString("idempotencyKey", LIMITS.idempotencyKeyMaxChars)),
  };

  return v.pipe(
    v.object(entries, (i) => (i.path ? messages.required(String(i.path[0]?.key)) : messages.notAnObject(i.input))),
    v.forward(
      coded(
        "references_required",
        v.partialCheck(
          [["generationType"], ["inputAssetIds"]],
          (r) => r.generationType !== "image-to-image" || (r.inputAssetIds?.length ?? 0) > 0,
          messages.referencesRequired(),
        ),
      ),
      ["inputAssetIds"],
    ),
    v.forward(
      coded(
        "references_not_allowed",
        v.partialCheck(
          [["generationType"], ["inputAssetIds"]],
          (r) => r.generationType !== "text-to-image" || (r.inputAssetIds?.length ?? 0) === 0,
          messages.referencesNotAllowed(),
        ),
      ),
      ["inputAssetIds"],
    ),
    v.forward(
      coded(
        "resolution_required",
        v.partialCheck(
          [["modelId"], ["resolution"]],
          (r) => r.resolution !== undefined || findModel(catalog, r.modelId)?.defaultResolution !== null,
          (i) => {
            const model = findModel(catalog, (i.input as { modelId?: unknown }).modelId);
            return messages.resolutionRequired(model?.id ?? "this model", model?.resolutions ?? RESOLUTIONS);
          },
        ),
      ),
      ["resolution"],
    ),
    v.transform((r): GenerationRequest => {
      // Every entry passed, so the model exists and (V2 aside, checked above) has its defaults.
      const model = findModel(catalog, r.modelId);
      const out = {
        prompt: r.prompt,
        modelId: r.modelId,
        generationType: r.generationType,
        aspectRatio: r.aspectRatio ?? model?.defaultAspectRatio,
        resolution: r.resolution ?? model?.defaultResolution,
        quality: r.quality,
        background: r.background,
        imageCount: r.imageCount,
        inputAssetIds: r.inputAssetIds ?? [],
      } as GenerationRequest;
      if (r.idempotencyKey !== undefined) out.idempotencyKey = r.idempotencyKey;
      return out;
    }),
  );
}

/** A valibot schema of a generation request for some catalog. */
export type RequestSchema = ReturnType<typeof createRequestSchema>;

const schemas = new WeakMap<Catalog, RequestSchema>();

/**
 * The valibot schema of a generation request body (N3-N14) for a catalog, built once per catalog.
 * It is a Standard Schema, so frameworks that accept one can use it directly. Unknown fields (N2)
 * and a body that is not an object (N1) are checked by {@link normalizeRequest} before it runs.
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

/** The request schema of the built-in catalog, built at module load. */
export const GenerationRequestSchema: RequestSchema = /* @__PURE__ */ requestSchema();
