/**
 * The hand-written baseline of the validation benchmark: rules N1-N15, V1-V6 and the bounds of S15 in plain
 * TypeScript, one pass over the body with no schema library, reading the same catalog and writing
 * the same issues (codes, paths and messages) as `normalizeRequest` + `validateForModel`. The bench
 * checks that both give equal results on its bodies before it times anything, so the baseline does
 * the same work, not less.
 */

import { safeEcho as cut } from "../../src/echo.js";
import { messages } from "../../src/messages.js";
import { catalog as builtIn } from "../../src/models/catalog.js";
import {
  ASPECT_RATIOS,
  BACKGROUNDS,
  DEFAULTS,
  GENERATION_TYPES,
  LIMITS,
  QUALITIES,
  RESOLUTIONS,
} from "../../src/models/lists.js";
import type { Catalog, ModelSpec } from "../../src/models/modelSpec.js";
import { BOUNDS } from "../../src/request/bounds.js";
import { REQUEST_FIELDS } from "../../src/request/schema.js";
import type { GenerationRequest, Issue, Result } from "../../src/types.js";

const FIELDS = new Set<string>(REQUEST_FIELDS);
const UNOFFERED_QUALITIES = new Set(["auto", "xhigh", "max"]);

function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Normalizes and validates a body in one pass; the result equals normalizeRequest then validateForModel. */
export function handNormalize(
  input: unknown,
  catalog: Catalog = builtIn,
): Result<GenerationRequest> {
  if (typeof input !== "object" || input === null) {
    return notObject(input);
  }
  const proto = Object.getPrototypeOf(input);
  if (proto !== Object.prototype && proto !== null) {
    return notObject(input);
  }
  const body = input as Record<string, unknown>;
  const issues: Issue[] = [];
  let omitted = 0;
  for (const key of Object.keys(body)) {
    if (FIELDS.has(key)) {
      continue;
    }
    if (issues.length < BOUNDS.maxIssues) {
      issues.push({
        path: cut(key),
        code: "unknown_field",
        message: messages.unknownField(key, REQUEST_FIELDS),
      });
    } else {
      omitted++;
    }
  }
  const own = (key: string) => (Object.hasOwn(body, key) ? body[key] : undefined);

  // A string field: wrong type, then trimmed, then blank / too long.
  const text = (field: string, value: unknown, max: number): string | undefined => {
    if (typeof value !== "string") {
      issues.push({
        path: field,
        code: "invalid_type",
        message: messages.wrongType(field, "a string", value),
      });
      return undefined;
    }
    const s = value.trim();
    if (s.length === 0) {
      issues.push({ path: field, code: "too_short", message: messages.blank(field) });
      return undefined;
    }
    if (s.length > max && (s.length > 2 * max || codePoints(s) > max)) {
      issues.push({
        path: field,
        code: "too_long",
        message: messages.tooLong(field, max, codePoints(s)),
      });
      return undefined;
    }
    return s;
  };
  // A field with a list of allowed values; `undefined` when absent (fine) or invalid (`bad` set).
  let bad = false;
  // A value outside the list is named with the values the model accepts, when the model is known.
  const option = (
    field: string,
    allowed: readonly string[],
    named = allowed,
    hint = "",
  ): string | undefined => {
    const value = own(field);
    if (value === undefined) {
      return undefined;
    }
    if (typeof value !== "string") {
      bad = true;
      issues.push({
        path: field,
        code: "invalid_type",
        message: messages.wrongType(field, "a string", value),
      });
      return undefined;
    }
    const s = value.trim();
    if (!allowed.includes(s)) {
      bad = true;
      const extra = hint && UNOFFERED_QUALITIES.has(s) ? hint : "";
      issues.push({
        path: field,
        code: "invalid_option",
        message: messages.invalidOption(field, s, named, extra),
      });
      return undefined;
    }
    return s;
  };

  // N4
  const rawPrompt = own("prompt");
  const prompt =
    rawPrompt === undefined
      ? void issues.push({ path: "prompt", code: "required", message: messages.required("prompt") })
      : text("prompt", rawPrompt, LIMITS.promptMaxChars);

  // N5
  let model: ModelSpec | undefined;
  let modelOk = true;
  const rawModel = own("modelId");
  if (rawModel === undefined) {
    model = catalog.models[catalog.defaultModelId];
  } else if (typeof rawModel !== "string") {
    modelOk = false;
    issues.push({
      path: "modelId",
      code: "invalid_type",
      message: messages.wrongType("modelId", "a string", rawModel),
    });
  } else {
    const id = rawModel.trim();
    model = Object.hasOwn(catalog.models, id) ? catalog.models[id] : undefined;
    if (!model) {
      modelOk = false;
      issues.push({
        path: "modelId",
        code: "unknown_model",
        message: messages.unknownModel(id, Object.keys(catalog.models)),
      });
    }
  }

  // N6-N10
  bad = false;
  const generationType =
    option("generationType", GENERATION_TYPES) ?? (bad ? undefined : DEFAULTS.generationType);
  const typeOk = !bad;
  const aspectRatio = option("aspectRatio", ASPECT_RATIOS, model?.aspectRatios);
  bad = false;
  const resolution = option("resolution", RESOLUTIONS, model?.resolutions);
  const resolutionOk = !bad;
  const quality =
    option(
      "quality",
      QUALITIES,
      model?.qualities,
      " (auto, xhigh and max are not offered by any model)",
    ) ?? DEFAULTS.quality;
  const background = option("background", BACKGROUNDS, model?.backgrounds) ?? DEFAULTS.background;

  // N11
  let imageCount: number = DEFAULTS.imageCount;
  const rawCount = own("imageCount");
  if (rawCount !== undefined) {
    if (typeof rawCount !== "number" || Number.isNaN(rawCount)) {
      issues.push({
        path: "imageCount",
        code: "invalid_type",
        message: messages.wrongType("imageCount", "a number", rawCount),
      });
    } else if (!Number.isInteger(rawCount)) {
      issues.push({
        path: "imageCount",
        code: "not_integer",
        message: messages.notInteger("imageCount", rawCount),
      });
    } else if (rawCount < 1) {
      issues.push({
        path: "imageCount",
        code: "too_small",
        message: messages.tooSmall("imageCount", 1, rawCount),
      });
    } else {
      imageCount = rawCount;
    }
  }

  // N12
  let ids: string[] = [];
  let idsOk = true;
  const rawIds = own("inputAssetIds");
  if (rawIds !== undefined) {
    if (!Array.isArray(rawIds)) {
      idsOk = false;
      const message = messages.wrongType("inputAssetIds", "an array of asset id strings", rawIds);
      issues.push({ path: "inputAssetIds", code: "invalid_type", message });
    } else if (rawIds.length > BOUNDS.maxReferenceEntries) {
      idsOk = false;
      const message = messages.tooManyEntries(
        LIMITS.maxReferences,
        BOUNDS.maxReferenceEntries,
        rawIds.length,
      );
      issues.push({ path: "inputAssetIds", code: "too_many_references", message });
    } else {
      const seen = new Set<string>();
      for (let i = 0; i < rawIds.length; i++) {
        const id: unknown = rawIds[i];
        if (typeof id !== "string") {
          idsOk = false;
          const message = messages.wrongType("each inputAssetIds entry", "a string", id);
          issues.push({ path: `inputAssetIds[${i}]`, code: "invalid_type", message });
          continue;
        }
        const s = id.trim();
        if (s.length === 0) {
          idsOk = false;
          const message = messages.blank("each inputAssetIds entry");
          issues.push({ path: `inputAssetIds[${i}]`, code: "too_short", message });
        } else if (!seen.has(s)) {
          seen.add(s);
          ids.push(s);
        }
      }
      if (idsOk && ids.length > LIMITS.maxReferences) {
        idsOk = false;
        const message = messages.tooManyReferences(LIMITS.maxReferences, ids.length);
        issues.push({ path: "inputAssetIds", code: "too_many_references", message });
      }
      if (!idsOk) {
        ids = [];
      }
    }
  }

  // N13
  const rawKey = own("idempotencyKey");
  const idempotencyKey =
    rawKey === undefined
      ? undefined
      : text("idempotencyKey", rawKey, LIMITS.idempotencyKeyMaxChars);

  // N12 across fields, V2's explicit resolution
  if (typeOk && idsOk) {
    if (generationType === "image-to-image" && ids.length === 0) {
      issues.push({
        path: "inputAssetIds",
        code: "references_required",
        message: messages.referencesRequired(),
      });
    } else if (generationType === "text-to-image" && ids.length > 0) {
      issues.push({
        path: "inputAssetIds",
        code: "references_not_allowed",
        message: messages.referencesNotAllowed(),
      });
    }
  }
  if (
    modelOk &&
    resolutionOk &&
    resolution === undefined &&
    model &&
    model.defaultResolution === null
  ) {
    const message = messages.resolutionRequired(model.id, model.resolutions);
    issues.push({ path: "resolution", code: "resolution_required", message });
  }
  if (issues.length > 0 || !model || prompt === undefined) {
    return { success: false, issues: bounded(issues, omitted) };
  }

  // V1-V6, from the model's entry
  const out: GenerationRequest = {
    prompt,
    modelId: model.id as GenerationRequest["modelId"],
    generationType: generationType as GenerationRequest["generationType"],
    aspectRatio: (aspectRatio ?? model.defaultAspectRatio) as GenerationRequest["aspectRatio"],
    resolution: (resolution ?? model.defaultResolution) as GenerationRequest["resolution"],
    quality: quality as GenerationRequest["quality"],
    background: background as GenerationRequest["background"],
    imageCount,
    inputAssetIds: ids,
  };
  if (idempotencyKey !== undefined) {
    out.idempotencyKey = idempotencyKey;
  }
  const unsupported = (
    field: "aspectRatio" | "resolution" | "quality" | "background",
    allowed: readonly string[],
  ) => {
    const value = out[field];
    if (!allowed.includes(value)) {
      const code = field === "aspectRatio" ? "unsupported_aspect_ratio" : `unsupported_${field}`;
      issues.push({
        path: field,
        code,
        message: messages.unsupported(field, value, model.id, allowed),
      });
    }
  };
  unsupported("aspectRatio", model.aspectRatios);
  unsupported("resolution", model.resolutions);
  unsupported("quality", model.qualities);
  unsupported("background", model.backgrounds);
  if (imageCount > model.maxImageCount) {
    const message = messages.tooManyImages(model.maxImageCount, imageCount, model.id);
    issues.push({ path: "imageCount", code: "too_many_images", message });
  }
  if (ids.length > model.maxReferenceImages) {
    const message = messages.tooManyReferences(model.maxReferenceImages, ids.length, model.id);
    issues.push({ path: "inputAssetIds", code: "too_many_references", message });
  }
  return issues.length > 0 ? { success: false, issues } : { success: true, output: out };
}

/** At most 50 issues, then one counting the rest (S15). */
function bounded(issues: Issue[], omitted: number): Issue[] {
  const over = issues.length + omitted - BOUNDS.maxIssues;
  if (over <= 0) {
    return issues;
  }
  return [
    ...issues.slice(0, BOUNDS.maxIssues),
    { path: "", code: "too_many_issues", message: messages.tooManyIssues(over) },
  ];
}

function notObject(input: unknown): Result<GenerationRequest> {
  return {
    success: false,
    issues: [{ path: "", code: "invalid_type", message: messages.notAnObject(input) }],
  };
}
