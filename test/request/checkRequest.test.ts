/** checkRequest: the shape rules and the model's own limits in one call, every issue of both at once. */
import { describe, expect, expectTypeOf, it } from "vitest";
import {
  type Catalog,
  catalog,
  checkRequest,
  defineCatalog,
  type Issue,
  type IssueCode,
  normalizeRequest,
  validateForModel,
} from "../../src/index.js";
import { issuesOf } from "../properties/helpers.js";

const found = (body: unknown, options?: { catalog?: Catalog }) =>
  issuesOf(checkRequest(body, options)).map((i) => [i.path, i.code]);

describe("checkRequest", () => {
  it("N1-N15, V1-V8: an issue's code is an IssueCode, to branch on with the type checker's help", () => {
    expectTypeOf<Issue["code"]>().toEqualTypeOf<IssueCode>();
    const result = checkRequest({ prompt: "a fox", resolution: "8K" });
    const codes: IssueCode[] = issuesOf(result).map((i) => i.code);
    expect(codes).toEqual(["invalid_option"]);
    // @ts-expect-error a code the core never reports
    const typo: IssueCode = "invalid_resolution";
    expect(typo).toBe("invalid_resolution");
  });

  it("V1-V4/N7: an option outside the public list names only values its model accepts, and each named value passes", () => {
    const fields = {
      aspectRatio: "aspectRatios",
      resolution: "resolutions",
      quality: "qualities",
      background: "backgrounds",
    } as const;
    for (const model of Object.values(catalog.models)) {
      const base = { prompt: "x", modelId: model.id, resolution: model.resolutions[0] };
      for (const [field, list] of Object.entries(fields)) {
        const [issue, ...rest] = issuesOf(checkRequest({ ...base, [field]: "7:5x" }));
        expect(rest, `${model.id} ${field}`).toEqual([]);
        expect(issue?.code).toBe("invalid_option");
        const named = (issue?.message ?? "")
          .replace(/^.*use one of /, "")
          .replace(/\.$/, "")
          .split(", ");
        expect(named, `${model.id} ${field}`).toEqual([...model[list]]);
        for (const value of named) {
          expect(
            checkRequest({ ...base, [field]: value }).success,
            `${model.id} ${field} ${value}`,
          ).toBe(true);
        }
      }
    }
    // gamma-image-1.5 takes 5 ratios: a bad ratio names those 5, not the 16 of the public lists.
    expect(
      issuesOf(checkRequest({ prompt: "x", modelId: "gamma-image-1.5", aspectRatio: "7:5" }))[0]
        ?.message,
    ).toBe('aspectRatio "7:5" is not accepted; use one of 1:1, 16:9, 9:16, 3:2, 2:3.');
    // A malformed modelId names no model: the public list stays.
    expect(
      issuesOf(checkRequest({ prompt: "x", modelId: 7, aspectRatio: "7:5" }))[1]?.message,
    ).toContain("use one of Auto, 1:1");
  });

  it("N15: a malformed field never hides a model limit broken by another field: the prompt, the resolution and the count together", () => {
    const result = checkRequest({
      prompt: "",
      modelId: "alpha-img2",
      resolution: "4K",
      imageCount: 20,
    });
    expect(issuesOf(result)).toEqual([
      {
        path: "prompt",
        code: "too_short",
        message: "prompt must not be empty or only whitespace.",
      },
      {
        path: "resolution",
        code: "unsupported_resolution",
        message: 'resolution "4K" is not supported by alpha-img2; use one of 1K.',
      },
      {
        path: "imageCount",
        code: "too_many_images",
        message: "imageCount may be at most 8 for alpha-img2; received 20.",
      },
    ]);
    // normalizeRequest alone reports only the shape issue
    expect(
      issuesOf(
        normalizeRequest({ prompt: "", modelId: "alpha-img2", resolution: "4K", imageCount: 20 }),
      ),
    ).toHaveLength(1);
  });

  it("V1-V6: every limit of the model is judged on the well-formed fields next to shape issues, unknown fields included", () => {
    expect(
      found({
        prompt: 7,
        modelId: " gamma-image-1.5 ",
        generationType: "image-to-image",
        inputAssetIds: ["a", "b", " a"],
        aspectRatio: "Auto",
        quality: "high",
        background: "opaque",
        imageCount: 11,
        cost: 1,
      }),
    ).toEqual([
      ["cost", "unknown_field"],
      ["prompt", "invalid_type"],
      ["aspectRatio", "unsupported_aspect_ratio"],
      ["quality", "unsupported_quality"],
      ["background", "unsupported_background"],
      ["imageCount", "too_many_images"],
      ["inputAssetIds", "too_many_references"],
    ]);
  });

  it("V2: a model without a default resolution needs one named, reported once next to other issues", () => {
    expect(found({ prompt: "", modelId: "alpha-img2" })).toEqual([
      ["prompt", "too_short"],
      ["resolution", "resolution_required"],
    ]);
    expect(found({ prompt: "x", modelId: "alpha-img2", imageCount: 9 })).toEqual([
      ["resolution", "resolution_required"],
      ["imageCount", "too_many_images"],
    ]);
  });

  it("N5/N15: with a malformed or unknown modelId no model's limits apply; the default model's do when it is absent", () => {
    expect(found({ prompt: "", modelId: 5, quality: "high", imageCount: 20 })).toEqual([
      ["prompt", "too_short"],
      ["modelId", "invalid_type"],
    ]);
    expect(found({ prompt: "", modelId: "delta", imageCount: 20 })).toEqual([
      ["prompt", "too_short"],
      ["modelId", "unknown_model"],
    ]);
    // the default model, alpha-img2-official, allows 4 images
    expect(found({ prompt: "", imageCount: 5 })).toEqual([
      ["prompt", "too_short"],
      ["imageCount", "too_many_images"],
    ]);
  });

  it("N15: a field with a shape issue is not judged by the model again; an absent field takes the model's default", () => {
    expect(
      found({ prompt: "", modelId: "beta", quality: "ultra", aspectRatio: 3, imageCount: 0 }),
    ).toEqual([
      ["prompt", "too_short"],
      ["aspectRatio", "invalid_type"],
      ["quality", "invalid_option"],
      ["imageCount", "too_small"],
    ]);
    expect(found({ prompt: "", modelId: "gamma-image-1.5" })).toEqual([["prompt", "too_short"]]);
    const twenty = Array.from({ length: 20 }, (_, i) => `a${i}`);
    expect(
      found({
        prompt: "",
        modelId: "gamma-image-1.5",
        generationType: "image-to-image",
        inputAssetIds: twenty,
      }),
    ).toEqual([
      ["prompt", "too_short"],
      ["inputAssetIds", "too_many_references"],
    ]);
  });

  it("N1-N15/V1-V6: a valid body gives what normalizeRequest then validateForModel give", () => {
    const body = { prompt: " a fox ", modelId: "alpha-img2", resolution: " 1K ", imageCount: 8 };
    const normalized = normalizeRequest(body);
    if (!normalized.success) {
      throw new Error("valid");
    }
    expect(checkRequest(body)).toEqual(validateForModel(normalized.output));
    expect(checkRequest(body)).toMatchObject({
      success: true,
      output: { prompt: "a fox", resolution: "1K", imageCount: 8 },
    });
    expect(found({ prompt: "x", modelId: "beta2", quality: "high" })).toEqual([
      ["quality", "unsupported_quality"],
    ]);
    expect(found([])).toEqual([["", "invalid_type"]]);
  });

  it("V7: the limits come from the given catalog", () => {
    const tight: Catalog = defineCatalog({
      ...catalog,
      models: { ...catalog.models, beta: { ...catalog.models.beta, maxImageCount: 2 } },
    });
    expect(found({ prompt: "", modelId: "beta", imageCount: 3 }, { catalog: tight })).toEqual([
      ["prompt", "too_short"],
      ["imageCount", "too_many_images"],
    ]);
    expect(found({ prompt: "", modelId: "beta", imageCount: 3 })).toEqual([
      ["prompt", "too_short"],
    ]);
  });

  it("S15: the issues of both stages together stay within 50 and a count", () => {
    const body: Record<string, unknown> = {
      prompt: "",
      modelId: "beta",
      quality: "high",
      imageCount: 9,
    };
    for (let i = 0; i < 49; i++) {
      body[`k${i}`] = i;
    }
    const issues = issuesOf(checkRequest(body));
    expect(issues).toHaveLength(51);
    expect(issues[49]).toMatchObject({ path: "prompt", code: "too_short" });
    expect(issues[50]).toMatchObject({
      path: "",
      code: "too_many_issues",
      message: expect.stringMatching(/^2 more issues/),
    });
  });
});
