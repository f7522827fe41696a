/** Job ids: each job has exactly one id, the one the 202 answer gave. */
import { describe, expect, it } from "vitest";
import { adminCodeOf, setup } from "./helpers.js";

type Accepted = { batch: { taskId: string; results: { job: { id: string } }[] } };

describe("job ids", () => {
  it("S6: only the spelling the 202 gave names a job; leading zeros in the index name nothing and refund nothing", async () => {
    const s = await setup({ credits: 10_000 });
    const body = (await (
      await s.generate({ prompt: "p", modelId: "beta2", imageCount: 2 })
    ).json()) as Accepted;
    const [job0, job1] = body.batch.results.map((r) => r.job.id) as [string, string];
    expect(job0).toMatch(/^job_[0-9a-f]+_0$/);
    expect(job1).toMatch(/^job_[0-9a-f]+_1$/);
    const balance = await s.admin.balance(s.userId);
    for (const alias of [
      `${job0}0`,
      job0.replace(/_0$/, "_00"),
      job1.replace(/_1$/, "_01"),
      job1.replace(/_1$/, "_001"),
    ]) {
      expect(await adminCodeOf(s.admin.job(alias)), alias).toBe("unknown_job");
      expect(await adminCodeOf(s.admin.failJob(alias)), alias).toBe("unknown_job");
    }
    expect(await s.admin.balance(s.userId)).toBe(balance);
    expect((await s.admin.job(job1)).status).toBe("queued");
    expect((await s.admin.failJob(job1)).refundedCredits).toBeGreaterThan(0);
  });
});
