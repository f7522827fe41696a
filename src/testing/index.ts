/**
 * fast-check arbitraries for your own property tests: valid generation requests, requests that break
 * exactly one named rule, quote specs and price multipliers, all read from the package's catalog
 * (or your own). Import from `<package>/testing`; `fast-check` (v4) is a peer dependency, never
 * pulled into the core entry.
 *
 * @example
 * ```ts
 * import fc from "fast-check";
 * import { normalizeRequest, validateForModel } from "imagegen-pricing";
 * import { generationRequestBody } from "imagegen-pricing/testing";
 *
 * fc.assert(
 *   fc.property(generationRequestBody({ modelId: "beta2" }), (body) => {
 *     const normalized = normalizeRequest(body);
 *     return normalized.success && validateForModel(normalized.output).success;
 *   }),
 * );
 * ```
 *
 * @packageDocumentation
 */
import fc from "fast-check";
import { catalog as builtIn } from "../models/catalog.js";
import { ASPECT_RATIOS, BACKGROUNDS, DEFAULTS, GENERATION_TYPES, LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import type { Catalog, ModelSpec } from "../models/modelSpec.js";
import type { QuoteSpec } from "../pricing/quote.js";
import { normalizeRequest } from "../request/normalizeRequest.js";
import { REQUEST_FIELDS } from "../request/schema.js";
import type { GenerationRequest } from "../types.js";

/**
 * Which catalog to read and, optionally, the one model to generate for (default: any model of the catalog).
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
 * The rules a request body can break on its own (ids of RULES.md), for {@link nearlyValidRequestBody}.
 *
 * @example
 * ```ts
 * for (const rule of BREAKABLE_RULES) {
 *   fc.assert(
 *     fc.property(nearlyValidRequestBody(rule), ({ body, path }) => {
 *       const normalized = normalizeRequest(body);
 *       const result = normalized.success ? validateForModel(normalized.output) : normalized;
 *       return !result.success && result.issues.every((issue) => issue.path === path);
 *     }),
 *   );
 * }
 * ```
 */
export const BREAKABLE_RULES = [
  "N1",
  "N2",
  "N3",
  "N4",
  "N5",
  "N6",
  "N7",
  "N8",
  "N9",
  "N10",
  "N11",
  "N12",
  "N13",
  "N14",
  "V1",
  "V2",
  "V3",
  "V4",
  "V5",
  "V6",
] as const;

/** One of {@link BREAKABLE_RULES}. */
export type BreakableRule = (typeof BREAKABLE_RULES)[number];

/** A request body that breaks exactly one rule, with where and how the package reports it. */
export type NearlyValidRequest = {
  /** The rule the body breaks. */
  rule: BreakableRule;
  /** The model of the valid request the body was made from. */
  modelId: string;
  /** The body: pass it to `normalizeRequest` (then `validateForModel`). */
  body: unknown;
  /** The `path` of every issue the body gets. */
  path: string;
  /** The issue codes the rule may report at that path. */
  codes: readonly string[];
};

// ---------------------------------------------------------------------------------------------
// Strings

const WHITESPACE = [" ", "\t", "\n", "\r", "\u00a0", "\u2003", "\u3000", "\ufeff"];

const char: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCodePoint(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xa1, max: 0x24f }).map((c) => String.fromCodePoint(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x300, max: 0x36f }).map((c) => String.fromCodePoint(c)) },
  { weight: 1, arbitrary: fc.integer({ min: 0x4e00, max: 0x9fff }).map((c) => String.fromCodePoint(c)) },
  { weight: 2, arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }).map((c) => String.fromCodePoint(c)) },
);

const whitespace = fc.oneof(
  { weight: 2, arbitrary: fc.constant("") },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...WHITESPACE), { minLength: 1, maxLength: 3 }).map((a) => a.join("")) },
);

const blank = fc.array(fc.constantFrom(...WHITESPACE), { maxLength: 4 }).map((a) => a.join(""));

const pad = (s: string) => fc.tuple(whitespace, whitespace).map(([a, b]) => `${a}${s}${b}`);

const text = (maxChars: number) =>
  fc
    .array(fc.oneof({ weight: 8, arbitrary: char }, { weight: 1, arbitrary: fc.constant(" ") }), {
      minLength: 1,
      maxLength: maxChars,
    })
    .map((a) => a.join("").trim())
    .filter((s) => s.length > 0);

