import { catalog as builtIn } from "../models/catalog.js";
import { type Catalog, findModel } from "../models/modelSpec.js";
import { messages } from "../messages.js";
import type { GenerationRequest, Issue, Result } from "../types.js";

/** Counts distinct references the way the service does: trimmed, duplicates once (N12, P6). @internal */
export function distinctReferences(ids: readonly unknown[]): number {
  return new Set(ids.map((id) => (typeof id === "string" ? id.trim() : id))).size;
}

/**
 * Checks a normalized request against its model's own limits (rules V1-V6), read from the catalog:
 * the code names no model (V7).
 *
 * @param request - A request from {@link normalizeRequest} (or built to the same shape).
 * @param catalog - The catalog to read (default: the built-in one).
 * @returns `{ success: true, output }` (the request; an omitted resolution takes the model's
 *   default), or `{ success: false, issues }` with every limit the request breaks.
 * @example
 * ```ts
 * const normalized = normalizeRequest(body);
 * const checked = normalized.success ? validateForModel(normalized.output) : normalized;
 * if (!checked.success) return { status: 400, issues: checked.issues };
 * ```
 */
export function validateForModel(request: GenerationRequest, catalog: Catalog = builtIn): Result<GenerationRequest> {
  const model = findModel(catalog, request.modelId);
  if (!model) {
    const ids = Object.keys(catalog.models);
    return {
      success: false,
      issues: [{ path: "modelId", code: "unknown_model", message: messages.unknownModel(request.modelId, ids) }],
    };
  }
  const issues: Issue[] = [];
  const unsupported = (field: "aspectRatio" | "resolution" | "quality" | "background", allowed: readonly string[]) => {
    const value: unknown = request[field];
    if (!allowed.includes(value as string)) {
      const code = field === "aspectRatio" ? "unsupported_aspect_ratio" : `unsupported_${field}`;
      issues.push({ path: field, code, message: messages.unsupported(field, value, model.id, allowed) });
    }
  };

  unsupported("aspectRatio", model.aspectRatios);
  let output = request;
  if (request.resolution === undefined) {
    if (model.defaultResolution === null) {
      issues.push({
        path: "resolution",
        code: "resolution_required",
        message: messages.resolutionRequired(model.id, model.resolutions),
      });
    } else {
      output = { ...request, resolution: model.defaultResolution };
    }
  } else {
    unsupported("resolution", model.resolutions);
  }
  unsupported("quality", model.qualities);
  unsupported("background", model.backgrounds);

  const count: unknown = request.imageCount;
  if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 1) {
    issues.push({ path: "imageCount", code: "not_integer", message: messages.notInteger("imageCount", count) });
  } else if (count > model.maxImageCount) {
    issues.push({
      path: "imageCount",
      code: "too_many_images",
      message: messages.tooManyImages(model.maxImageCount, count, model.id),
    });
  }

  const ids: unknown = request.inputAssetIds;
  if (!Array.isArray(ids)) {
    issues.push({
      path: "inputAssetIds",
      code: "invalid_type",
      message: messages.wrongType("inputAssetIds", "an array of asset id strings", ids),
    });
  } else {
    const distinct = distinctReferences(ids);
    if (distinct > model.maxReferenceImages) {
      issues.push({
        path: "inputAssetIds",
        code: "too_many_references",
        message: messages.tooManyReferences(model.maxReferenceImages, distinct, model.id),
      });
    }
  }

  return issues.length > 0 ? { success: false, issues } : { success: true, output };
}
