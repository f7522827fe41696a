/**
 * Examples that pin behaviour mutation testing found unpinned (npm run test:mutation): exact
 * messages, the odd corners of the length count, catalogs that skipped defineCatalog, hand-built
 * requests. Each names the rule it belongs to.
 */
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  CatalogSchema,
  catalog,
  computeCharge,
  defineCatalog,
  type GenerationRequest,
  InvalidRequestError,
  Multiplier,
  type ModelSpec,
  ModelSpecSchema,
  normalizeRequest,
  parseMultiplier,
  quote,
  validateForModel,
} from "../../src/index.js";
import { show } from "../../src/messages.js";
import { formatPath } from "../../src/request/issues.js";
import { charLength } from "../../src/request/schema.js";
import * as v from "valibot";
import { bigIntHalfUp } from "../oracle/seed.js";
import { issuesOf } from "./helpers.js";

const ok = (body: Record<string, unknown>): GenerationRequest => {
  const r = normalizeRequest({ prompt: "x", ...body });
  if (!r.success) throw new Error(JSON.stringify(r.issues));
  return r.output;
};
const issues = (body: unknown) => issuesOf(normalizeRequest(body));
const thrown = (f: () => unknown): InvalidRequestError => {
  try {
    f();
  } catch (error) {
    if (error instanceof InvalidRequestError) return error;
    throw error;
  }
  throw new Error("did not throw");
};

describe("N4/N13: length in code points, every corner of a surrogate pair", () => {
  it("N4: charLength counts a pair once and every lone surrogate once, like [...s]", () => {
    const cases = [
      "",
      "a",
      "😀",
      "a😀b",
      "\ud800",
      "\ud800a",
      "a\ud800",
      "\udc00",
      "\udc00\ud800",
      "\ud800\ud800",
      "\udc00\udc00",
      "A\udc00",
      "\ud800\udc00",
      "\ud800\udfff",
      "\udbff\udc00",
      "\udbff\udfff",
      "\ud7ff\udc00",
      "\ud800\ue000",
      "\ud800\udbff",
      "\ue000\udc00",
    ];
    for (const s of cases) expect(charLength(s), JSON.stringify(s)).toBe([...s].length);
  });

  it("N4: a long prompt of lone low surrogates is counted one per unit (12000 ok, 12001 too long)", () => {
    expect(normalizeRequest({ prompt: "\udc00".repeat(12000) }).success).toBe(true);
    expect(issues({ prompt: "\udc00".repeat(12001) })).toMatchObject([{ path: "prompt", code: "too_long" }]);
    expect(issues({ prompt: "A\udc00".repeat(6001) })).toMatchObject([{ path: "prompt", code: "too_long" }]);
    expect(normalizeRequest({ prompt: "\ud800\udc00".repeat(12000) }).success).toBe(true);
  });
});

