/**
 * Quote specs ({@link quoteSpec}), priceable or not, and valid account multipliers
 * ({@link priceMultiplier}).
 *
 * @module
 */
import type { Arbitrary } from "fast-check";
import { catalog as builtIn } from "../models/catalog.js";
import { DEFAULTS, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { parseMultiplier } from "../pricing/multiplier.js";
import type { QuoteSpec } from "../pricing/quote.js";
import { fc } from "./fastCheck.js";
import { notIn, pad } from "./strings.js";
import { modelsOf, type TestingOptions } from "./validRequests.js";

/**
 * Quote specs for `quote`, priceable or not as asked.
 *
 * With `priceable: true`, only specs the catalog prices (an accepted
 * resolution and quality, a reference count within the model's limit); with `priceable: false`,
 * only specs it cannot price (`credits: null`); by default, both. An unpriceable spec may hold a
 * value outside its type on purpose (a resolution of `"8K"`, a count of `1.5`), as a client of the
 * quote endpoint may send one, so that a test can check `quote`'s answer to it.
 *
 * @param options - The catalog, optionally one model id, and `priceable`.
 * @returns An arbitrary of {@link QuoteSpec}s.
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(quoteSpec({ priceable: true }), priceMultiplier(), (spec, multiplier) => {
 *     const credits = quote(spec, { account: { multiplier } }).credits;
 *     return credits !== null && Number.isSafeInteger(credits);
 *   }),
 * );
 * ```
 */
export function quoteSpec(
  options?: TestingOptions & { priceable?: boolean },
): Arbitrary<QuoteSpec> {
  const models = modelsOf(options);
  const priceable = fc.constantFrom(...models).chain((m) =>
    fc
      .record({
        resolution:
          m.defaultResolution === null
            ? fc.constantFrom(...m.resolutions)
            : fc.option(fc.constantFrom(...m.resolutions), { nil: undefined }),
        quality: m.qualities.includes(DEFAULTS.quality)
          ? fc.option(fc.constantFrom(...m.qualities), { nil: undefined })
          : fc.constantFrom(...m.qualities),
        referenceImageCount: fc.option(fc.integer({ min: 0, max: m.maxReferenceImages }), {
          nil: undefined,
        }),
      })
      .map((r) => {
        const spec: QuoteSpec = { kind: "image", modelId: m.id };
        if (r.resolution !== undefined) {
          spec.resolution = r.resolution;
        }
        if (r.quality !== undefined) {
          spec.quality = r.quality;
        }
        if (r.referenceImageCount !== undefined) {
          spec.referenceImageCount = r.referenceImageCount;
        }
        return spec;
      }),
  );
  const unpriceable = fc.constantFrom(...models).chain((m) => {
    const base = {
      kind: "image" as const,
      modelId: m.id,
      resolution: (m.defaultResolution ?? m.resolutions[0]) as string,
    };
    // Values outside the spec's type, on purpose: what a client may send.
    const choices: Arbitrary<unknown>[] = [
      notIn(Object.keys((options?.catalog ?? builtIn).models), ["delta", "toString"]).map(
        (modelId) => ({ ...base, modelId }),
      ),
      notIn(RESOLUTIONS, ["8K", "1k"]).map((resolution) => ({ ...base, resolution })),
      notIn(QUALITIES, ["auto", "xhigh", "max"]).map((quality) => ({ ...base, quality })),
      fc
        .oneof(
          fc.integer({ min: -5, max: -1 }),
          fc.integer({ min: LIMITS.maxReferences + 1, max: 50 }),
          fc.constant(1.5),
        )
        .map((referenceImageCount) => ({ ...base, referenceImageCount })),
    ];
    const otherResolutions = RESOLUTIONS.filter((r) => !m.resolutions.includes(r));
    if (otherResolutions.length > 0) {
      choices.push(
        fc.constantFrom(...otherResolutions).map((resolution) => ({ ...base, resolution })),
      );
    }
    const otherQualities = QUALITIES.filter((q) => !m.qualities.includes(q));
    if (otherQualities.length > 0) {
      choices.push(fc.constantFrom(...otherQualities).map((quality) => ({ ...base, quality })));
    }
    if (m.maxReferenceImages < LIMITS.maxReferences) {
      choices.push(
        fc
          .integer({ min: m.maxReferenceImages + 1, max: LIMITS.maxReferences })
          .map((referenceImageCount) => ({ ...base, referenceImageCount })),
      );
    }
    if (m.defaultResolution === null) {
      const { resolution: _, ...withoutResolution } = base;
      choices.push(fc.constant(withoutResolution));
    }
    return fc.oneof(...choices) as Arbitrary<QuoteSpec>;
  });
  if (options?.priceable === true) {
    return priceable;
  }
  if (options?.priceable === false) {
    return unpriceable;
  }
  return fc.oneof({ weight: 3, arbitrary: priceable }, { weight: 1, arbitrary: unpriceable });
}

/**
 * Valid account multipliers (P4 of docs/rules.md): plain decimal strings from 0 to 1000 of at most
 * 32 characters (sometimes padded with whitespace), and finite numbers in that range whose shortest
 * decimal form has at most 32 characters.
 *
 * @returns An arbitrary of multipliers for `AccountPricing.multiplier`.
 * @example
 * ```ts
 * fc.assert(fc.property(generationRequest(), priceMultiplier(), (request, multiplier) =>
 *   computeCharge(request, { account: { multiplier } }).totalCreditCost >= 0));
 * ```
 */
export function priceMultiplier(): Arbitrary<string | number> {
  const digits = fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 12 });
  const asString = fc
    .oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 999 }), digits)
        .map(([w, f]) => (f ? `${w}.${f}` : String(w))),
      fc.constantFrom("1", "1.15", "2.3", "0.5", "1000"),
    )
    .chain(pad);
  const asNumber = fc.oneof(
    fc.double({ min: 0, max: 1000, noNaN: true }).filter((n) => parseMultiplier(n) !== undefined),
    fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100),
  );
  return fc.oneof(asString, asNumber);
}
