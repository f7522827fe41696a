/**
 * Request bodies that break exactly one rule ({@link nearlyValidRequestBody}): for each rule id a
 * request can break on its own, the change that breaks it and the path and codes of the issues the
 * package reports for it.
 *
 * @module
 */

import type { Arbitrary } from "fast-check";
import { safeEcho } from "../echo.js";
import { catalog as builtIn } from "../models/catalog.js";
import {
  ASPECT_RATIOS,
  BACKGROUNDS,
  GENERATION_TYPES,
  LIMITS,
  QUALITIES,
  RESOLUTIONS,
} from "../models/lists.js";
import type { Catalog, ModelSpec } from "../models/modelSpec.js";
import { REQUEST_FIELDS } from "../request/schema.js";
import { fc } from "./fastCheck.js";
import { blank, distinctIds, notIn, pad, textOfLength } from "./strings.js";
import { modelsOf, type TestingOptions, type Valid, validAny } from "./validRequests.js";

/**
 * The rules a request body can break on its own (rule ids of docs/rules.md), for {@link
 * nearlyValidRequestBody}.
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

type Break = {
  set?: Record<string, unknown>;
  drop?: readonly string[];
  replace?: { value: unknown };
  path: string;
  codes: string[];
};
type Breaker = {
  usable: (m: ModelSpec) => boolean;
  arb: (v: Valid, catalog: Catalog) => Arbitrary<Break>;
};

const always = () => true;

const notA = (type: "string" | "number" | "array") =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.constant({}),
    ...(type === "string" ? [] : [fc.string({ maxLength: 5 })]),
    ...(type === "number"
      ? []
      : [fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })]),
    ...(type === "array" ? [] : [fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 })]),
  );

const option = (
  field: string,
  allowed: readonly string[],
  examples: readonly string[],
): Breaker => ({
  usable: always,
  arb: () =>
    notIn(allowed, examples).map((v) => ({
      set: { [field]: v },
      path: field,
      codes: ["invalid_option"],
    })),
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

/**
 * The two ways to break a trimmed text of 1 to `max` code points (N4, N13): blank after trimming
 * (`too_short`), or 1 to `over` code points too long (`too_long`).
 */