describe("N15: messages name the field, the received value and the allowed values", () => {
  it("N15: show() quotes strings up to 40 code points whole, cuts longer ones, and names other types", () => {
    expect(show("a".repeat(40))).toBe(JSON.stringify("a".repeat(40)));
    expect(show("a".repeat(41))).toBe(JSON.stringify(`${"a".repeat(40)}...`));
    expect(show("😀".repeat(41))).toBe(JSON.stringify(`${"😀".repeat(40)}...`));
    expect(show(null)).toBe("null");
    expect(show([1])).toBe("an array");
    expect(show(1.5)).toBe("1.5");
    expect(show({})).toBe("an object");
    expect(show(true)).toBe("boolean");
    expect(show(undefined)).toBe("undefined");
  });

  it("N14: a wrong type says what the field must be and what it got", () => {
    const at = (body: Record<string, unknown>, path: string) => issues({ prompt: "x", ...body }).find((i) => i.path === path);
    expect(at({ modelId: 5 }, "modelId")?.message).toBe("modelId must be a string; received 5.");
    expect(at({ prompt: null }, "prompt")?.message).toBe("prompt must be a string; received null.");
    expect(at({ imageCount: "2" }, "imageCount")?.message).toBe('imageCount must be a number; received "2".');
    expect(at({ generationType: "image-to-image", inputAssetIds: ["a", 7] }, "inputAssetIds[1]")?.message).toBe(
      "each inputAssetIds entry must be a string; received 7.",
    );
    expect(at({ inputAssetIds: {} }, "inputAssetIds")?.message).toBe(
      "inputAssetIds must be an array of asset id strings; received an object.",
    );
    expect(at({ quality: [] }, "quality")?.message).toBe("quality must be a string; received an array.");
  });

  it("N7/N9: an option outside the list names the allowed values, with the hint only where it applies", () => {
    expect(issues({ prompt: "x", aspectRatio: "7:5" })[0]?.message).toBe(
      'aspectRatio "7:5" is not accepted; use one of Auto, 1:1, 2:3, 3:2, 3:4, 4:3, 9:16, 16:9, 5:4, 4:5, 2:1, 1:2, 21:9, 9:21, 3:1, 1:3.',
    );
    expect(issues({ prompt: "x", quality: "ultra" })[0]?.message).toBe(
      'quality "ultra" is not accepted; use one of low, medium, high.',
    );
    expect(issues({ prompt: "x", quality: " max " })[0]?.message).toBe(
      'quality "max" is not accepted (auto, xhigh and max are not offered by any model); use one of low, medium, high.',
    );
  });

  it("N2: an unknown field's message quotes it; N1: the body's message names what came", () => {
    expect(issues({ prompt: "x", cost: 1 })[0]?.message).toBe(
      'Field "cost" is not part of a generation request; remove it (prices are computed by the service, never taken from the request).',
    );
    expect(issues([])[0]?.message).toBe("The request body must be a JSON object; received an array.");
  });

  it("N15: a nested path uses dots and brackets", () => {
    expect(formatPath(undefined)).toBe("");
    expect(formatPath([])).toBe("");
    expect(formatPath([{ key: "inputAssetIds" }, { key: 2 }])).toBe("inputAssetIds[2]");
    expect(formatPath([{ key: "a" }, { key: "b" }, { key: 0 }, { key: "c" }])).toBe("a.b[0].c");
  });
});

describe("N12/V2: the cross-field checks run whenever their own fields are valid, next to other issues", () => {
  it("N12: a blank id on a text-to-image request is one issue at the id, not also 'references not allowed'", () => {
    expect(issues({ prompt: "x", inputAssetIds: ["a", " "] }).map((i) => [i.path, i.code])).toEqual([
      ["inputAssetIds[1]", "too_short"],
    ]);
    expect(issues({ prompt: "x", generationType: "image-to-image", inputAssetIds: [" "] }).map((i) => [i.path, i.code])).toEqual([
      ["inputAssetIds[0]", "too_short"],
    ]);
    expect(issues({ prompt: "x", generationType: "image-to-image", inputAssetIds: "" }).map((i) => [i.path, i.code])).toEqual([
      ["inputAssetIds", "invalid_type"],
    ]);
  });

  it("N12: the references rules are reported together with an issue of another field", () => {
    const found = (body: Record<string, unknown>) => issues(body).map((i) => [i.path, i.code]);
    expect(found({ prompt: "", generationType: "image-to-image" })).toEqual([
      ["prompt", "too_short"],
      ["inputAssetIds", "references_required"],
    ]);
    expect(found({ prompt: "x", imageCount: 0, inputAssetIds: ["a"] })).toEqual([
      ["imageCount", "too_small"],
      ["inputAssetIds", "references_not_allowed"],
    ]);
    expect(found({ prompt: 1, generationType: 2, inputAssetIds: ["a"] })).toEqual([
      ["prompt", "invalid_type"],
      ["generationType", "invalid_type"],
    ]);
  });

  it("N12: the references rules run even when another field has the wrong type (they look only at their own fields)", () => {
    const found = (body: Record<string, unknown>) => issues(body).map((i) => [i.path, i.code]);
    expect(found({ prompt: 1, inputAssetIds: ["a"] })).toEqual([
      ["prompt", "invalid_type"],
      ["inputAssetIds", "references_not_allowed"],
    ]);
    expect(found({ prompt: 1, generationType: "image-to-image" })).toEqual([
      ["prompt", "invalid_type"],
      ["inputAssetIds", "references_required"],
    ]);
  });

  it("V2: alpha-img2 without a resolution is reported even when another field has the wrong type", () => {
    expect(issues({ prompt: 1, modelId: "alpha-img2" }).map((i) => [i.path, i.code])).toEqual([
      ["prompt", "invalid_type"],
      ["resolution", "resolution_required"],
    ]);
  });

  it("V2: alpha-img2 without a resolution is reported together with an issue of another field", () => {
    expect(issues({ prompt: "", modelId: "alpha-img2" }).map((i) => [i.path, i.code])).toEqual([
      ["prompt", "too_short"],
      ["resolution", "resolution_required"],
    ]);
    expect(issues({ prompt: "x", modelId: 7 }).map((i) => [i.path, i.code])).toEqual([["modelId", "invalid_type"]]);
  });
});

