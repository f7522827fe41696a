import { describe, expect, it } from "vitest";
import { handleGeneration } from "./backend.js";

describe("recipe: a backend endpoint on the core", () => {
  it("P4: charges 25 x 2.3 per image as 58, never the 57 a float gives, and P5: sums the lines", () => {
    const account = { multiplier: "2.3", balance: 1000, assets: new Set<string>() };
    const answer = handleGeneration({ prompt: "a cat", modelId: "beta", imageCount: 3 }, account);
    expect(answer).toEqual({
      status: 202,
      body: { totalCreditCost: 174, balanceAfterCredits: 826 },
    });
    expect(account.balance).toBe(826);
  });

  it("P6: a reference the user does not own is refused and nothing is debited", () => {
    const account = { multiplier: "1", balance: 1000, assets: new Set(["ast_mine"]) };
    const body = {
      prompt: "edit",
      generationType: "image-to-image",
      inputAssetIds: ["ast_mine", "ast_other"],
    };
    expect(handleGeneration(body, account)).toEqual({
      status: 400,
      body: { error: { code: "asset_not_found", param: "inputAssetIds[1]" } },
    });
    expect(account.balance).toBe(1000);
  });

  it("N15: every issue of a bad body comes back at once", () => {
    const answer = handleGeneration(
      { prompt: "", imageCount: 0, cost: 1 },
      { multiplier: "1", balance: 0, assets: new Set() },
    );
    expect(answer.status).toBe(400);
    const issues = (answer.body as { error: { issues: { path: string }[] } }).error.issues;
    expect(issues.map((issue) => issue.path).sort()).toEqual(["cost", "imageCount", "prompt"]);
  });

  it("N15: a shape problem and two model limits (V1, V5) in one body are all reported", () => {
    const body = { prompt: " ", modelId: "gamma-image-1.5", aspectRatio: "21:9", imageCount: 12 };
    const answer = handleGeneration(body, { multiplier: "1", balance: 1000, assets: new Set() });
    expect(answer.status).toBe(400);
    const issues = (answer.body as { error: { issues: { path: string }[] } }).error.issues;
    expect(issues.map((issue) => issue.path)).toEqual(["prompt", "aspectRatio", "imageCount"]);
  });

  it("S4: too few credits is 402 and the balance is unchanged", () => {
    const account = { multiplier: "1", balance: 10, assets: new Set<string>() };
    expect(handleGeneration({ prompt: "x", modelId: "beta" }, account).status).toBe(402);
    expect(account.balance).toBe(10);
  });
});
