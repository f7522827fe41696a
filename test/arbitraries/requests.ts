/**
 * Generation requests built from the independent oracle (test/oracle/seed.ts), never from src/models:
 * valid requests of each model with the output the rules say they normalize to, and nearly valid
 * requests that break exactly one rule, with the path and codes of the issue that rule reports.
 */
import fc from "fast-check";
import { safeEcho } from "../../src/echo.js";
import type { BreakableRule } from "../../src/testing/nearlyValidRequests.js";
import {
  ALL_RATIOS,
  isQualityModel,
  ORACLE_BACKGROUNDS,
  ORACLE_DEFAULT_MODEL,
  ORACLE_DEFAULT_RATIO,
  ORACLE_FIELDS,
  ORACLE_GENERATION_TYPES,
  ORACLE_KEY_MAX,
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PROMPT_MAX,
  ORACLE_PUBLIC_MAX_REFS,
  ORACLE_QUALITIES,
  ORACLE_RATIOS,
  ORACLE_RESOLUTIONS,
  type OracleModel,
  oracleBackgrounds,
  oracleDefaultResolution,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { blank, caseVariants, padded, textOfLength, trimmedText, whitespace } from "./text.js";
import { jsonValue, notAnObject } from "./values.js";

/** What a valid request normalizes to, by the rules (N3-N13). */
export type Expected = {
  prompt: string;
  modelId: OracleModel;
  generationType: string;
  aspectRatio: string;
  resolution: string;
  quality: string;
  background: string;
  imageCount: number;
  inputAssetIds: string[];
  idempotencyKey?: string;
};

/** A valid request body (strings padded, references maybe duplicated) and its expected output. */
export type ValidCase = { model: OracleModel; body: Record<string, unknown>; expected: Expected };

/** An asset id with no surrounding whitespace. */
export const assetId: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^asset_[a-z0-9]{1,8}$/) },
  { weight: 1, arbitrary: trimmedText(10) },
);

/** `n` distinct asset ids. */
export const distinctIds = (min: number, max: number): fc.Arbitrary<string[]> =>
  fc.uniqueArray(assetId, { minLength: min, maxLength: max });

/**
 * Inserts, for each `[which, where]`, a copy of `ids[which]` somewhere after its first occurrence;
 * de-duplicating (first occurrence kept) gives `ids` back.
 */
export function withDuplicates(
  ids: readonly string[],
  copies: readonly (readonly [number, number])[],
): string[] {
  const out = [...ids];
  if (ids.length === 0) {
    return out;
  }
  for (const [which, where] of copies) {
    const id = ids[which % ids.length] as string;
    const first = out.indexOf(id);
    out.splice(first + 1 + (where % (out.length - first)), 0, id);
  }
  return out;
}

const copiesArb = fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 });

/** An idempotency key of 1 to 128 code points, boundaries included. */
const idempotencyKey: fc.Arbitrary<string> = fc.oneof(
  trimmedText(20),
  fc.integer({ min: ORACLE_KEY_MAX - 2, max: ORACLE_KEY_MAX }).chain(textOfLength),
);

/** A prompt of 1 to 12000 code points, boundaries included. */
const prompt: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: trimmedText(30) },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: ORACLE_PROMPT_MAX - 2, max: ORACLE_PROMPT_MAX })
      .chain(textOfLength),
  },
);

/** Sets an own property, even `__proto__` (plain assignment would set the prototype instead). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** The eight fields whose value is a string (N3). */
export const STRING_FIELDS = [
  "prompt",
  "modelId",
  "generationType",
  "aspectRatio",
  "resolution",
  "quality",
  "background",
  "idempotencyKey",
];

/** Pads every string field of a body (the eight string fields and each asset id) with whitespace; other fields stay. */
export function padAll(body: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .array(fc.tuple(whitespace, whitespace), { minLength: 32, maxLength: 32 })
    .map((pads) => {
      let i = 0;
      const pad = (s: string) => {
        const [a, b] = pads[i++ % pads.length] ?? ["", ""];
        return `${a}${s}${b}`;
      };
      const out: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(body)) {
        const padIt = typeof value === "string" && STRING_FIELDS.includes(key);
        const padIds = key === "inputAssetIds" && Array.isArray(value);
        setOwn(
          out,
          key,
          padIt
            ? pad(value)
            : padIds
              ? value.map((v: unknown) => (typeof v === "string" ? pad(v) : v))
              : value,
        );
      }
      return out;
    });
}