describe("V1-V6: hand-built requests (not from normalizeRequest) are checked, never crash", () => {
  const base = ok({ modelId: "beta" });

  it("V6: ids of any type are counted, not trimmed into a crash", () => {
    const r = validateForModel({ ...base, generationType: "image-to-image", inputAssetIds: [1, 1, "a", " a"] } as never);
    expect(r.success).toBe(true);
    const gamma = validateForModel({ ...ok({ modelId: "gamma-image-1.5" }), inputAssetIds: [1, 2] } as never);
    expect(issuesOf(gamma).map((i) => i.code)).toEqual(["too_many_references"]);
  });

  it("N11/N12: a non-integer imageCount or a non-array inputAssetIds is an issue with its message", () => {
    expect(issuesOf(validateForModel({ ...base, imageCount: 1.5 }))).toEqual([
      { path: "imageCount", code: "not_integer", message: "imageCount must be a whole number; received 1.5." },
    ]);
    expect(issuesOf(validateForModel({ ...base, inputAssetIds: "a" as never }))).toEqual([
      {
        path: "inputAssetIds",
        code: "invalid_type",
        message: 'inputAssetIds must be an array of asset id strings; received "a".',
      },
    ]);
  });
});

describe("P2/P4/P6: pricing corners", () => {
  it("P4: a number multiplier printed with a positive exponent (1e21) is far above 1000, never read as 1", () => {
    for (const m of [1e21, 2e21, 1.5e300, Number.MAX_VALUE]) {
      expect(quote({ kind: "image", modelId: "beta" }, { multiplier: m })).toMatchObject({
        credits: null,
        reason: "invalid_multiplier",
      });
    }
  });

  it("P2: a modelId that is not a string is an unknown model, even one that names a model when converted", () => {
    for (const modelId of [["beta2"], { toString: () => "beta2" }, 7]) {
      expect(quote({ kind: "image", modelId } as never)).toMatchObject({ credits: null, reason: "unknown_model" });
    }
  });

  it("P2: an unsupported resolution, quality or reference count says which, with the model's values", () => {
    expect(quote({ kind: "image", modelId: "alpha-img2", resolution: "2K" })).toMatchObject({
      reason: "unsupported_resolution",
      message: 'resolution "2K" is not supported by alpha-img2; use one of 1K.',
    });
    expect(quote({ kind: "image", modelId: "beta2", quality: "high" })).toMatchObject({
      reason: "unsupported_quality",
      message: 'quality "high" is not supported by beta2; use one of low.',
    });
    expect(quote({ kind: "image", modelId: "beta2", referenceImageCount: 1.5 })).toMatchObject({
      reason: "invalid_reference_count",
      message: "referenceImageCount must be a whole number from 0 to 14; received 1.5.",
    });
  });

  it("P6: computeCharge's own issues carry their path, code and message", () => {
    const request = ok({ generationType: "image-to-image", inputAssetIds: ["a", "b"] });
    const e = thrown(() => computeCharge(request, { referenceCount: 3 }));
    expect(e.name).toBe("InvalidRequestError");
    expect(e.issues).toEqual([
      {
        path: "referenceCount",
        code: "invalid_reference_count",
        message: "referenceCount must be a whole number from 0 to 2; received 3.",
      },
    ]);
    const both = thrown(() => computeCharge(request, { referenceCount: -1, account: { multiplier: "x" } }));
    expect(both.issues.map((i) => [i.path, i.code])).toEqual([
      ["referenceCount", "invalid_reference_count"],
      ["account.multiplier", "invalid_multiplier"],
    ]);
    expect(both.message).toBe(
      `The request cannot be charged: referenceCount: ${both.issues[0]?.message} account.multiplier: ${both.issues[1]?.message}`,
    );
  });

  it("P2/V7: a catalog that skipped defineCatalog and lacks a price is 'not priceable', never a crash or a fallback", () => {
    const beta2 = catalog.models.beta2;
    const holes: Catalog = {
      ...catalog,
      models: {
        ...catalog.models,
        beta2: { ...beta2, prices: { "1K": { low: 60 }, "2K": {} } } as ModelSpec,
      },
    };
    for (const resolution of ["2K", "4K"] as const) {
      const q = quote({ kind: "image", modelId: "beta2", resolution }, undefined, holes);
      expect(q).toMatchObject({
        credits: null,
        reason: "not_priceable",
        message: `beta2 has no price at resolution ${resolution} and quality low.`,
      });
      const e = thrown(() => computeCharge(ok({ modelId: "beta2", resolution }), { catalog: holes }));
      expect(e.issues).toEqual([
        { path: "", code: "not_priceable", message: `beta2 has no price at resolution ${resolution} and quality low.` },
      ]);
    }
    expect(quote({ kind: "image", modelId: "beta2", resolution: "1K" }, undefined, holes).credits).toBe(60);
  });
});