/** `n` code points of text, cheap for large `n`. */
const textOfLength = (n: number) =>
  fc.array(char, { minLength: 1, maxLength: 3 }).map((pattern) => {
    const out: string[] = [];
    for (let i = 0; out.length < n; i++) out.push(pattern[i % pattern.length] as string);
    return out.join("");
  });

const assetId = fc.oneof(fc.stringMatching(/^asset_[a-z0-9]{1,8}$/), text(10));

const distinctIds = (min: number, max: number) => fc.uniqueArray(assetId, { minLength: min, maxLength: max });

/** Adds copies of ids after their first occurrence: de-duplicating gives the list back. */
const withCopies = (ids: readonly string[]) =>
  fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { maxLength: ids.length > 0 ? 3 : 0 }).map((copies) => {
    const out = [...ids];
    for (const [which, where, padIt] of copies) {
      const id = ids[which % ids.length] as string;
      const first = out.indexOf(id);
      out.splice(first + 1 + (where % (out.length - first)), 0, padIt ? ` ${id} ` : id);
    }
    return out;
  });

const setOwn = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

// ---------------------------------------------------------------------------------------------
// Models

function modelsOf(options: TestingOptions | undefined, usable: (m: ModelSpec) => boolean = () => true): ModelSpec[] {
  const catalog = options?.catalog ?? builtIn;
  const all = Object.values(catalog.models);
  const chosen = options?.modelId === undefined ? all : all.filter((m) => m.id === options.modelId);
  if (chosen.length === 0) throw new RangeError(`No model ${JSON.stringify(options?.modelId)} in the catalog.`);
  return chosen.filter(usable);
}

type Valid = { model: ModelSpec; body: Record<string, unknown> };

function validFor(model: ModelSpec, catalog: Catalog): fc.Arbitrary<Valid> {
  const opt = <T>(arb: fc.Arbitrary<T>, omittable: boolean) => (omittable ? fc.option(arb, { nil: undefined, freq: 3 }) : arb);
  const maxRefs = Math.min(model.maxReferenceImages, LIMITS.maxReferences);
  return fc
    .record({
      prompt: text(40),
      sendModel: model.id === catalog.defaultModelId ? fc.boolean() : fc.constant(true),
      aspectRatio: opt(fc.constantFrom(...model.aspectRatios), true),
      resolution: opt(fc.constantFrom(...model.resolutions), model.defaultResolution !== null),
      quality: opt(fc.constantFrom(...model.qualities), model.qualities.includes(DEFAULTS.quality)),
      background: opt(fc.constantFrom(...model.backgrounds), model.backgrounds.includes(DEFAULTS.background)),
      imageCount: opt(fc.integer({ min: 1, max: model.maxImageCount }), true),
      refs: maxRefs > 0 ? fc.option(distinctIds(1, maxRefs).chain(withCopies), { nil: undefined }) : fc.constant(undefined),
      idempotencyKey: opt(text(24), true),
    })
    .chain((p) => {
      const fields: Record<string, unknown> = { prompt: p.prompt };
      if (p.sendModel) fields.modelId = model.id;
      if (p.refs) Object.assign(fields, { generationType: "image-to-image", inputAssetIds: p.refs });
      for (const key of ["aspectRatio", "resolution", "quality", "background", "imageCount", "idempotencyKey"] as const) {
        if (p[key] !== undefined) fields[key] = p[key];
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

function validAny(options: TestingOptions | undefined, usable?: (m: ModelSpec) => boolean): fc.Arbitrary<Valid> {
  const catalog = options?.catalog ?? builtIn;
  const models = modelsOf(options, usable);
  if (models.length === 0) throw new RangeError("No model of the catalog fits.");
  return fc.constantFrom(...models).chain((m) => validFor(m, catalog));
}

/**
 * Request bodies that `normalizeRequest` and then `validateForModel` accept: built from the catalog's
 * own limits and defaults, with whitespace around strings, Unicode prompts and repeated references
 * now and then (all of which the rules allow).
 *
 * @param options - The catalog (default: the built-in one) and, optionally, one model id.
 * @returns An arbitrary of JSON-ready request bodies.
 * @example
 * ```ts
 * fc.assert(fc.property(generationRequestBody(), (body) => myHandler(body).status === 202));
 * ```
 */
export function generationRequestBody(options?: TestingOptions): fc.Arbitrary<Record<string, unknown>> {
  return validAny(options).map((v) => v.body);
}

/**
 * Normalized generation requests (what `normalizeRequest` returns for {@link generationRequestBody}),
 * ready for `validateForModel`, `computeCharge` or your own code.
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
export function generationRequest(options?: TestingOptions): fc.Arbitrary<GenerationRequest> {
  const catalog = options?.catalog ?? builtIn;
  return generationRequestBody(options).map((body) => {
    const r = normalizeRequest(body, { catalog });
    if (!r.success) throw new Error(`generationRequest made an invalid body: ${JSON.stringify(r.issues)}`);
    return r.output;
  });
}

// ---------------------------------------------------------------------------------------------
// Breaking one rule

type Break = {
  set?: Record<string, unknown>;
  drop?: readonly string[];
  replace?: { value: unknown };
  path: string;
  codes: string[];
};
type Breaker = { usable: (m: ModelSpec) => boolean; arb: (v: Valid, catalog: Catalog) => fc.Arbitrary<Break> };

const always = () => true;

/** Strings that, trimmed, are not in `allowed`. */
const notIn = (allowed: readonly string[], examples: readonly string[]) =>
  fc
    .oneof(fc.constantFrom(...examples), fc.string({ maxLength: 10 }), text(10))
    .filter((s) => !allowed.includes(s.trim()))
    .chain(pad);

const notA = (type: "string" | "number" | "array") =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.constant({}),
    ...(type === "string" ? [] : [fc.string({ maxLength: 5 })]),
    ...(type === "number" ? [] : [fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })]),
    ...(type === "array" ? [] : [fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 })]),
  );