/** Valid requests of one model (or of any model), built from the oracle. */
export function validCase(model?: OracleModel): fc.Arbitrary<ValidCase> {
  if (model === undefined) {
    return fc.constantFrom(...ORACLE_MODEL_IDS).chain((m) => validCase(m));
  }
  const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });
  return fc
    .record({
      prompt,
      sendModel: model === ORACLE_DEFAULT_MODEL ? fc.boolean() : fc.constant(true),
      aspectRatio: opt(fc.constantFrom(...ORACLE_RATIOS[model])),
      resolution:
        oracleDefaultResolution(model) === undefined
          ? fc.constantFrom(...oracleResolutions(model))
          : opt(fc.constantFrom(...oracleResolutions(model))),
      quality: opt(fc.constantFrom(...oracleQualities(model))),
      background: opt(fc.constantFrom(...oracleBackgrounds(model))),
      imageCount: opt(fc.integer({ min: 1, max: ORACLE_MAX_IMAGES[model] })),
      refs: fc.option(distinctIds(1, ORACLE_MAX_REFS[model]), { nil: undefined }),
      copies: copiesArb,
      sendType: fc.boolean(),
      sendEmptyIds: fc.boolean(),
      idempotencyKey: opt(idempotencyKey),
      padded: fc.boolean(),
    })
    .chain((p) => {
      const body: Record<string, unknown> = { prompt: p.prompt };
      if (p.sendModel) {
        body.modelId = model;
      }
      if (p.refs) {
        body.generationType = "image-to-image";
        body.inputAssetIds = withDuplicates(p.refs, p.copies);
      } else {
        if (p.sendType) {
          body.generationType = "text-to-image";
        }
        if (p.sendEmptyIds) {
          body.inputAssetIds = [];
        }
      }
      if (p.aspectRatio !== undefined) {
        body.aspectRatio = p.aspectRatio;
      }
      if (p.resolution !== undefined) {
        body.resolution = p.resolution;
      }
      if (p.quality !== undefined) {
        body.quality = p.quality;
      }
      if (p.background !== undefined) {
        body.background = p.background;
      }
      if (p.imageCount !== undefined) {
        body.imageCount = p.imageCount;
      }
      if (p.idempotencyKey !== undefined) {
        body.idempotencyKey = p.idempotencyKey;
      }
      const expected: Expected = {
        prompt: p.prompt,
        modelId: model,
        generationType: p.refs ? "image-to-image" : "text-to-image",
        aspectRatio: p.aspectRatio ?? ORACLE_DEFAULT_RATIO,
        resolution: p.resolution ?? (oracleDefaultResolution(model) as string),
        quality: p.quality ?? "low",
        background: p.background ?? "auto",
        imageCount: p.imageCount ?? 1,
        inputAssetIds: p.refs ?? [],
      };
      if (p.idempotencyKey !== undefined) {
        expected.idempotencyKey = p.idempotencyKey;
      }
      const bodyArb = p.padded ? padAll(body) : fc.constant(body);
      return bodyArb.map((b) => ({ model, body: b, expected }));
    });
}

// ---------------------------------------------------------------------------------------------
// Breaking exactly one rule

/** How to break a valid body: set or drop fields (or replace the whole body), and what the verdict names. */
export type Break = {
  set?: Record<string, unknown>;
  drop?: readonly string[];
  replace?: { value: unknown };
  path: string;
  codes: readonly string[];
};

/** A request that breaks exactly `rule`, and the issue it must get. */
export type NearlyValid = {
  rule: BreakableRule;
  model: OracleModel;
  body: unknown;
  path: string;
  codes: readonly string[];
};

export function applyBreak(body: Record<string, unknown>, b: Break): unknown {
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
 * A body with several breaks applied at once: every field each one sets (own fields, so a
 * "__proto__" key stays a field) and every field each one drops.
 */
export function applyBreaks(body: Record<string, unknown>, breaks: readonly Break[]): unknown {
  const set: Record<string, unknown> = {};
  const drop: string[] = [];
  for (const b of breaks) {
    // defineProperty, not Object.assign: a "__proto__" key must stay an own field
    for (const [k, v] of Object.entries(b.set ?? {})) {
      Object.defineProperty(set, k, { value: v, enumerable: true });
    }
    drop.push(...(b.drop ?? []));
  }
  return applyBreak(body, { set, drop, path: "", codes: [] });
}

/** Strings that are not in `allowed` after trimming (and so are not accepted as that field). */
const notIn = (allowed: readonly string[], known: readonly string[]) =>
  fc
    .oneof(
      { weight: 1, arbitrary: fc.constantFrom(...known) },
      { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 1, arbitrary: trimmedText(12) },
    )
    .filter((s) => !allowed.includes(s.trim()))
    .chain(padded);

/** A value whose JSON type is not `type`. */
const wrongType = (type: "string" | "number" | "array") =>
  fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.dictionary(fc.string({ maxLength: 4 }), jsonValue, { maxKeys: 2 }),
    ...(type === "string" ? [] : [fc.string({ maxLength: 6 })]),
    ...(type === "number"
      ? []
      : [fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer()]),
    ...(type === "array" ? [] : [fc.array(jsonValue, { maxLength: 3 })]),
  );

