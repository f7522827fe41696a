import { describe, expect, it } from "vitest";
import {
  type GenerationRequest,
  type Issue,
  type ModelId,
  normalizeRequest,
  validateForModel,
} from "../../src/index.js";
import {
  ALL_RATIOS,
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_RATIOS,
  oracleBackgrounds,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { issuesOf } from "../properties/helpers.js";

function request(modelId: ModelId, over: Partial<GenerationRequest> = {}): GenerationRequest {
  const base = normalizeRequest({
    prompt: "x",
    modelId,
    resolution: modelId === "alpha-img2" ? "1K" : "2K",
  });
  if (!base.success) {
    throw new Error(JSON.stringify(base.issues));
  }
  return { ...base.output, ...over };
}
const verdict = (r: GenerationRequest): Issue[] => {
  const result = validateForModel(r);
  return result.success ? [] : result.issues;
};
const ok = (body: Record<string, unknown>): GenerationRequest => {
  const r = normalizeRequest({ prompt: "x", ...body });
  if (!r.success) {
    throw new Error(JSON.stringify(r.issues));
  }
  return r.output;
};
const ids = (n: number) => Array.from({ length: n }, (_, i) => `asset_${i}`);

describe("validateForModel", () => {
  it("V1: each model accepts exactly its ratios (the 2.5 models 15 without Auto, gamma 5, the rest Auto + 7)", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      for (const ratio of ALL_RATIOS) {
        const found = verdict(
          request(modelId, { aspectRatio: ratio as GenerationRequest["aspectRatio"] }),
        );
        const accepted = ORACLE_RATIOS[modelId].includes(ratio);
        expect(found.length === 0, `${modelId} ${ratio}`).toBe(accepted);
        if (!accepted) {
          expect(found).toEqual([
            {
              path: "aspectRatio",
              code: "unsupported_aspect_ratio",
              message: expect.stringContaining(modelId),
            },
          ]);
        }
      }
    }
    const issue = verdict(request("alpha-img2-5-flare", { aspectRatio: "Auto" }))[0];
    expect(issue?.message).toBe(
      'aspectRatio "Auto" is not supported by alpha-img2-5-flare; use one of 1:1, 2:3, 3:2, 3:4, 4:3, 9:16, 16:9, 5:4, 4:5, 2:1, 1:2, 21:9, 9:21, 3:1, 1:3.',
    );
  });

  it("V2: alpha-img2 accepts only 1K; every other model 1K, 2K and 4K", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      for (const resolution of ["1K", "2K", "4K"] as const) {
        const found = verdict(request(modelId, { resolution }));
        const accepted = oracleResolutions(modelId).includes(resolution);
        expect(found.length === 0, `${modelId} ${resolution}`).toBe(accepted);
        if (!accepted) {
          expect(found[0]).toMatchObject({ path: "resolution", code: "unsupported_resolution" });
        }
      }
    }
  });

  it("V2: a request built without a resolution is an issue on alpha-img2 and takes the default elsewhere", () => {
    const { resolution: _, ...withoutResolution } = request("alpha-img2");
    const found = verdict(withoutResolution as GenerationRequest);
    expect(found).toEqual([
      { path: "resolution", code: "resolution_required", message: expect.stringContaining('"1K"') },
    ]);
    const { resolution: __, ...flare } = request("alpha-img2-5-flare");
    expect(validateForModel(flare as GenerationRequest)).toMatchObject({
      success: true,
      output: { resolution: "1K" },
    });
    // a request that names its resolution is accepted as it is, not copied
    const named = request("beta2");
    expect(validateForModel(named)).toEqual({ success: true, output: named });
    expect((validateForModel(named) as { output: GenerationRequest }).output).toBe(named);
  });

  it("V3: the three quality models accept low, medium, high; every other model only low", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      for (const quality of ["low", "medium", "high"] as const) {
        const found = verdict(request(modelId, { quality }));
        expect(found.length === 0, `${modelId} ${quality}`).toBe(
          oracleQualities(modelId).includes(quality),
        );
        if (found.length) {
          expect(found[0]).toMatchObject({ path: "quality", code: "unsupported_quality" });
        }
      }
    }
  });

  it("V4: the three quality models accept every background; every other model only auto", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      for (const background of ["auto", "opaque", "transparent"] as const) {
        const found = verdict(request(modelId, { background }));
        expect(found.length === 0, `${modelId} ${background}`).toBe(
          oracleBackgrounds(modelId).includes(background),
        );
        if (found.length) {
          expect(found[0]).toMatchObject({ path: "background", code: "unsupported_background" });
        }
      }
    }
  });

  it("V5: imageCount at most 8 on alpha-img2, 10 on gamma-image-1.5, 4 elsewhere", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      const max = ORACLE_MAX_IMAGES[modelId];
      expect(verdict(request(modelId, { imageCount: max })), modelId).toEqual([]);
      expect(verdict(request(modelId, { imageCount: max + 1 }))).toEqual([
        {
          path: "imageCount",
          code: "too_many_images",
          message: expect.stringContaining(String(max)),
        },
      ]);
    }
  });

  it("V6: distinct references at most 1 on gamma-image-1.5, 14 elsewhere; duplicates count once", () => {
    for (const modelId of ORACLE_MODEL_IDS) {
      const max = ORACLE_MAX_REFS[modelId];
      const i2i = (list: string[]) =>
        request(modelId, { generationType: "image-to-image", inputAssetIds: list });
      expect(verdict(i2i(ids(max))), modelId).toEqual([]);
      expect(verdict(i2i([...ids(max), ...ids(max)])), modelId).toEqual([]);
      if (max < 14) {
        expect(verdict(i2i(ids(max + 1)))).toEqual([
          {
            path: "inputAssetIds",
            code: "too_many_references",
            message: expect.stringContaining(modelId),
          },
        ]);
      }
    }
  });

  it("V1-V6: every broken limit is reported at once", () => {
    const found = verdict(
      request("gamma-image-1.5", {
        aspectRatio: "4:3",
        quality: "high",
        background: "opaque",
        imageCount: 11,
        generationType: "image-to-image",
        inputAssetIds: ["a", "b"],
      }),
    );
    expect(found.map((i) => i.path)).toEqual([
      "aspectRatio",
      "quality",
      "background",
      "imageCount",
      "inputAssetIds",
    ]);
  });

  it("V7: an unknown model in a hand-built request is an issue, not a crash", () => {
    const found = verdict({ ...request("beta"), modelId: "omega" as ModelId });
    expect(found).toEqual([
      { path: "modelId", code: "unknown_model", message: expect.stringContaining("beta2") },
    ]);
    expect(verdict({ ...request("beta"), modelId: "constructor" as ModelId })[0]?.code).toBe(
      "unknown_model",
    );
  });

  it("N11: a hand-built request with a fractional or missing imageCount is rejected, never priced", () => {
    expect(verdict(request("beta", { imageCount: 1.5 }))[0]).toMatchObject({
      path: "imageCount",
      code: "not_integer",
    });
    expect(verdict(request("beta", { imageCount: 0 }))[0]).toMatchObject({ path: "imageCount" });
    expect(
      verdict({ ...request("beta"), inputAssetIds: "a" as unknown as string[] })[0],
    ).toMatchObject({
      path: "inputAssetIds",
    });
  });
});