const option = (field: string, allowed: readonly string[], examples: readonly string[]): Breaker => ({
  usable: always,
  arb: () => notIn(allowed, examples).map((v) => ({ set: { [field]: v }, path: field, codes: ["invalid_option"] })),
});

const unsupported = (
  field: "aspectRatio" | "resolution" | "quality" | "background",
  all: readonly string[],
  accepted: (m: ModelSpec) => readonly string[],
  code: string,
): Breaker => ({
  usable: (m) => all.some((v) => !accepted(m).includes(v as never)),
  arb: (v) =>
    fc
      .constantFrom(...all.filter((x) => !accepted(v.model).includes(x as never)))
      .chain(pad)
      .map((x) => ({ set: { [field]: x }, path: field, codes: [code] })),
});

const STRING_FIELDS = REQUEST_FIELDS.filter((f) => f !== "imageCount" && f !== "inputAssetIds");

const BREAKERS: Record<BreakableRule, Breaker> = {
  N1: {
    usable: always,
    arb: () =>
      fc
        .oneof(
          fc.constant(null),
          fc.boolean(),
          fc.integer(),
          fc.string({ maxLength: 8 }),
          fc.array(fc.integer(), { maxLength: 2 }),
        )
        .map((value) => ({ replace: { value }, path: "", codes: ["invalid_type"] })),
  },
  N2: {
    usable: always,
    arb: () =>
      fc
        .tuple(
          fc
            .oneof(
              fc.constantFrom("cost", "credits", "totalCreditCost", "price", "__proto__"),
              fc.string({ minLength: 1, maxLength: 8 }),
            )
            .filter((k) => !(REQUEST_FIELDS as readonly string[]).includes(k)),
          fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)),
        )
        .map(([key, value]) => ({ set: { [key]: value }, path: key, codes: ["unknown_field"] })),
  },
  N3: {
    usable: always,
    arb: (v, catalog) => {
      const modelIds = Object.keys(catalog.models);
      const variants = [v.model.id.toUpperCase(), `${v.model.id.charAt(0).toUpperCase()}${v.model.id.slice(1)}`].filter(
        (x) => !modelIds.includes(x),
      );
      const choices: Break[] = [
        { set: { resolution: "1k" }, path: "resolution", codes: ["invalid_option"] },
        { set: { quality: "LOW" }, path: "quality", codes: ["invalid_option"] },
        { set: { background: "Auto" }, path: "background", codes: ["invalid_option"] },
        { set: { generationType: "Text-To-Image" }, path: "generationType", codes: ["invalid_option"] },
        { set: { aspectRatio: "auto" }, path: "aspectRatio", codes: ["invalid_option"] },
        ...variants.map((x): Break => ({ set: { modelId: x }, path: "modelId", codes: ["unknown_model"] })),
      ];
      return fc.constantFrom(...choices);
    },
  },
  N4: {
    usable: always,
    arb: () =>
      fc.oneof(
        fc.constant<Break>({ drop: ["prompt"], path: "prompt", codes: ["required"] }),
        blank.map((x): Break => ({ set: { prompt: x }, path: "prompt", codes: ["too_short"] })),
        fc
          .integer({ min: LIMITS.promptMaxChars + 1, max: LIMITS.promptMaxChars + 3 })
          .chain(textOfLength)
          .map((x): Break => ({ set: { prompt: x }, path: "prompt", codes: ["too_long"] })),
      ),
  },
  N5: {
    usable: always,
    arb: (_, catalog) =>
      notIn(Object.keys(catalog.models), ["delta", "gpt-image-1", "toString", "__proto__"]).map((x) => ({
        set: { modelId: x },
        path: "modelId",
        codes: ["unknown_model"],
      })),
  },
  N6: option("generationType", GENERATION_TYPES, ["edit", "img2img", "text2image"]),
  N7: option("aspectRatio", ASPECT_RATIOS, ["7:5", "1024x1024", "16:10", "auto"]),
  N8: option("resolution", RESOLUTIONS, ["8K", "1k", "2048", "HD"]),
  N9: option("quality", QUALITIES, ["auto", "xhigh", "max", "ultra"]),
  N10: option("background", BACKGROUNDS, ["white", "none", "Auto"]),
  N11: {
    usable: always,
    arb: () =>
      fc
        .oneof(
          fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n)),
          fc.integer({ min: -100, max: 0 }),
          fc.integer({ min: 1, max: 4 }).map(String),
        )
        .map((x) => ({ set: { imageCount: x }, path: "imageCount", codes: ["not_integer", "too_small", "invalid_type"] })),
  },
  N12: {
    usable: always,
    arb: () =>
      fc.oneof(
        fc.constant<Break>({
          set: { generationType: "image-to-image", inputAssetIds: [] },
          path: "inputAssetIds",
          codes: ["references_required"],
        }),
        distinctIds(1, 3).map(
          (ids): Break => ({
            set: { generationType: "text-to-image", inputAssetIds: ids },
            path: "inputAssetIds",
            codes: ["references_not_allowed"],
          }),
        ),
        fc.tuple(blank, fc.stringMatching(/^asset_[a-z]{1,4}$/)).map(
          ([empty, id]): Break => ({
            set: { generationType: "image-to-image", inputAssetIds: [id, empty] },
            path: "inputAssetIds[1]",
            codes: ["too_short"],
          }),
        ),
        distinctIds(LIMITS.maxReferences + 1, LIMITS.maxReferences + 5).map(
          (ids): Break => ({
            set: { generationType: "image-to-image", inputAssetIds: ids },
            path: "inputAssetIds",
            codes: ["too_many_references"],
          }),
        ),
      ),
  },
  N13: {
    usable: always,
    arb: () =>
      fc.oneof(
        blank.map((x): Break => ({ set: { idempotencyKey: x }, path: "idempotencyKey", codes: ["too_short"] })),
        fc
          .integer({ min: LIMITS.idempotencyKeyMaxChars + 1, max: LIMITS.idempotencyKeyMaxChars + 20 })
          .chain(textOfLength)
          .map((x): Break => ({ set: { idempotencyKey: x }, path: "idempotencyKey", codes: ["too_long"] })),
      ),
  },
  N14: {
    usable: always,
    arb: () =>
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...STRING_FIELDS), notA("string"))
          .map(([field, x]): Break => ({ set: { [field]: x }, path: field, codes: ["invalid_type"] })),
        notA("number").map((x): Break => ({ set: { imageCount: x }, path: "imageCount", codes: ["invalid_type"] })),
        notA("array").map((x): Break => ({ set: { inputAssetIds: x }, path: "inputAssetIds", codes: ["invalid_type"] })),
      ),
  },
  V1: unsupported("aspectRatio", ASPECT_RATIOS, (m) => m.aspectRatios, "unsupported_aspect_ratio"),
  V2: {
    usable: (m) => m.defaultResolution === null || m.resolutions.length < RESOLUTIONS.length,
    arb: (v) => {
      const others = RESOLUTIONS.filter((r) => !v.model.resolutions.includes(r));
      const choices: fc.Arbitrary<Break>[] = others.map((r) =>
        pad(r).map((x): Break => ({ set: { resolution: x }, path: "resolution", codes: ["unsupported_resolution"] })),
      );
      if (v.model.defaultResolution === null)
        choices.push(fc.constant({ drop: ["resolution"], path: "resolution", codes: ["resolution_required"] }));
      return fc.oneof(...choices);
    },
  },
  V3: unsupported("quality", QUALITIES, (m) => m.qualities, "unsupported_quality"),
  V4: unsupported("background", BACKGROUNDS, (m) => m.backgrounds, "unsupported_background"),
  V5: {
    usable: always,
    arb: (v) =>
      fc
        .integer({ min: v.model.maxImageCount + 1, max: v.model.maxImageCount + 100 })
        .map((x) => ({ set: { imageCount: x }, path: "imageCount", codes: ["too_many_images"] })),
  },
  V6: {
    usable: (m) => m.maxReferenceImages < LIMITS.maxReferences,
    arb: (v) =>
      distinctIds(v.model.maxReferenceImages + 1, LIMITS.maxReferences).map((ids) => ({
        set: { generationType: "image-to-image", inputAssetIds: ids },
        path: "inputAssetIds",
        codes: ["too_many_references"],
      })),
  },
};