const t2i = (ids: string[]): Record<string, unknown> => ({
  generationType: "text-to-image",
  inputAssetIds: ids,
});

/** One generator per rule id: given a valid case, the ways to break only that rule. */
export const BREAKERS: Record<
  BreakableRule,
  { applies: (m: OracleModel) => boolean; arb: (c: ValidCase) => fc.Arbitrary<Break> }
> = {
  N1: {
    applies: () => true,
    arb: () =>
      notAnObject.map((value) => ({ replace: { value }, path: "", codes: ["invalid_type"] })),
  },
  N2: {
    applies: () => true,
    arb: () =>
      fc
        .tuple(
          fc
            .oneof(
              fc.constantFrom(
                "cost",
                "credits",
                "totalCreditCost",
                "perOutputCredits",
                "price",
                "__proto__",
                "constructor",
              ),
              fc.constantFrom(
                "Prompt",
                "model",
                "prompt ",
                " modelId",
                "image_count",
                "toString",
                "hasOwnProperty",
              ),
              fc.string({ minLength: 1, maxLength: 10 }),
            )
            .filter((k) => !ORACLE_FIELDS.includes(k)),
          jsonValue,
        )
        .map(([key, value]) => ({
          set: { [key]: value },
          path: safeEcho(key),
          codes: ["unknown_field"],
        })),
  },
  N3: {
    applies: () => true,
    arb: (c) => {
      const lists: Record<string, readonly string[]> = {
        modelId: ORACLE_MODEL_IDS,
        generationType: ORACLE_GENERATION_TYPES,
        aspectRatio: ALL_RATIOS,
        resolution: ORACLE_RESOLUTIONS,
        quality: ORACLE_QUALITIES,
        background: ORACLE_BACKGROUNDS,
      };
      const options = Object.entries(lists).flatMap(([field, allowed]) =>
        caseVariants(String(c.expected[field as keyof Expected]))
          .filter((v) => !allowed.includes(v))
          .map((v) => [field, v] as const),
      );
      return fc.constantFrom(...options).chain(([field, v]) =>
        padded(v).map((value) => ({
          set: { [field]: value },
          path: field,
          codes: [field === "modelId" ? "unknown_model" : "invalid_option"],
        })),
      );
    },
  },
  N4: {
    applies: () => true,
    arb: () =>
      fc.oneof(
        fc.constant<Break>({ drop: ["prompt"], path: "prompt", codes: ["required"] }),
        blank.map((v): Break => ({ set: { prompt: v }, path: "prompt", codes: ["too_short"] })),
        fc
          .integer({ min: ORACLE_PROMPT_MAX + 1, max: ORACLE_PROMPT_MAX + 3 })
          .chain(textOfLength)
          .chain(padded)
          .map((v): Break => ({ set: { prompt: v }, path: "prompt", codes: ["too_long"] })),
      ),
  },
  N5: {
    applies: () => true,
    arb: () =>
      notIn(ORACLE_MODEL_IDS, [
        "delta",
        "gpt-image-1",
        "__proto__",
        "toString",
        "beta3",
        "alpha-img2 ",
        "gamma-image-1",
      ]).map((v) => ({ set: { modelId: v }, path: "modelId", codes: ["unknown_model"] })),
  },
  N6: {
    applies: () => true,
    arb: () =>
      notIn(ORACLE_GENERATION_TYPES, ["edit", "image_to_image", "text2image", "img2img"]).map(
        (v) => ({
          set: { generationType: v },
          path: "generationType",
          codes: ["invalid_option"],
        }),
      ),
  },
  N7: {
    applies: () => true,
    arb: () =>
      notIn(ALL_RATIOS, ["7:5", "1024x1024", "16:10", "1:1.5", "0:0", "auto", "AUTO"]).map((v) => ({
        set: { aspectRatio: v },
        path: "aspectRatio",
        codes: ["invalid_option"],
      })),
  },
  N8: {
    applies: () => true,
    arb: () =>
      notIn(ORACLE_RESOLUTIONS, ["8K", "1k", "2k", "4k", "2048", "HD", "1 K"]).map((v) => ({
        set: { resolution: v },
        path: "resolution",
        codes: ["invalid_option"],
      })),
  },
  N9: {
    applies: () => true,
    arb: () =>
      notIn(ORACLE_QUALITIES, ["auto", "xhigh", "max", "ultra", "Low", "standard"]).map((v) => ({
        set: { quality: v },
        path: "quality",
        codes: ["invalid_option"],
      })),
  },
  N10: {
    applies: () => true,
    arb: () =>
      notIn(ORACLE_BACKGROUNDS, ["white", "Auto", "none", "transparant"]).map((v) => ({
        set: { background: v },
        path: "background",
        codes: ["invalid_option"],
      })),
  },
  N11: {
    applies: () => true,
    arb: () =>
      fc
        .oneof(
          fc.double({ noNaN: true, min: -1e6, max: 1e6 }).filter((n) => !Number.isInteger(n)),
          fc.integer({ min: -1000, max: 0 }),
          fc.constantFrom(-0, 0.5, 1.5, 2.0000001, Number.MAX_VALUE * -1),
          fc.integer({ min: 1, max: 4 }).map(String),
        )
        .map((v) => ({
          set: { imageCount: v },
          path: "imageCount",
          codes: ["not_integer", "too_small", "invalid_type"],
        })),
  },
  N12: {
    applies: () => true,
    arb: (c) =>
      fc.oneof(
        // image-to-image with no references
        fc.tuple(padded("image-to-image"), fc.boolean()).map(
          ([type, omit]): Break =>
            omit
              ? {
                  set: { generationType: type },
                  drop: ["inputAssetIds"],
                  path: "inputAssetIds",
                  codes: ["references_required"],
                }
              : {
                  set: { generationType: type, inputAssetIds: [] },
                  path: "inputAssetIds",
                  codes: ["references_required"],
                },
        ),
        // text-to-image with references (named or defaulted)
        fc.tuple(distinctIds(1, 14), fc.boolean()).map(
          ([ids, named]): Break =>
            named
              ? { set: t2i(ids), path: "inputAssetIds", codes: ["references_not_allowed"] }
              : {
                  set: { inputAssetIds: ids },
                  drop: ["generationType"],
                  path: "inputAssetIds",
                  codes: ["references_not_allowed"],
                },
        ),
        // an id that is empty after trimming
        fc
          .tuple(distinctIds(0, Math.min(13, ORACLE_MAX_REFS[c.model])), blank, fc.nat())
          .map(([ids, empty, where]): Break => {
            const at = where % (ids.length + 1);
            const list = [...ids.slice(0, at), empty, ...ids.slice(at)];
            return {
              set: { generationType: "image-to-image", inputAssetIds: list },
              path: `inputAssetIds[${at}]`,
              codes: ["too_short"],
            };
          }),
        // more than 14 distinct ids
        fc.tuple(distinctIds(ORACLE_PUBLIC_MAX_REFS + 1, 20), copiesArb).map(
          ([ids, copies]): Break => ({
            set: { generationType: "image-to-image", inputAssetIds: withDuplicates(ids, copies) },
            path: "inputAssetIds",
            codes: ["too_many_references"],
          }),
        ),
      ),
  },
  N13: {
    applies: () => true,
    arb: () =>
      fc.oneof(
        blank.map(
          (v): Break => ({
            set: { idempotencyKey: v },
            path: "idempotencyKey",
            codes: ["too_short"],
          }),
        ),
        fc
          .integer({ min: ORACLE_KEY_MAX + 1, max: ORACLE_KEY_MAX + 40 })
          .chain(textOfLength)
          .chain(padded)
          .map(
            (v): Break => ({
              set: { idempotencyKey: v },
              path: "idempotencyKey",
              codes: ["too_long"],
            }),
          ),
      ),
  },
  N14: {
    applies: () => true,
    arb: (c) =>
      fc.oneof(
        fc
          .tuple(fc.constantFrom(...STRING_FIELDS), wrongType("string"))
          .map(
            ([field, v]): Break => ({ set: { [field]: v }, path: field, codes: ["invalid_type"] }),
          ),
        wrongType("number").map(
          (v): Break => ({ set: { imageCount: v }, path: "imageCount", codes: ["invalid_type"] }),
        ),
        wrongType("array").map(
          (v): Break => ({
            set: { inputAssetIds: v },
            path: "inputAssetIds",
            codes: ["invalid_type"],
          }),
        ),
        fc
          .tuple(
            distinctIds(0, Math.min(13, ORACLE_MAX_REFS[c.model])),
            wrongType("string"),
            fc.nat(),
          )
          .map(([ids, v, where]): Break => {
            const at = where % (ids.length + 1);
            return {
              set: {
                generationType: "image-to-image",
                inputAssetIds: [...ids.slice(0, at), v, ...ids.slice(at)],
              },
              path: `inputAssetIds[${at}]`,
              codes: ["invalid_type"],
            };
          }),
      ),
  },
  V1: {
    applies: () => true,
    arb: (c) =>
      fc
        .constantFrom(...ALL_RATIOS.filter((r) => !ORACLE_RATIOS[c.model].includes(r)))
        .chain(padded)
        .map((v) => ({
          set: { aspectRatio: v },
          path: "aspectRatio",
          codes: ["unsupported_aspect_ratio"],
        })),
  },
  V2: {
    applies: (m) =>
      oracleResolutions(m).length < ORACLE_RESOLUTIONS.length ||
      oracleDefaultResolution(m) === undefined,
    arb: (c) => {
      const other = ORACLE_RESOLUTIONS.filter((r) => !oracleResolutions(c.model).includes(r));
      const omit: Break[] =
        oracleDefaultResolution(c.model) === undefined
          ? [{ drop: ["resolution"], path: "resolution", codes: ["resolution_required"] }]
          : [];
      const wrong = other.length
        ? [
            fc
              .constantFrom(...other)
              .chain(padded)
              .map(
                (v): Break => ({
                  set: { resolution: v },
                  path: "resolution",
                  codes: ["unsupported_resolution"],
                }),
              ),
          ]
        : [];
      return fc.oneof(...wrong, ...omit.map((b) => fc.constant(b)));
    },
  },
  V3: {
    applies: (m) => !isQualityModel(m),
    arb: (c) =>
      fc
        .constantFrom(...ORACLE_QUALITIES.filter((q) => !oracleQualities(c.model).includes(q)))
        .chain(padded)
        .map((v) => ({ set: { quality: v }, path: "quality", codes: ["unsupported_quality"] })),
  },
  V4: {
    applies: (m) => !isQualityModel(m),
    arb: (c) =>
      fc
        .constantFrom(...ORACLE_BACKGROUNDS.filter((q) => !oracleBackgrounds(c.model).includes(q)))
        .chain(padded)
        .map((v) => ({
          set: { background: v },
          path: "background",
          codes: ["unsupported_background"],
        })),
  },
  V5: {
    applies: () => true,
    arb: (c) =>
      fc
        .integer({ min: ORACLE_MAX_IMAGES[c.model] + 1, max: ORACLE_MAX_IMAGES[c.model] + 1000 })
        .map((v) => ({ set: { imageCount: v }, path: "imageCount", codes: ["too_many_images"] })),
  },
  V6: {
    applies: (m) => ORACLE_MAX_REFS[m] < ORACLE_PUBLIC_MAX_REFS,
    arb: (c) =>
      fc
        .tuple(distinctIds(ORACLE_MAX_REFS[c.model] + 1, ORACLE_PUBLIC_MAX_REFS), copiesArb)
        .map(([ids, copies]) => ({
          set: { generationType: "image-to-image", inputAssetIds: withDuplicates(ids, copies) },
          path: "inputAssetIds",
          codes: ["too_many_references"],
        })),
  },
};

/** The models on which `rule` can be broken. */
export const modelsBreaking = (rule: BreakableRule): OracleModel[] =>
  ORACLE_MODEL_IDS.filter((m) => BREAKERS[rule].applies(m));

/** Requests that break exactly `rule` (on any model where it can be broken). */
export function nearlyValid(rule: BreakableRule): fc.Arbitrary<NearlyValid> {
  return fc
    .constantFrom(...modelsBreaking(rule))
    .chain((m) => validCase(m))
    .chain((c) =>
      BREAKERS[rule].arb(c).map((b) => ({
        rule,
        model: c.model,
        body: applyBreak(c.body, b),
        path: b.path,
        codes: b.codes,
      })),
    );
}

/** Rules whose breaks touch one field each and never hide one another, so any set of them combines (N15). */
export const COMBINABLE = ["N2", "N4", "N5", "N7", "N8", "N9", "N10", "N11", "N13"] as const;
