/**
 * `validateForModel`: a request against its model's own limits (V1-V7), read from the catalog, and
 * the model checks that `checkRequest` runs on the well-formed fields of a malformed body.
 */

import { type IssueCode, messages } from "../messages.js";
import { type CatalogOptions, resolveCatalog } from "../models/catalogOptions.js";
import { findModel, type ModelSpec } from "../models/modelSpec.js";
import type { GenerationRequest, Issue, Result } from "../types.js";

/**
 * Counts distinct references the way the service does: trimmed, duplicates once (N12, P6).
 * @internal
 *
 * @param ids - The listed references (entries of any type are counted, never trimmed into a crash).
 * @returns How many distinct references there are.
 */
export function distinctReferences(ids: readonly unknown[]): number {
  return new Set(ids.map((id) => (typeof id === "string" ? id.trim() : id))).size;
}

/** The fields whose values a model limits, in the order their issues are reported. */
type LimitedField =
  | "aspectRatio"
  | "resolution"
  | "quality"
  | "background"
  | "imageCount"
  | "inputAssetIds";

/**
 * The issues of a model's own limits (V1-V6) on the fields `checked` accepts; the others are left
 * alone (they have a shape issue already). Values of any type are judged, never trusted. @internal
 *
 * @param model - The request's model.
 * @param fields - The request's fields (any values).
 * @param checked - Which fields to judge.
 * @returns Every limit broken, in field order.
 */
export function modelIssues(
  model: ModelSpec,
  fields: Record<string, unknown>,
  checked: (field: LimitedField) => boolean,
): Issue[] {
  const issues: Issue[] = [];
  const unsupported = (
    field: "aspectRatio" | "resolution" | "quality" | "background",
    allowed: readonly string[],
  ) => {
    const value = fields[field];
    if (!checked(field)) {
      return;
    }
    if (field === "resolution" && value === undefined) {
      // No resolution named: the model's default applies, and a model without one needs it named
      // (V2).
      if (model.defaultResolution === null) {
        const message = messages.resolutionRequired(model.id, model.resolutions);
        issues.push({ path: "resolution", code: "resolution_required", message });
      }
    } else if (!allowed.includes(value as string)) {
      const code: IssueCode =
        field === "aspectRatio" ? "unsupported_aspect_ratio" : (`unsupported_${field}` as const);
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

  const count = fields.imageCount;
  if (checked("imageCount")) {
    if (!Number.isSafeInteger(count) || (count as number) < 1) {
      issues.push({
        path: "imageCount",
        code: "not_integer",
        message: messages.notInteger("imageCount", count),
      });
    } else if ((count as number) > model.maxImageCount) {
      issues.push({
        path: "imageCount",
        code: "too_many_images",
        message: messages.tooManyImages(model.maxImageCount, count as number, model.id),
      });
    }
  }

  const ids = fields.inputAssetIds;
  if (checked("inputAssetIds")) {
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
  }
  return issues;
}

const EVERY_FIELD = () => true;

/**
 * Checks a normalized request against its model's own limits (rules V1-V6), read from the catalog.
 *
 * The second of the two stages of {@link checkRequest}: call it alone for a request you already
 * hold in normalized form (one built in code, or stored and checked again against another catalog
 * or instant). The code names no model: every limit is the catalog's (V7).
 *
 * @param request - A request from {@link normalizeRequest} (or built to the same shape).
 * @param options - `catalog` (a catalog, or a price history) and `at`, as for every core function
 *   (default: the built-in catalog).
 * @returns `{ success: true, output }` (the request; an omitted resolution takes the model's
 *   default), or `{ success: false, issues }` with every limit the request breaks.
 * @example
 * ```ts
 * const normalized = normalizeRequest(body);
 * const checked = normalized.success ? validateForModel(normalized.output) : normalized;
 * if (!checked.success) return { status: 400, issues: checked.issues };
 * ```
 */
export function validateForModel(
  request: GenerationRequest,
  options?: CatalogOptions,
): Result<GenerationRequest> {
  const catalog = resolveCatalog(options, "validateForModel");
  const model = findModel(catalog, request.modelId);
  if (!model) {
    const ids = Object.keys(catalog.models);
    return {
      success: false,
      issues: [
        {
          path: "modelId",
          code: "unknown_model",
          message: messages.unknownModel(request.modelId, ids),
        },
      ],
    };
  }
  const issues = modelIssues(model, request, EVERY_FIELD);
  if (issues.length > 0) {
    return { success: false, issues };
  }
  // A request built without a resolution takes the model's default (one without a default failed
  // above).
  const resolution = request.resolution ?? model.defaultResolution;
  return {
    success: true,
    output:
      resolution === request.resolution
        ? request
        : ({ ...request, resolution } as GenerationRequest),
  };
}
