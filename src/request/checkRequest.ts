/**
 * `checkRequest`: the whole verdict on a generation request body in one call, the shape rules and
 * the model's own limits together, every issue of both at once (N15, V1-V6).
 */
import { type CatalogOptions, resolveCatalog } from "../models/catalogOptions.js";
import { findModel } from "../models/modelSpec.js";
import type { GenerationRequest, Result } from "../types.js";
import { bounded } from "./issues.js";
import { readShape } from "./normalizeRequest.js";
import { modelIssues, validateForModel } from "./validateForModel.js";

/**
 * Checks a generation request body against the shape rules and its model's own limits, and reports
 * every issue of both at once.
 *
 * This is the front door: the one call for "is this body valid for its model, and what is wrong".
 * A malformed field never hides a limit that another, well-formed field breaks
 * (`{ prompt: "", modelId: "alpha-img2", resolution: "4K", imageCount: 20 }` is three issues: the
 * prompt, the resolution and the count). When `modelId` itself is malformed, no model's limits
 * apply and only the shape issues are reported. At most 50 issues, then one `too_many_issues` issue
 * counting the rest (S15).
 *
 * It runs the two named stages, {@link normalizeRequest} (shape, trimming, defaults) and
 * {@link validateForModel} (the model's limits), and on success gives what they give one after the
 * other; call them apart only when you need one stage without the other.
 *
 * @param input - A parsed JSON body, of any type.
 * @param options - `catalog` (a catalog, or a price history) and `at`: whose models, defaults and
 *   limits apply (default: the built-in catalog).
 * @returns `{ success: true, output }` with the normalized request, ready to price, or
 *   `{ success: false, issues }`.
 * @example
 * ```ts
 * const checked = checkRequest({ prompt: "", modelId: "alpha-img2", resolution: "4K", imageCount:
 * 20 }); if (!checked.success) checked.issues.map((i) => i.path); // ["prompt", "resolution",
 * "imageCount"]
 * ```
 */
export function checkRequest(input: unknown, options?: CatalogOptions): Result<GenerationRequest> {
  const catalog = resolveCatalog(options, "checkRequest");
  const shape = readShape(input, catalog);
  if (shape.success) {
    return validateForModel(shape.output, { catalog });
  }
  const { fields, malformed } = shape;
  // The model's limits judge the fields that are given and well formed, when the model is known
  // (V7); an absent field takes the model's default, which the model accepts.
  // (A malformed `modelId` names no model.)
  const model = fields && findModel(catalog, fields.modelId);
  const limits = model
    ? modelIssues(model, fields, (field) => fields[field] !== undefined && !malformed.has(field))
    : [];
  return { success: false, issues: bounded([...shape.issues, ...limits], shape.omitted) };
}