describe("V1-V6: hand-built requests (not from normalizeRequest) are checked, never crash", () => {
  const base = ok({ modelId: "beta" });

  it("V6: ids of any type are counted, not trimmed into a crash", () => {
    const r = validateForModel({
      ...base,
      generationType: "image-to-image",
      inputAssetIds: [1, 1, "a", " a"],
    } as never);
    expect(r.success).toBe(true);
    const gamma = validateForModel({
      ...ok({ modelId: "gamma-image-1.5" }),
      inputAssetIds: [1, 2],
    } as never);
    expect(issuesOf(gamma).map((i) => i.code)).toEqual(["too_many_references"]);
  });

  it("N11/N12: a non-integer imageCount or a non-array inputAssetIds is an issue with its message", () => {
    expect(issuesOf(validateForModel({ ...base, imageCount: 1.5 }))).toEqual([
      {
        path: "imageCount",
        code: "not_integer",
        message: "imageCount must be a whole number; received 1.5.",
      },
    ]);
    expect(issuesOf(validateForModel({ ...base, inputAssetIds: "a" as never }))).toEqual([
      {
        path: "inputAssetIds",
        code: "invalid_type",
        message: 'inputAssetIds must be an array of asset id strings; received "a".',
      },
    ]);
  });

  it("V1/V3/V4: a hand-built request without a ratio, quality or background is told so, not taken for a missing resolution", () => {
    for (const [field, code] of [
      ["aspectRatio", "unsupported_aspect_ratio"],
      ["quality", "unsupported_quality"],
      ["background", "unsupported_background"],
    ] as const) {
      const { [field]: _, ...without } = ok({ modelId: "alpha-img2", resolution: "1K" });
      expect(issuesOf(validateForModel(without as GenerationRequest))).toEqual([
        {
          path: field,
          code,
          message: expect.stringMatching(
            new RegExp(`^${field} undefined is not supported by alpha-img2; use one of `),
          ),
        },
      ]);
    }
  });
});
