/**
 * The 202 body of an accepted generation (S3), rendered from the task alone: what the task held at
 * acceptance decides every byte, so the body stored for a replay is the body that was sent.
 */
import { jobId } from "./ids.js";
import type { GenerationAccepted } from "./schemas.js";
import type { TaskRecord } from "./store.js";

/**
 * Serializes the 202 body of a task as accepted: every job `queued`, no assets yet.
 *
 * @param task - The task, with its `balanceAfter`.
 * @returns The JSON text.
 * @internal
 */
export function renderAccepted(task: TaskRecord): string {
  const r = task.request;
  let totalCreditCost = 0;
  const results: GenerationAccepted["batch"]["results"] = [];
  for (let i = 0; i < task.jobCredits.length; i++) {
    totalCreditCost += task.jobCredits[i] ?? 0;
    results.push({ job: { id: jobId(task.id, i), status: "queued" }, assets: [] });
  }
  const balanceAfterCredits = task.balanceAfter;
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
      results,
      totalCreditCost,
      balanceAfterCredits,
    },
    billing: { totalCreditCost, balanceAfterCredits },
  };
  return JSON.stringify(body);
}