function applyBreak(body: Record<string, unknown>, b: Break): unknown {
  if (b.replace) return b.replace.value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!b.drop?.includes(k)) setOwn(out, k, v);
  for (const [k, v] of Object.entries(b.set ?? {})) setOwn(out, k, v);
  return out;
}

/**
 * Request bodies that break exactly one rule of RULES.md: a valid body of some model with one
 * change, and the `path` and `codes` of the issues the package reports for it (every issue is at
 * that path, with one of those codes). For a V rule, only models on which the rule can be broken are
 * used (V6 needs a model with fewer than 14 references, for example).
 *
 * @param rule - The rule to break, one of {@link BREAKABLE_RULES}.
 * @param options - The catalog (default: the built-in one) and, optionally, one model id.
 * @returns An arbitrary of {@link NearlyValidRequest}s.
 * @throws RangeError when no model of the catalog (or the named model) can break the rule.
 * @example
 * ```ts
 * await fc.assert(
 *   fc.asyncProperty(nearlyValidRequestBody("V5"), async ({ body, path }) => {
 *     const res = await fetch(`${baseUrl}/api/generations`, { method: "POST", headers, body: JSON.stringify(body) });
 *     return res.status === 400 && (await res.json()).error.param === path;
 *   }),
 * );
 * ```
 */