describe("V7: the catalog schema explains what is wrong", () => {
  const beta2 = catalog.models.beta2;
  const problem = (c: unknown) => {
    try {
      defineCatalog(c as Catalog);
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };

  it("V7: each check of the catalog schema has its own sentence, and every problem is listed", () => {
    expect(problem({ ...catalog, defaultModelId: "nope" })).toBe(
      "Invalid catalog: (catalog): The default model must be in the catalog.",
    );
    const two = problem({
      ...catalog,
      models: { ...catalog.models, beta2: { ...beta2, qualities: ["low", "low"], defaultAspectRatio: "21:9" } },
    });
    expect(two).toContain("Each value may be listed once.");
    expect(two).toContain("; ");
    expect(problem({ ...catalog, models: { ...catalog.models, beta2: { ...beta2, defaultAspectRatio: "21:9" } } })).toContain(
      "The default aspect ratio must be an accepted one.",
    );
    expect(
      problem({
        ...catalog,
        models: { ...catalog.models, beta2: { ...beta2, resolutions: ["1K"], prices: { "1K": { low: 60 } } } },
      }),
    ).toContain("The default resolution must be an accepted one.");
    expect(problem({ ...catalog, models: { ...catalog.models, beta2: { ...beta2, prices: { "1K": { low: 60 } } } } })).toContain(
      "Every accepted resolution x quality cell, and no other, must have a price.",
    );
  });

  it("V7: a model id is lower-case letters, digits, dots and dashes, from its first to its last character", () => {
    for (const id of ["Zeta-1", "zeta_1", "-zeta", "zeta 1", "zeta-1!"]) {
      const result = v.safeParse(ModelSpecSchema, { ...beta2, id });
      expect(result.success, id).toBe(false);
      expect(result.issues?.[0]?.message).toBe("A model id is lower-case letters, digits, dots and dashes.");
    }
    expect(v.safeParse(ModelSpecSchema, { ...beta2, id: "zeta-1.5" }).success).toBe(true);
    expect(v.safeParse(CatalogSchema, catalog).success).toBe(true);
  });
});

describe("P4: a Multiplier read once and reused", () => {
  it("P4: parseMultiplier gives a frozen Multiplier that quote and computeCharge accept as the account's multiplier", () => {
    const m = parseMultiplier("1.15");
    if (!m) throw new Error("valid");
    expect(Multiplier.is(m)).toBe(true);
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m.fraction)).toBe(true);
    expect(m.text).toBe("1.15");
    expect(parseMultiplier(m)).toBe(m);
    expect(quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { multiplier: m }).credits).toBe(138);
    const request = ok({ modelId: "beta2", resolution: "4K", imageCount: 2 });
    expect(computeCharge(request, { account: { multiplier: m } }).totalCreditCost).toBe(276);
    for (const text of ["0", "0.000", "1e-7", "1000", "0.1234567", "999.99999999"]) {
      const read = parseMultiplier(text === "1e-7" ? 1e-7 : text);
      expect(read && Object.isFrozen(read) && Multiplier.is(read), text).toBe(true);
    }
    expect(parseMultiplier("0")?.text).toBe("0");
    expect(parseMultiplier(0.5)?.text).toBe("0.5");
  });

  it("P4: only parseMultiplier makes a Multiplier; a look-alike object is an invalid multiplier", () => {
    expect(() => new Multiplier(Symbol("Multiplier"), "1", 1n, 1n, undefined)).toThrow(
      new TypeError("Make a Multiplier with parseMultiplier()."),
    );
    const lookAlike = { text: "0.01", num: 1n, den: 100n, fraction: { num: 1, den: 100 } };
    expect(Multiplier.is(lookAlike)).toBe(false);
    expect(Multiplier.is(null)).toBe(false);
    expect(Multiplier.is("1")).toBe(false);
    expect(quote({ kind: "image", modelId: "beta2" }, { multiplier: lookAlike as never })).toMatchObject({
      credits: null,
      reason: "invalid_multiplier",
    });
    expect(() => computeCharge(ok({}), { account: { multiplier: lookAlike as never } })).toThrow(InvalidRequestError);
  });

  it("P4: a price far above the built-in ones is still multiplied exactly (no double rounding past 2^53)", () => {
    // Prices and multipliers for which floor(double(2 x price x num + den) / (2 x den)) is off by one.
    const cases: [number, string][] = [
      [9007199254733072, "0.5"],
      [9007199254733072, "0.7"],
      [9007199254590530, "0.333"],
      [2 ** 52 + 1, "1.5"],
    ];
    for (const [price, multiplier] of cases) {
      const huge: Catalog = defineCatalog({
        ...catalog,
        models: {
          ...catalog.models,
          beta: { ...catalog.models.beta, prices: { "1K": { low: price }, "2K": { low: price }, "4K": { low: price } } },
        },
      });
      expect(quote({ kind: "image", modelId: "beta" }, { multiplier }, huge).credits, `${price} x ${multiplier}`).toBe(
        bigIntHalfUp(price, multiplier),
      );
    }
  });
});

describe("P2: a custom model without the default quality", () => {
  it("P2: an omitted quality means low, and a model that does not offer low says unsupported_quality", () => {
    const highOnly: ModelSpec = {
      id: "zeta-1",
      aspectRatios: ["1:1"],
      defaultAspectRatio: "1:1",
      resolutions: ["2K"],
      defaultResolution: "2K",
      qualities: ["high"],
      backgrounds: ["auto"],
      maxImageCount: 2,
      maxReferenceImages: 0,
      referenceSurchargeCredits: 0,
      outputFormat: null,
      prices: { "2K": { high: 40 } },
    };
    const custom = defineCatalog({ ...catalog, models: { ...catalog.models, "zeta-1": highOnly } });
    expect(quote({ kind: "image", modelId: "zeta-1" }, undefined, custom)).toMatchObject({
      credits: null,
      reason: "unsupported_quality",
      message: 'quality "low" is not supported by zeta-1; use one of high.',
    });
    expect(quote({ kind: "image", modelId: "zeta-1", quality: " high " }, undefined, custom).credits).toBe(40);
  });
});
