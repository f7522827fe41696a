import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { HIDDEN } from "../../src/echo.js";
import { GenerationRequestSchema, type Issue, normalizeRequest } from "../../src/index.js";

const ok = (input: unknown) => {
  const r = normalizeRequest(input);
  if (!r.success) {
    throw new Error(`expected success, got ${JSON.stringify(r.issues)}`);
  }
  return r.output;
};
const issues = (input: unknown): Issue[] => {
  const r = normalizeRequest(input);
  if (r.success) {
    throw new Error(`expected issues, got ${JSON.stringify(r.output)}`);
  }
  return r.issues;
};
const only = (input: unknown) => {
  const found = issues(input);
  expect(found).toHaveLength(1);
  return found[0] as Issue;
};

/** The fields an unknown field's message lists (N2). */
const FIELDS =
  "prompt, modelId, generationType, aspectRatio, resolution, quality, background, imageCount, inputAssetIds, idempotencyKey";

describe("normalizeRequest", () => {
  it("N1: a body that is not a plain object is one issue at path ''", () => {
    for (const body of [
      [],
      "prompt",
      42,
      null,
      true,
      undefined,
      [{ prompt: "x" }],
      new Date(),
      new Map(),
    ]) {
      expect(issues(body)).toEqual([
        { path: "", code: "invalid_type", message: expect.stringContaining("JSON object") },
      ]);
    }
    expect(ok(Object.assign(Object.create(null), { prompt: "x" })).prompt).toBe("x");
  });

  it("N2: each unknown field is its own issue, a client cost included", () => {
    const found = issues({ prompt: "x", cost: 1, credits: 2, totalCreditCost: 3, Prompt: "y" });
    expect(found.map((i) => [i.path, i.code])).toEqual([
      ["cost", "unknown_field"],
      ["credits", "unknown_field"],
      ["totalCreditCost", "unknown_field"],
      ["Prompt", "unknown_field"],
    ]);
  });

  it("N2: a __proto__ or constructor key from JSON is an unknown field, not skipped", () => {
    const found = issues(JSON.parse('{"prompt":"x","__proto__":{"imageCount":9},"constructor":1}'));
    expect(found.map((i) => i.path)).toEqual(["__proto__", "constructor"]);
    expect(found.every((i) => i.code === "unknown_field")).toBe(true);
  });

  it("N3: every string field and every asset id is trimmed before any check", () => {
    const out = ok({
      prompt: "  a fox \n",
      modelId: " alpha-img2-official ",
      generationType: "\timage-to-image ",
      aspectRatio: " 1:1 ",
      resolution: " 4K",
      quality: "high ",
      background: " transparent ",
      inputAssetIds: [" a ", "b\n"],
      idempotencyKey: "  key-1  ",
    });
    expect(out).toEqual({
      prompt: "a fox",
      modelId: "alpha-img2-official",
      generationType: "image-to-image",
      aspectRatio: "1:1",
      resolution: "4K",
      quality: "high",
      background: "transparent",
      imageCount: 1,
      inputAssetIds: ["a", "b"],
      idempotencyKey: "key-1",
    });
    expect(ok({ prompt: "x", modelId: " beta2 " }).modelId).toBe("beta2");
  });

  it("N3: matching stays case-sensitive after trimming", () => {
    expect(only({ prompt: "x", aspectRatio: "auto" })).toMatchObject({
      path: "aspectRatio",
      code: "invalid_option",
    });
    expect(only({ prompt: "x", resolution: "1k" })).toMatchObject({
      path: "resolution",
      code: "invalid_option",
    });
    expect(only({ prompt: "x", modelId: "Beta2" })).toMatchObject({
      path: "modelId",
      code: "unknown_model",
    });
    expect(only({ prompt: "x", quality: "LOW" })).toMatchObject({
      path: "quality",
      code: "invalid_option",
    });
  });

  it("N4: prompt is required, 1 to 12000 code points after trim", () => {
    expect(only({})).toMatchObject({ path: "prompt", code: "required" });
    expect(only({ prompt: "" })).toMatchObject({ path: "prompt", code: "too_short" });
    expect(only({ prompt: " \n\t " })).toMatchObject({ path: "prompt", code: "too_short" });
    expect(ok({ prompt: "a".repeat(12000) }).prompt).toHaveLength(12000);
    expect(ok({ prompt: ` ${"a".repeat(12000)} ` }).prompt).toHaveLength(12000);
    expect(only({ prompt: "a".repeat(12001) })).toMatchObject({ path: "prompt", code: "too_long" });
  });

  it("N4: a 12000-emoji prompt is valid (code points, not UTF-16 units); 12001 is not", () => {
    expect([...ok({ prompt: "😀".repeat(12000) }).prompt]).toHaveLength(12000);
    const issue = only({ prompt: "😀".repeat(12001) });
    expect(issue).toMatchObject({ path: "prompt", code: "too_long" });
    expect(issue.message).toContain("12001");
    // a lone surrogate is one code point, as [...s] counts it
    expect(ok({ prompt: `${"a".repeat(11999)}\ud800` }).prompt).toHaveLength(12000);
  });

  it("N5: modelId defaults to alpha-img2-official and must be one of the 8 ids", () => {
    expect(ok({ prompt: "x" }).modelId).toBe("alpha-img2-official");
    for (const id of [
      "alpha-img2-official",
      "alpha-img2-5-flare",
      "alpha-img2-5-sunburst",
      "beta-pro",
      "beta2",
      "beta",
      "gamma-image-1.5",
    ]) {
      expect(ok({ prompt: "x", modelId: id }).modelId).toBe(id);
    }
    expect(ok({ prompt: "x", modelId: "alpha-img2", resolution: "1K" }).modelId).toBe("alpha-img2");
    const issue = only({ prompt: "x", modelId: "delta" });
    expect(issue).toMatchObject({ path: "modelId", code: "unknown_model" });
    expect(issue.message).toBe(
      'modelId "delta" is not a known model; use one of alpha-img2, alpha-img2-official, alpha-img2-5-flare, alpha-img2-5-sunburst, beta-pro, beta2, beta, gamma-image-1.5.',
    );
    expect(only({ prompt: "x", modelId: "__proto__" })).toMatchObject({ code: "unknown_model" });
  });

  it("N6: generationType defaults to text-to-image; only the two types", () => {
    expect(ok({ prompt: "x" }).generationType).toBe("text-to-image");
    expect(only({ prompt: "x", generationType: "edit" })).toMatchObject({
      path: "generationType",
      code: "invalid_option",
    });
  });

  it("N7: aspectRatio defaults to the model's default and is shape-checked against Auto + 15 ratios", () => {
    expect(ok({ prompt: "x" }).aspectRatio).toBe("9:16");
    expect(ok({ prompt: "x", modelId: "gamma-image-1.5" }).aspectRatio).toBe("9:16");
    expect(ok({ prompt: "x", aspectRatio: "21:9" }).aspectRatio).toBe("21:9"); // shape-valid; V1 judges the model
    const issue = only({ prompt: "x", aspectRatio: "7:5" });
    expect(issue).toMatchObject({ path: "aspectRatio", code: "invalid_option" });
    expect(issue.message).toContain("Auto, 1:1, 2:3");
    expect(only({ prompt: "x", aspectRatio: "1024x1024" }).code).toBe("invalid_option");
  });

  it("N8: resolution defaults to 1K on the 2.5 models, 2K elsewhere, none on alpha-img2", () => {
    expect(ok({ prompt: "x", modelId: "alpha-img2-5-flare" }).resolution).toBe("1K");
    expect(ok({ prompt: "x", modelId: "alpha-img2-5-sunburst" }).resolution).toBe("1K");
    for (const id of ["alpha-img2-official", "beta-pro", "beta2", "beta", "gamma-image-1.5"]) {
      expect(ok({ prompt: "x", modelId: id }).resolution).toBe("2K");
    }
    expect(only({ prompt: "x", resolution: "8K" })).toMatchObject({
      path: "resolution",
      code: "invalid_option",
    });
  });

  it("V2: an omitted resolution on alpha-img2 is an issue at resolution that says to pass 1K", () => {
    const issue = only({ prompt: "x", modelId: "alpha-img2" });
    expect(issue).toMatchObject({ path: "resolution", code: "resolution_required" });
    expect(issue.message).toContain('"1K"');
    expect(ok({ prompt: "x", modelId: "alpha-img2", resolution: "1K" }).resolution).toBe("1K");
  });

  it("N9: quality defaults to low; auto, xhigh and max are rejected with a message that says so", () => {
    expect(ok({ prompt: "x" }).quality).toBe("low");
    for (const q of ["auto", "xhigh", "max"]) {
      const issue = only({ prompt: "x", quality: q });
      expect(issue).toMatchObject({ path: "quality", code: "invalid_option" });
      expect(issue.message).toMatch(/auto, xhigh and max are not offered/);
      expect(issue.message).toContain("low, medium, high");
    }
    expect(only({ prompt: "x", quality: "ultra" }).message).not.toMatch(/xhigh/);
  });

  it("N10: background defaults to auto; auto, opaque or transparent", () => {
    expect(ok({ prompt: "x" }).background).toBe("auto");
    expect(ok({ prompt: "x", background: "opaque" }).background).toBe("opaque");
    expect(only({ prompt: "x", background: "white" })).toMatchObject({
      path: "background",
      code: "invalid_option",
    });
  });

  it("N11: imageCount defaults to 1 and must be a JSON integer >= 1", () => {
    expect(ok({ prompt: "x" }).imageCount).toBe(1);
    expect(ok({ prompt: "x", imageCount: 3 }).imageCount).toBe(3);
    expect(ok({ prompt: "x", imageCount: 2.0 }).imageCount).toBe(2);
    expect(only({ prompt: "x", imageCount: 1.5 })).toMatchObject({
      path: "imageCount",
      code: "not_integer",
    });
    expect(only({ prompt: "x", imageCount: 0 })).toMatchObject({
      path: "imageCount",
      code: "too_small",
    });
    expect(only({ prompt: "x", imageCount: -1 })).toMatchObject({
      path: "imageCount",
      code: "too_small",
    });
    expect(only({ prompt: "x", imageCount: "2" })).toMatchObject({
      path: "imageCount",
      code: "invalid_type",
    });
    expect(only({ prompt: "x", imageCount: Number.NaN })).toMatchObject({
      path: "imageCount",
      code: "invalid_type",
    });
    expect(only({ prompt: "x", imageCount: Number.POSITIVE_INFINITY })).toMatchObject({
      path: "imageCount",
      code: "not_integer",
    });
  });

  it("N12: asset ids are trimmed and de-duplicated, first occurrence and order kept", () => {
    const out = ok({
      prompt: "x",
      generationType: "image-to-image",
      inputAssetIds: ["b", " a", "b ", "c", "a"],
    });
    expect(out.inputAssetIds).toEqual(["b", "a", "c"]);
  });

  it("N12: image-to-image needs a non-empty list; text-to-image defaults to [] and rejects a non-empty one", () => {
    expect(ok({ prompt: "x" }).inputAssetIds).toEqual([]);
    expect(ok({ prompt: "x", inputAssetIds: [] }).inputAssetIds).toEqual([]);
    expect(only({ prompt: "x", generationType: "image-to-image" })).toMatchObject({
      path: "inputAssetIds",
      code: "references_required",
    });
    expect(
      only({ prompt: "x", generationType: "image-to-image", inputAssetIds: [] }),
    ).toMatchObject({
      path: "inputAssetIds",
      code: "references_required",
    });
    expect(only({ prompt: "x", inputAssetIds: ["a"] })).toMatchObject({
      path: "inputAssetIds",
      code: "references_not_allowed",
    });
  });

  it("N12: each id is a non-empty string; at most 14 after de-duplication", () => {
    const i2i = (ids: unknown) => ({
      prompt: "x",
      generationType: "image-to-image",
      inputAssetIds: ids,
    });
    expect(only(i2i(["a", "  "]))).toMatchObject({ path: "inputAssetIds[1]", code: "too_short" });
    expect(only(i2i(["a", 7]))).toMatchObject({ path: "inputAssetIds[1]", code: "invalid_type" });
    expect(only(i2i("a"))).toMatchObject({ path: "inputAssetIds", code: "invalid_type" });
    const fourteen = Array.from({ length: 14 }, (_, i) => `asset_${i}`);
    expect(ok(i2i([...fourteen, ...fourteen, " asset_0 "])).inputAssetIds).toHaveLength(14);
    expect(only(i2i([...fourteen, "asset_14"]))).toMatchObject({
      path: "inputAssetIds",
      code: "too_many_references",
    });
  });

  it("N13: idempotencyKey is optional, 1 to 128 code points after trim; absent stays absent", () => {
    expect("idempotencyKey" in ok({ prompt: "x" })).toBe(false);
    expect(ok({ prompt: "x", idempotencyKey: " k " }).idempotencyKey).toBe("k");
    expect(ok({ prompt: "x", idempotencyKey: "é".repeat(128) }).idempotencyKey).toHaveLength(128);
    expect(ok({ prompt: "x", idempotencyKey: "😀".repeat(128) }).idempotencyKey).toHaveLength(256);
    expect(only({ prompt: "x", idempotencyKey: "k".repeat(129) })).toMatchObject({
      path: "idempotencyKey",
      code: "too_long",
    });
    expect(only({ prompt: "x", idempotencyKey: "   " })).toMatchObject({
      path: "idempotencyKey",
      code: "too_short",
    });
  });

  it("N14: a wrong type, null included, is an issue at that field", () => {
    const cases: [string, unknown][] = [
      ["prompt", 5],
      ["prompt", null],
      ["modelId", null],
      ["modelId", 3],
      ["generationType", {}],
      ["aspectRatio", 1.5],
      ["resolution", null],
      ["quality", ["low"]],
      ["background", false],
      ["imageCount", null],
      ["imageCount", "1"],
      ["inputAssetIds", null],
      ["inputAssetIds", { 0: "a" }],
      ["idempotencyKey", null],
      ["idempotencyKey", 12],
    ];
    for (const [field, value] of cases) {
      const body = field === "prompt" ? { prompt: value } : { prompt: "x", [field]: value };
      expect(only(body), `${field}=${JSON.stringify(value)}`).toMatchObject({
        path: field,
        code: "invalid_type",
      });
    }
  });

  it("N15: every issue is reported at once, each with path, code and an actionable message", () => {
    const found = issues({
      prompt: "",
      modelId: "beta2",
      aspectRatio: "5:7",
      resolution: "8K",
      quality: "max",
      background: "black",
      imageCount: 0,
      generationType: "image-to-image",
      inputAssetIds: ["ok", ""],
      idempotencyKey: "",
      extra: true,
    });
    expect(found.map((i) => i.path).sort()).toEqual(
      [
        "prompt",
        "aspectRatio",
        "resolution",
        "quality",
        "background",
        "imageCount",
        "inputAssetIds[1]",
        "idempotencyKey",
        "extra",
      ].sort(),
    );
    for (const issue of found) {
      expect(Object.keys(issue).sort()).toEqual(["code", "message", "path"]);
      expect(issue.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(issue.message).toMatch(/^[A-Za-z].*\.$/);
    }
    const listed = found.filter((i) =>
      ["aspectRatio", "resolution", "quality", "background"].includes(i.path),
    );
    for (const issue of listed) {
      expect(issue.message).toContain("use one of");
    }
  });

  it("N15: a long received value is shown cut short, never whole", () => {
    const issue = only({ prompt: "x", aspectRatio: "z".repeat(500) });
    expect(issue.message.length).toBeLessThan(200);
  });

  it("N3: normalizing does not modify its input", () => {
    const body = { prompt: " x ", inputAssetIds: [" a ", "a"], generationType: "image-to-image" };
    const copy = structuredClone(body);
    ok(body);
    expect(body).toEqual(copy);
  });
});

describe("normalizeRequest: messages, and checks across fields next to other issues", () => {
  it("N4: a long prompt of lone low surrogates is counted one per unit (12000 ok, 12001 too long)", () => {
    expect(normalizeRequest({ prompt: "\udc00".repeat(12000) }).success).toBe(true);
    expect(issues({ prompt: "\udc00".repeat(12001) })).toMatchObject([
      { path: "prompt", code: "too_long" },
    ]);
    expect(issues({ prompt: "A\udc00".repeat(6001) })).toMatchObject([
      { path: "prompt", code: "too_long" },
    ]);
    expect(normalizeRequest({ prompt: "\ud800\udc00".repeat(12000) }).success).toBe(true);
  });

  it("N14: a wrong type says what the field must be and what it got", () => {
    const at = (body: Record<string, unknown>, path: string) =>
      issues({ prompt: "x", ...body }).find((i) => i.path === path);
    expect(at({ modelId: 5 }, "modelId")?.message).toBe("modelId must be a string; received 5.");
    expect(at({ prompt: null }, "prompt")?.message).toBe("prompt must be a string; received null.");
    expect(at({ imageCount: "2" }, "imageCount")?.message).toBe(
      'imageCount must be a number; received "2".',
    );
    expect(
      at({ generationType: "image-to-image", inputAssetIds: ["a", 7] }, "inputAssetIds[1]")
        ?.message,
    ).toBe("each inputAssetIds entry must be a string; received 7.");
    expect(at({ inputAssetIds: {} }, "inputAssetIds")?.message).toBe(
      "inputAssetIds must be an array of asset id strings; received an object.",
    );
    expect(at({ quality: [] }, "quality")?.message).toBe(
      "quality must be a string; received an array.",
    );
  });

  it("N7/N9: an option outside the list names the values the model accepts, with the hint only where it applies", () => {
    // The default model, alpha-img2-official, accepts Auto and the 7 public ratios: only those are named.
    expect(issues({ prompt: "x", aspectRatio: "7:5" })[0]?.message).toBe(
      'aspectRatio "7:5" is not accepted; use one of Auto, 1:1, 2:3, 3:2, 3:4, 4:3, 9:16, 16:9.',
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
      `Field "cost" is not part of a generation request; its fields are ${FIELDS}.`,
    );
    expect(issues([])[0]?.message).toBe(
      "The request body must be a JSON object; received an array.",
    );
  });

  it("N12: a blank id on a text-to-image request is one issue at the id, not also 'references not allowed'", () => {
    expect(issues({ prompt: "x", inputAssetIds: ["a", " "] }).map((i) => [i.path, i.code])).toEqual(
      [["inputAssetIds[1]", "too_short"]],
    );
    expect(
      issues({ prompt: "x", generationType: "image-to-image", inputAssetIds: [" "] }).map((i) => [
        i.path,
        i.code,
      ]),
    ).toEqual([["inputAssetIds[0]", "too_short"]]);
    expect(
      issues({ prompt: "x", generationType: "image-to-image", inputAssetIds: "" }).map((i) => [
        i.path,
        i.code,
      ]),
    ).toEqual([["inputAssetIds", "invalid_type"]]);
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
    expect(issues({ prompt: "x", modelId: 7 }).map((i) => [i.path, i.code])).toEqual([
      ["modelId", "invalid_type"],
    ]);
  });

  it("N2/S15: an unknown field named '' or ' ' gets a sentence that names it, quoted; a long name is cut in path and message", () => {
    const r = normalizeRequest({ prompt: "x", "": 1, " ": 2, ["z ".repeat(250)]: 3 });
    expect(r.success).toBe(false);
    const issues = r.success ? [] : r.issues;
    expect(issues.map((i) => [i.path, i.code])).toEqual([
      ["", "unknown_field"],
      [" ", "unknown_field"],
      [`${"z ".repeat(20)}...`, "unknown_field"],
    ]);
    expect(issues[0]?.message).toMatch(
      /^Field "" is not part of a generation request; its fields are prompt, /,
    );
    expect(issues[1]?.message).toMatch(/^Field " " is not part/);
    expect(issues[2]?.message).toMatch(
      new RegExp(`^Field "${"z ".repeat(20)}\\.\\.\\." is not part`),
    );
  });
});

describe("normalizeRequest: bounded work and answers (S15)", () => {
  const i2i = (ids: unknown) => ({
    prompt: "x",
    generationType: "image-to-image",
    inputAssetIds: ids,
  });

  it("S15: a list of more than 1000 references is one too_many_references issue; its entries are not read", () => {
    for (const length of [1001, 40_000, 200_000]) {
      expect(issues(i2i(Array(length).fill(0)))).toEqual([
        {
          path: "inputAssetIds",
          code: "too_many_references",
          message: `inputAssetIds may list at most 14 distinct assets in at most 1000 entries; it has ${length} entries, which were not read.`,
        },
      ]);
    }
    // valid entries too: the length alone decides
    expect(only(i2i(Array.from({ length: 1001 }, () => "a")))).toMatchObject({
      code: "too_many_references",
    });
    // up to 1000 entries are read, duplicates counted once (N12)
    expect(
      ok(i2i(Array.from({ length: 1000 }, (_, i) => `a${i % 14}`))).inputAssetIds,
    ).toHaveLength(14);
    expect(only({ prompt: "x", inputAssetIds: Array(1001).fill("a") })).toMatchObject({
      code: "too_many_references",
    });
    // only a list is sized: a long string is a wrong type
    expect(only(i2i("a".repeat(5000)))).toMatchObject({
      path: "inputAssetIds",
      code: "invalid_type",
    });
  });

  it("S15: at most 50 issues are reported, then one too_many_issues issue at path '' counting the rest", () => {
    const found = issues(i2i(Array(1000).fill(0)));
    expect(found).toHaveLength(51);
    expect(
      found
        .slice(0, 50)
        .every((i, n) => i.path === `inputAssetIds[${n}]` && i.code === "invalid_type"),
    ).toBe(true);
    expect(found[50]).toEqual({
      path: "",
      code: "too_many_issues",
      message: "950 more issues were left out to keep the answer short; fix the ones listed first.",
    });
    const keys: Record<string, unknown> = { prompt: "" };
    for (let i = 0; i < 90_000; i++) {
      keys[`k${i}`] = i;
    }
    const unknown = issues(keys);
    expect(unknown).toHaveLength(51);
    expect(unknown[0]).toMatchObject({ path: "k0", code: "unknown_field" });
    expect(unknown[50]?.message).toMatch(/^89951 more issues were left out/);
    // exactly 50 issues: no count
    const fifty: Record<string, unknown> = { prompt: "x" };
    for (let i = 0; i < 50; i++) {
      fifty[`k${i}`] = i;
    }
    expect(issues(fifty).map((i) => i.code)).toEqual(Array(50).fill("unknown_field"));
  });

  it("S15: a long unknown field name or value comes back made safe and cut to 40 characters, in its path and in its message", () => {
    const name = "n ".repeat(150_000);
    const found = only({ prompt: "x", [name]: 1 });
    expect(found.path).toBe(`${"n ".repeat(20)}...`);
    expect(only({ prompt: "x", ["n".repeat(300_000)]: 1 }).path).toBe(HIDDEN);
    expect(found.message).toBe(
      `Field "${"n ".repeat(20)}..." is not part of a generation request; its fields are ${FIELDS}.`,
    );
    for (const field of [
      "modelId",
      "generationType",
      "aspectRatio",
      "resolution",
      "quality",
      "background",
    ]) {
      const issue = only({ prompt: "x", [field]: "v ".repeat(50_000) });
      expect(issue.message, field).toContain(`"${"v ".repeat(20)}..."`);
      expect(issue.message.length, field).toBeLessThan(300);
    }
    expect(only({ prompt: "p".repeat(1_000_000) }).message).toBe(
      "prompt must be at most 12000 characters after trimming; it has 1000000.",
    );
    expect(only(i2i(["a", "c".repeat(1_000_000), 7])).message).toBe(
      "each inputAssetIds entry must be a string; received 7.",
    );
  });

  it("N1/N4: the schema alone names a body that is not an object, and a missing prompt", () => {
    expect(v.safeParse(GenerationRequestSchema, 5).issues?.[0]?.message).toBe(
      "The request body must be a JSON object; received 5.",
    );
    expect(v.safeParse(GenerationRequestSchema, {}).issues?.[0]?.message).toBe(
      "prompt is required.",
    );
  });

  it("S15: a deeply nested value is named by its type, never walked", () => {
    let deep: unknown = "x";
    for (let i = 0; i < 100_000; i++) {
      deep = [deep];
    }
    expect(only({ prompt: deep })).toEqual({
      path: "prompt",
      code: "invalid_type",
      message: "prompt must be a string; received an array.",
    });
    expect(only({ prompt: "x", extra: deep })).toMatchObject({
      path: "extra",
      code: "unknown_field",
    });
    expect(issues(i2i([deep, deep])).map((i) => i.path)).toEqual([
      "inputAssetIds[0]",
      "inputAssetIds[1]",
    ]);
  });
});