const badLengths = (field: string, max: number, over: number): Arbitrary<Break>[] => [
  blank.map((x): Break => ({ set: { [field]: x }, path: field, codes: ["too_short"] })),
  fc
    .integer({ min: max + 1, max: max + over })
    .chain(textOfLength)
    .map((x): Break => ({ set: { [field]: x }, path: field, codes: ["too_long"] })),
];

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
        // The issue names the field as it is echoed: printable ASCII, key-shaped runs hidden (S15).
        .map(([key, value]) => ({
          set: { [key]: value },
          path: safeEcho(key),
          codes: ["unknown_field"],
        })),
  },
  N3: {
    usable: always,
    arb: (v, catalog) => {
      const modelIds = Object.keys(catalog.models);
      const variants = [
        v.model.id.toUpperCase(),
        `${v.model.id.charAt(0).toUpperCase()}${v.model.id.slice(1)}`,
      ].filter((x) => !modelIds.includes(x));
      const choices: Break[] = [
        { set: { resolution: "1k" }, path: "resolution", codes: ["invalid_option"] },
        { set: { quality: "LOW" }, path: "quality", codes: ["invalid_option"] },
        { set: { background: "Auto" }, path: "background", codes: ["invalid_option"] },
        {
          set: { generationType: "Text-To-Image" },
          path: "generationType",
          codes: ["invalid_option"],
        },
        { set: { aspectRatio: "auto" }, path: "aspectRatio", codes: ["invalid_option"] },
        ...variants.map(
          (x): Break => ({ set: { modelId: x }, path: "modelId", codes: ["unknown_model"] }),
        ),
      ];
      return fc.constantFrom(...choices);
    },
  },
  N4: {
    usable: always,
    arb: () =>
      fc.oneof(
        fc.constant<Break>({ drop: ["prompt"], path: "prompt", codes: ["required"] }),
        ...badLengths("prompt", LIMITS.promptMaxChars, 3),
      ),
  },
  N5: {
    usable: always,
    arb: (_, catalog) =>
      notIn(Object.keys(catalog.models), ["delta", "gpt-image-1", "toString", "__proto__"]).map(
        (x) => ({
          set: { modelId: x },
          path: "modelId",
          codes: ["unknown_model"],
        }),
      ),
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
        .map((x) => ({
          set: { imageCount: x },
          path: "imageCount",
          codes: ["not_integer", "too_small", "invalid_type"],
        })),
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
    arb: () => fc.oneof(...badLengths("idempotencyKey", LIMITS.idempotencyKeyMaxChars, 20)),
  },
  N14: {
    usable: always,
    arb: () =>
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...STRING_FIELDS), notA("string"))
          .map(
            ([field, x]): Break => ({ set: { [field]: x }, path: field, codes: ["invalid_type"] }),
          ),
        notA("number").map(
          (x): Break => ({ set: { imageCount: x }, path: "imageCount", codes: ["invalid_type"] }),
        ),
        notA("array").map(
          (x): Break => ({
            set: { inputAssetIds: x },
            path: "inputAssetIds",
            codes: ["invalid_type"],
          }),
        ),
      ),
  },
  V1: unsupported("aspectRatio", ASPECT_RATIOS, (m) => m.aspectRatios, "unsupported_aspect_ratio"),
  V2: {
    usable: (m) => m.defaultResolution === null || m.resolutions.length < RESOLUTIONS.length,
    arb: (v) => {
      const others = RESOLUTIONS.filter((r) => !v.model.resolutions.includes(r));
      const choices: Arbitrary<Break>[] = others.map((r) =>
        pad(r).map(
          (x): Break => ({
            set: { resolution: x },
            path: "resolution",
            codes: ["unsupported_resolution"],
          }),
        ),
      );
      if (v.model.defaultResolution === null) {
        choices.push(
          fc.constant({ drop: ["resolution"], path: "resolution", codes: ["resolution_required"] }),
        );
      }
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

/**
 * Sets an own, enumerable property, even one named `__proto__` (N2 breaks a body with such a key).
 */
const setOwn = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });

/** The valid body with one break applied. */
function applyBreak(body: Record<string, unknown>, b: Break): unknown {
  if (b.replace) {
    return b.replace.value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (!b.drop?.includes(k)) {
      setOwn(out, k, v);
    }
  }
  for (const [k, v] of Object.entries(b.set ?? {})) {
    setOwn(out, k, v);
  }
  return out;
}

/**
 * Request bodies that break exactly one rule (docs/rules.md), each with the `path` and `codes` of
 * the issues the package reports for it.
 *
 * Each is a valid body of some model with one change; every issue is at that path, with one of
 * those codes. For a V rule, only models on which the rule can be broken are
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
 *     const res = await fetch(`${baseUrl}/api/generations`, { method: "POST", headers, body:
 * JSON.stringify(body) });
 *     return res.status === 400 && (await res.json()).error.param === path;
 *   }),
 * );
 * ```
 */
export function nearlyValidRequestBody(
  rule: BreakableRule,
  options?: TestingOptions,
): Arbitrary<NearlyValidRequest> {
  const breaker = BREAKERS[rule];
  if (!breaker) {
    throw new RangeError(
      `Unknown rule ${JSON.stringify(rule)}; use one of ${BREAKABLE_RULES.join(", ")}.`,
    );
  }
  const catalog = options?.catalog ?? builtIn;
  if (modelsOf(options, breaker.usable).length === 0) {
    throw new RangeError(
      `No model of the catalog${options?.modelId ? ` (${options.modelId})` : ""} can ` +
        `break ${rule}.`,
    );
  }
  return validAny(options, breaker.usable).chain((v) =>
    breaker.arb(v, catalog).map((b) => ({
      rule,
      modelId: v.model.id,
      body: applyBreak(v.body, b),
      path: b.path,
      codes: b.codes,
    })),
  );
}
