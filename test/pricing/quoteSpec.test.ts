/** The quote spec: its strict parser (S11) and the one reader behind it and behind quote (P2, S15). */

import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { HIDDEN } from "../../src/echo.js";
import { type QuoteSpec, quote } from "../../src/index.js";
import {
  parseQuoteSpec,
  QuoteSpecSchema,
  readQuoteSpec,
  specFields,
} from "../../src/pricing/quoteSpec.js";
import { BOUNDS } from "../../src/request/bounds.js";
import { issuesOf } from "../properties/helpers.js";

const found = (input: unknown) => issuesOf(parseQuoteSpec(input)).map((i) => [i.path, i.code]);

describe("parseQuoteSpec", () => {
  it("S11: a well-formed spec is trimmed, and only its own spec fields are kept, in a new object", () => {
    const input = {
      kind: " image ",
      modelId: " beta2 ",
      resolution: " 4K",
      quality: "low ",
      referenceImageCount: 0,
    };
    const parsed = parseQuoteSpec(input);
    expect(parsed).toEqual({
      success: true,
      output: {
        kind: "image",
        modelId: "beta2",
        resolution: "4K",
        quality: "low",
        referenceImageCount: 0,
      },
    });
    const canonical = { kind: "image", modelId: "beta2" };
    const again = parseQuoteSpec(canonical);
    expect(again).toEqual({ success: true, output: canonical });
    // only the fields given: no key for an absent one
    expect(Object.keys((again as { output: object }).output)).toEqual(["kind", "modelId"]);
    expect(Object.keys((parsed as { output: object }).output)).toEqual(Object.keys(input));
    expect(again.success && again.output).not.toBe(canonical);
    // a well-formed spec may still be unpriceable: that is quote's answer, not a parse issue
    expect(parseQuoteSpec({ kind: "video", modelId: "delta-9" }).success).toBe(true);
  });

  it("S11: a spec that is not an object of the quote's fields gets every issue at once, each with its code and sentence", () => {
    expect(
      issuesOf(
        parseQuoteSpec({
          kind: 2,
          resolution: 5,
          quality: null,
          referenceImageCount: "1.5",
          extra: true,
        }),
      ),
    ).toEqual([
      {
        path: "extra",
        code: "unknown_field",
        message:
          'Field "extra" is not part of a quote spec; use kind, modelId, resolution, quality and referenceImageCount.',
      },
      { path: "kind", code: "invalid_type", message: "kind must be a string; received 2." },
      { path: "modelId", code: "required", message: "modelId is required." },
      {
        path: "resolution",
        code: "invalid_type",
        message: "resolution must be a string; received 5.",
      },
      {
        path: "quality",
        code: "invalid_type",
        message: "quality must be a string; received null.",
      },
      {
        path: "referenceImageCount",
        code: "invalid_type",
        message: 'referenceImageCount must be a whole number from 0 to 14; received "1.5".',
      },
    ]);
    expect(found({ kind: "image", modelId: "beta2", referenceImageCount: "2" })).toEqual([
      ["referenceImageCount", "invalid_type"],
    ]);
    expect(issuesOf(parseQuoteSpec({ kind: "image", modelId: null }))).toEqual([
      {
        path: "modelId",
        code: "invalid_type",
        message: "modelId must be a string; received null.",
      },
    ]);
    expect(found(JSON.parse('{"kind":"image","modelId":"beta2","__proto__":{"x":1}}'))).toEqual([
      ["__proto__", "unknown_field"],
    ]);
  });

  it("S11, P2: a value outside the public lists, or a count that is not a whole number 0..14, is well formed: quote's to price", () => {
    for (const spec of [
      { kind: "image", modelId: "beta2", resolution: "8K" },
      { kind: "image", modelId: "beta2", resolution: "1k" },
      { kind: "image", modelId: "alpha-img2-5-flare", quality: " xhigh " },
      { kind: "image", modelId: "beta2", quality: "auto" },
      { kind: "image", modelId: "alpha-img2-5-flare", referenceImageCount: 15 },
      { kind: "image", modelId: "beta2", referenceImageCount: -1 },
      { kind: "image", modelId: "beta2", referenceImageCount: 1.5 },
    ]) {
      const parsed = parseQuoteSpec(spec);
      expect(parsed.success, JSON.stringify(spec)).toBe(true);
      expect(
        quote((parsed as { output: QuoteSpec }).output).credits,
        JSON.stringify(spec),
      ).toBeNull();
    }
    // the reason names the quote's own field, never the request's inputAssetIds
    expect(
      quote({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 2 }),
    ).toMatchObject({
      reason: "too_many_references",
      message: "referenceImageCount may be at most 1 for gamma-image-1.5; received 2.",
    });
    expect(
      parseQuoteSpec({ kind: "image", modelId: "alpha-img2-5-flare", quality: " xhigh " }),
    ).toEqual({
      success: true,
      output: { kind: "image", modelId: "alpha-img2-5-flare", quality: "xhigh" },
    });
  });

  it("S11: the schema alone names a body that is not an object, and a missing field", () => {
    expect(v.safeParse(QuoteSpecSchema, 5).issues?.[0]?.message).toBe(
      "A quote spec must be a JSON object; received 5.",
    );
    expect(v.safeParse(QuoteSpecSchema, { kind: "image" }).issues?.[0]?.message).toBe(
      "modelId is required.",
    );
    expect(quote(null as never)).toMatchObject({
      reason: "invalid_spec",
      message: "A quote spec must be a JSON object; received null.",
    });
  });

  it("S11: a body that is not a plain object is one issue at path ''", () => {
    for (const input of [[], null, "spec", 3, new Date()]) {
      expect(issuesOf(parseQuoteSpec(input))).toEqual([
        {
          path: "",
          code: "invalid_type",
          message: expect.stringMatching(/^A quote spec must be a JSON object; received /),
        },
      ]);
    }
    expect(
      parseQuoteSpec(Object.assign(Object.create(null), { kind: "image", modelId: "beta" }))
        .success,
    ).toBe(true);
  });

  it("S15: unknown fields are made safe and cut to 40 characters in path and message, and at most 50 issues come back with a count", () => {
    const name = "q ".repeat(150_000);
    const [issue] = issuesOf(parseQuoteSpec({ kind: "image", modelId: "beta2", [name]: 1 }));
    expect(issue?.path).toBe(`${"q ".repeat(20)}...`);
    expect(issue?.message.length).toBeLessThan(200);
    const body: Record<string, unknown> = { kind: 1, modelId: "beta2" };
    for (let i = 0; i < 90_000; i++) {
      body[`k${i}`] = i;
    }
    const issues = issuesOf(parseQuoteSpec(body));
    expect(issues).toHaveLength(BOUNDS.maxIssues + 1);
    expect(issues[50]).toMatchObject({
      path: "",
      code: "too_many_issues",
      message: expect.stringMatching(/^89951 more issues/),
    });
    expect(found({ kind: "image", modelId: "m".repeat(1_000_000) })).toEqual([]);
    expect(quote({ kind: "image", modelId: "m".repeat(1_000_000) })).toMatchObject({
      reason: "unknown_model",
      message: expect.stringContaining(`"${HIDDEN}"`),
    });
  });
});

