/**
 * Valid generation requests: the catalog's models, request bodies every model accepts
 * ({@link generationRequestBody}) and the requests they normalize to ({@link generationRequest}).
 *
 * @module
 */
import type { Arbitrary } from "fast-check";
import { catalog as builtIn } from "../models/catalog.js";
import { DEFAULTS, LIMITS } from "../models/lists.js";
import type { Catalog, ModelSpec } from "../models/modelSpec.js";
import { normalizeRequest } from "../request/normalizeRequest.js";
import type { GenerationRequest } from "../types.js";
import { fc } from "./fastCheck.js";
import { distinctIds, pad, text, withCopies } from "./strings.js";

/**
 * Which catalog to read and, optionally, the one model to generate for (default: any model of the
 * catalog).
 *
 * @example
 * ```ts
 * generationRequestBody({ catalog: myCatalog, modelId: "my-model-1" });
 * ```
 */
export type TestingOptions = {
  /** The catalog whose models, limits and defaults apply (default: the built-in one). */
  catalog?: Catalog;
  /** Generate for this model only. */
  modelId?: string;
};

/**
 * The models of the catalog to generate for: all of them, or the one named, kept when `usable`.
 *
 * @param options - The catalog and, optionally, one model id.
 * @param usable - Which models fit (default: all).
 * @returns The models, possibly none.
 * @throws RangeError when the named model is not in the catalog.
 */
export function modelsOf(
  options: TestingOptions | undefined,
  usable: (m: ModelSpec) => boolean = () => true,
): ModelSpec[] {
  const catalog = options?.catalog ?? builtIn;
  const all = Object.values(catalog.models);
  const chosen = options?.modelId === undefined ? all : all.filter((m) => m.id === options.modelId);
  if (chosen.length === 0) {
    throw new RangeError(`No model ${JSON.stringify(options?.modelId)} in the catalog.`);
  }
  return chosen.filter(usable);
}

/** A valid request body and the model it was made for. */
export type Valid = { model: ModelSpec; body: Record<string, unknown> };

/**
 * Valid request bodies of one model: optional fields omitted or set, strings padded now and then.
 */
function validFor(model: ModelSpec, catalog: Catalog): Arbitrary<Valid> {
  const opt = <T>(arb: Arbitrary<T>, omittable: boolean) =>
    omittable ? fc.option(arb, { nil: undefined, freq: 3 }) : arb;
  const maxRefs = Math.min(model.maxReferenceImages, LIMITS.maxReferences);
  return fc
    .record({
      prompt: text(40),
      sendModel: model.id === catalog.defaultModelId ? fc.boolean() : fc.constant(true),
      aspectRatio: opt(fc.constantFrom(...model.aspectRatios), true),
      resolution: opt(fc.constantFrom(...model.resolutions), model.defaultResolution !== null),
      quality: opt(fc.constantFrom(...model.qualities), model.qualities.includes(DEFAULTS.quality)),
      background: opt(
        fc.constantFrom(...model.backgrounds),
        model.backgrounds.includes(DEFAULTS.background),
      ),
      imageCount: opt(fc.integer({ min: 1, max: model.maxImageCount }), true),
      refs:
        maxRefs > 0
          ? fc.option(distinctIds(1, maxRefs).chain(withCopies), { nil: undefined })
          : fc.constant(undefined),
      idempotencyKey: opt(text(24), true),
    })
    .chain((p) => {
      const fields: Record<string, unknown> = { prompt: p.prompt };
      if (p.sendModel) {
        fields.modelId = model.id;
      }
      if (p.refs) {
        Object.assign(fields, { generationType: "image-to-image", inputAssetIds: p.refs });
      }
      for (const key of [
        "aspectRatio",
        "resolution",
        "quality",
        "background",
        "imageCount",
        "idempotencyKey",
      ] as const) {
        if (p[key] !== undefined) {
          fields[key] = p[key];
        }
      }
      // Pad each string field with whitespace now and then: the rules trim it (N3).
      const keys = Object.keys(fields).filter((k) => typeof fields[k] === "string");
      return fc.tuple(...keys.map((k) => pad(fields[k] as string))).map((padded) => {
        const body = { ...fields };
        keys.forEach((k, i) => {
          body[k] = padded[i];
        });
        return { model, body };
      });
    });
}

/**
 * Valid request bodies of any usable model of the catalog.
 *
 * @param options - The catalog and, optionally, one model id.
 * @param usable - Which models may be used (default: all).
 * @returns An arbitrary of valid bodies with their model.
 * @throws RangeError when no model fits.
 */
export function validAny(
  options: TestingOptions | undefined,
  usable?: (m: ModelSpec) => boolean,
): Arbitrary<Valid> {
  const catalog = options?.catalog ?? builtIn;
  const models = modelsOf(options, usable);
  if (models.length === 0) {
    throw new RangeError("No model of the catalog fits.");
  }
  return fc.constantFrom(...models).chain((m) => validFor(m, catalog));
}

/**
 * Request bodies that `normalizeRequest` and then `validateForModel` accept: built from the
 * catalog's own limits and defaults, with whitespace around strings, Unicode prompts and repeated
 * references now and then (all of which the rules allow).
 *
 * @param options - The catalog (default: the built-in one) and, optionally, one model id.
 * @returns An arbitrary of JSON-ready request bodies.
 * @example
 * ```ts
 * fc.assert(fc.property(generationRequestBody(), (body) => myHandler(body).status === 202));
 * ```
 */
export function generationRequestBody(
  options?: TestingOptions,
): Arbitrary<Record<string, unknown>> {
  return validAny(options).map((v) => v.body);
}

/**
 * Normalized generation requests (what `normalizeRequest` returns for {@link
 * generationRequestBody}), ready for `validateForModel`, `computeCharge` or your own code.
 *
 * @param options - The catalog (default: the built-in one) and, optionally, one model id.
 * @returns An arbitrary of valid {@link GenerationRequest}s.
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(generationRequest({ modelId: "alpha-img2-official" }), (request) => {
 *     const charge = computeCharge(request);
 *     return charge.totalCreditCost === charge.perOutputCredits * request.imageCount;
 *   }),
 * );
 * ```
 */
export function generationRequest(options?: TestingOptions): Arbitrary<GenerationRequest> {
  const catalog = options?.catalog ?? builtIn;
  return generationRequestBody(options).map((body) => {
    const r = normalizeRequest(body, { catalog });
    if (!r.success) {
      throw new Error(`generationRequest made an invalid body: ${JSON.stringify(r.issues)}`);
    }
    return r.output;
  });
}