export function nearlyValidRequestBody(rule: BreakableRule, options?: TestingOptions): fc.Arbitrary<NearlyValidRequest> {
  const breaker = BREAKERS[rule];
  if (!breaker) throw new RangeError(`Unknown rule ${JSON.stringify(rule)}; use one of ${BREAKABLE_RULES.join(", ")}.`);
  const catalog = options?.catalog ?? builtIn;
  if (modelsOf(options, breaker.usable).length === 0) {
    throw new RangeError(`No model of the catalog${options?.modelId ? ` (${options.modelId})` : ""} can break ${rule}.`);
  }
  return validAny(options, breaker.usable).chain((v) =>
    breaker
      .arb(v, catalog)
      .map((b) => ({ rule, modelId: v.model.id, body: applyBreak(v.body, b), path: b.path, codes: b.codes })),
  );
}

// ---------------------------------------------------------------------------------------------
// Quotes and multipliers

/**
 * Quote specs for `quote`. With `priceable: true`, only specs the catalog prices (an accepted
 * resolution and quality, a reference count within the model's limit); with `priceable: false`,
 * only specs it cannot price (`credits: null`); by default, both.
 *
 * @param options - The catalog, optionally one model id, and `priceable`.
 * @returns An arbitrary of {@link QuoteSpec}s.
 * @example
 * ```ts
 * fc.assert(
 *   fc.property(quoteSpec({ priceable: true }), priceMultiplier(), (spec, multiplier) => {
 *     const credits = quote(spec, { multiplier }).credits;
 *     return credits !== null && Number.isSafeInteger(credits);
 *   }),
 * );
 * ```
 */