describe("readQuoteSpec", () => {
  it("P2/S11: a spec with nothing to trim is read as it is, without the schema; anything else through it", () => {
    const canonical = {
      kind: "video",
      modelId: "delta",
      resolution: "1K",
      quality: "high",
      referenceImageCount: 14,
    };
    expect(readQuoteSpec(canonical, false).fields).toBe(canonical);
    expect(readQuoteSpec(canonical, true)).toEqual({ fields: canonical, issues: [] });
    for (const spec of [
      { kind: "image", modelId: "beta2" },
      { kind: "image", modelId: "beta2", referenceImageCount: 0 },
    ]) {
      expect(readQuoteSpec(spec, false).fields).toBe(spec);
      expect(readQuoteSpec(spec, true).fields).toBe(spec);
      expect(specFields(spec)).toBe(spec);
    }
    expect(specFields({ kind: " image", modelId: "beta2" })).toEqual({
      kind: "image",
      modelId: "beta2",
    });
    // a spec in code: inherited fields are read, padded or not (P2)
    const inheritedPadded = Object.assign(Object.create({ kind: " image " }), { modelId: "beta2" });
    expect(specFields(inheritedPadded)).toEqual({ kind: "image", modelId: "beta2" });
    expect(quote(inheritedPadded).credits).toBe(80);
    for (const padded of [
      { kind: "image ", modelId: "beta2" },
      { kind: "image", modelId: "\u00a0beta2" },
      { kind: "image", modelId: "beta2\u3000" },
      { kind: "image", modelId: "beta2", resolution: " 1K" },
      { kind: "image", modelId: "beta2", quality: "low\n" },
    ]) {
      const read = readQuoteSpec(padded, false);
      expect(read.fields, JSON.stringify(padded)).not.toBe(padded);
      expect(read.issues).toEqual([]);
      expect(read.fields).toMatchObject({ kind: "image", modelId: "beta2" });
    }
    // an empty string, a string of whitespace, any non-ASCII ends: trimmed exactly as String.prototype.trim does
    expect(readQuoteSpec({ kind: "", modelId: " " }, false).fields).toEqual({
      kind: "",
      modelId: "",
    });
    expect(readQuoteSpec({ kind: "é", modelId: "ü" }, false).fields).toEqual({
      kind: "é",
      modelId: "ü",
    });
    // in code, inherited fields count and others are ignored; from a client, only own fields
    const inherited = Object.assign(Object.create({ kind: "image" }), {
      modelId: "beta2",
      other: 1,
    });
    expect(readQuoteSpec(inherited, false).issues).toEqual([]);
    expect(
      issuesOf({ success: false, issues: readQuoteSpec(inherited, true).issues }).map((i) => [
        i.path,
        i.code,
      ]),
    ).toEqual([
      ["other", "unknown_field"],
      ["kind", "required"],
    ]);
  });

  it("P2: a malformed field keeps its value for quote's reason: a number resolution, a null quality, an array count", () => {
    const read = readQuoteSpec(
      { kind: "image", modelId: " beta2 ", resolution: 4, quality: null, referenceImageCount: [1] },
      false,
    );
    expect(read.fields).toEqual({
      kind: "image",
      modelId: "beta2",
      resolution: 4,
      quality: null,
      referenceImageCount: [1],
    });
    expect(read.issues.map((i) => i.path)).toEqual([
      "resolution",
      "quality",
      "referenceImageCount",
    ]);
  });
});
