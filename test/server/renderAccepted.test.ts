/** The 202 body of an accepted generation is the documented shape, byte for byte, whatever its text. */
import { describe, expect, it } from "vitest";
import type { GenerationAccepted } from "../../scripts/openapi/schemas.js";
import { renderAccepted } from "../../src/server/generations.js";
import type { TaskRecord } from "../../src/store/store.js";
import { sampleRequest } from "../support/storeContract.js";

/** The body as JSON.stringify writes the documented object. */
function reference(task: TaskRecord): string {
  const r = task.request;
  const body: GenerationAccepted = {
    batch: {
      taskId: task.id,
      request: {
        imageCount: r.imageCount,
        modelId: r.modelId,
        aspectRatio: r.aspectRatio,
        resolution: r.resolution,
        prompt: r.prompt,
      },
      results: task.jobCredits.map((_, i) => ({
        job: { id: `job_${task.id.slice(5)}_${i}`, status: "queued" },
        assets: [],
      })),
      totalCreditCost: task.totalCredits,
      balanceAfterCredits: task.balanceAfter,
    },
    billing: { totalCreditCost: task.totalCredits, balanceAfterCredits: task.balanceAfter },
  };
  return JSON.stringify(body);
}

function task(id: string, prompt: string, jobCredits: number[], balanceAfter: number): TaskRecord {
  return {
    id,
    userId: "usr_1",
    createdAt: 0,
    request: sampleRequest({ prompt, imageCount: jobCredits.length, idempotencyKey: "k" }),
    clientKey: true,
    referenceCount: 0,
    multiplier: "1",
    catalogVersion: "v1",
    jobCredits,
    totalCredits: jobCredits.reduce((a, b) => a + b, 0),
    balanceAfter,
    jobStatus: jobCredits.map(() => "queued"),
  };
}

describe("the 202 body of an accepted generation", () => {
  it("S3: is the documented object as JSON writes it: one job, several, none; prompts that need escaping", () => {
    const prompts = [
      "a fox",
      'quote " backslash \\ slash /',
      "tab\tnew\nline\u0000\u001f",
      "é 😀 \u2028",
      "\ud800 lone",
      "",
    ];
    const ids = ["task_00ff1234abcd5678757372", 'task_"odd\\id', "task_"];
    const jobs = [[1], [3, 3, 3, 3], [], [0, 9_007_199_254_740_991]];
    for (const prompt of prompts) {
      for (const id of ids) {
        for (const credits of jobs) {
          const t = task(id, prompt, credits, 1_000_000_000_000);
          expect(renderAccepted(t), `${id} ${prompt} ${credits.length}`).toBe(reference(t));
        }
      }
    }
  });
});