export function quoteSpec(options?: TestingOptions & { priceable?: boolean }): fc.Arbitrary<QuoteSpec> {
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
        referenceImageCount: fc.option(fc.integer({ min: 0, max: m.maxReferenceImages }), { nil: undefined }),
      })
      .map((r) => {
        const spec: QuoteSpec = { kind: "image", modelId: m.id };
        if (r.resolution !== undefined) spec.resolution = r.resolution;
        if (r.quality !== undefined) spec.quality = r.quality;
        if (r.referenceImageCount !== undefined) spec.referenceImageCount = r.referenceImageCount;
        return spec;
      }),
  );
  const unpriceable = fc.constantFrom(...models).chain((m) => {
    const base = { kind: "image" as const, modelId: m.id, resolution: (m.defaultResolution ?? m.resolutions[0]) as string };
    const choices: fc.Arbitrary<QuoteSpec>[] = [
      notIn(Object.keys((options?.catalog ?? builtIn).models), ["delta", "toString"]).map((modelId) => ({ ...base, modelId })),
      notIn(RESOLUTIONS, ["8K", "1k"]).map((resolution) => ({ ...base, resolution })),
      notIn(QUALITIES, ["auto", "xhigh", "max"]).map((quality) => ({ ...base, quality })),
      fc
        .oneof(fc.integer({ min: -5, max: -1 }), fc.integer({ min: LIMITS.maxReferences + 1, max: 50 }), fc.constant(1.5))
        .map((referenceImageCount) => ({ ...base, referenceImageCount })),
    ];
    const otherResolutions = RESOLUTIONS.filter((r) => !m.resolutions.includes(r));
    if (otherResolutions.length > 0)
      choices.push(fc.constantFrom(...otherResolutions).map((resolution) => ({ ...base, resolution })));
    const otherQualities = QUALITIES.filter((q) => !m.qualities.includes(q));
    if (otherQualities.length > 0) choices.push(fc.constantFrom(...otherQualities).map((quality) => ({ ...base, quality })));
    if (m.maxReferenceImages < LIMITS.maxReferences) {
      choices.push(
        fc
          .integer({ min: m.maxReferenceImages + 1, max: LIMITS.maxReferences })
          .map((referenceImageCount) => ({ ...base, referenceImageCount })),
      );
    }
    if (m.defaultResolution === null) {
      const { resolution: _, ...withoutResolution } = base;
      choices.push(fc.constant(withoutResolution as QuoteSpec));
    }
    return fc.oneof(...choices);
  });
  if (options?.priceable === true) return priceable;
  if (options?.priceable === false) return unpriceable;
  return fc.oneof({ weight: 3, arbitrary: priceable }, { weight: 1, arbitrary: unpriceable });
}

/**
 * Valid account multipliers (RULES.md P4): plain decimal strings from 0 to 1000 with any number of
 * places (sometimes padded with whitespace), and finite numbers in that range.
 *
 * @returns An arbitrary of multipliers for `AccountPricing.multiplier`.
 * @example
 * ```ts
 * fc.assert(fc.property(generationRequest(), priceMultiplier(), (request, multiplier) =>
 *   computeCharge(request, { account: { multiplier } }).totalCreditCost >= 0));
 * ```
 */
export function priceMultiplier(): fc.Arbitrary<string | number> {
  const digits = fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 12 });
  const asString = fc
    .oneof(
      fc.tuple(fc.integer({ min: 0, max: 999 }), digits).map(([w, f]) => (f ? `${w}.${f}` : String(w))),
      fc.constantFrom("1", "1.15", "2.3", "0.5", "1000"),
    )
    .chain(pad);
  const asNumber = fc.oneof(
    fc.double({ min: 0, max: 1000, noNaN: true }),
    fc.integer({ min: 0, max: 100_000 }).map((n) => n / 100),
  );
  return fc.oneof(asString, asNumber);
}
