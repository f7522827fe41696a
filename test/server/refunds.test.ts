import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AdminError } from "../../src/server/index.js";
import { ledgerBalance } from "../support/ledger.js";
import { setup } from "./helpers.js";

type Accepted = {
  batch: { taskId: string; results: { job: { id: string } }[] };
  billing: { totalCreditCost: number };
};

describe("refunds and the ledger", () => {
  it("S6: a failed job refunds exactly its own charge, once; failing it again refunds nothing", async () => {
    const s = await setup({ credits: 1000, multiplier: "1.5" });
    const res = await s.generate({
      prompt: "p",
      modelId: "beta-pro",
      resolution: "4K",
      imageCount: 3,
    });
    const body = (await res.json()) as Accepted;
    expect(body.billing.totalCreditCost).toBe(450); // 100 x 1.5 per image
    const [job0, job1] = body.batch.results.map((r) => r.job.id) as [string, string];
    expect(await s.admin.failJob(job1)).toEqual({ refundedCredits: 150 });
    expect(await s.admin.balance(s.userId)).toBe(1000 - 450 + 150);
    expect(await s.admin.failJob(job1)).toEqual({ refundedCredits: 0 });
    expect(await s.admin.balance(s.userId)).toBe(700);
    expect((await s.admin.job(job1)).status).toBe("failed");
    expect((await s.admin.job(job0)).status).toBe("queued");
    const refunds = (await s.admin.ledger(s.userId)).filter((e) => e.kind === "refund");
    expect(refunds).toEqual([
      {
        kind: "refund",
        credits: 150,
        at: expect.any(String),
        taskId: body.batch.taskId,
        jobId: job1,
      },
    ]);
  });

  it("S6: an unknown job is an AdminError, and nothing is refunded", async () => {
    const s = await setup();
    for (const id of ["job_ffff_0", "nope", "job_", ""]) {
      await expect(s.admin.failJob(id)).rejects.toThrow(AdminError);
    }
    await expect(s.admin.failJob("job_ffff_0")).rejects.toMatchObject({ code: "unknown_job" });
    expect(await s.admin.balance(s.userId)).toBe(1000);
  });

  it("S7: nothing is charged retroactively: a new multiplier prices new tasks only, refunds use the stored charge", async () => {
    const s = await setup({ credits: 10_000 });
    const old = (await (
      await s.generate({ prompt: "p", modelId: "beta2", resolution: "4K", imageCount: 2 })
    ).json()) as Accepted;
    expect(old.billing.totalCreditCost).toBe(240);
    await s.admin.setPriceMultiplier(s.userId, "2.5");
    const fresh = (await (
      await s.generate({ prompt: "p", modelId: "beta2", resolution: "4K" })
    ).json()) as Accepted;
    expect(fresh.billing.totalCreditCost).toBe(300);
    expect((await s.admin.task(old.batch.taskId)).jobs.map((j) => j.credits)).toEqual([120, 120]);
    expect((await s.admin.task(old.batch.taskId)).multiplier).toBe("1");
    const oldJob = old.batch.results[0]?.job.id as string;
    expect((await s.admin.failJob(oldJob)).refundedCredits).toBe(120);
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 240 - 300 + 120);
  });

  it("S7: the quote and the charge both follow the current multiplier; old tasks keep theirs", async () => {
    const s = await setup({ credits: 10_000 });
    const quote = async () =>
      (
        (await (await s.post("/api/pricing/quote", { kind: "image", modelId: "beta" })).json()) as {
          credits: number;
        }
      ).credits;
    expect(await quote()).toBe(25);
    await s.admin.setPriceMultiplier(s.userId, 1.1);
    expect(await quote()).toBe(28); // 27.5 rounds half-up
    const res = (await (await s.generate({ prompt: "p", modelId: "beta" })).json()) as Accepted;
    expect(res.billing.totalCreditCost).toBe(28);
  });

  it("S13: every debit and refund is a ledger entry, and balance = granted - debits + refunds at every moment", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant("generate" as const),
              count: fc.integer({ min: 1, max: 4 }),
              key: fc.option(fc.constantFrom("a", "b")),
            }),
            fc.record({ op: fc.constant("fail" as const), pick: fc.nat() }),
            fc.record({
              op: fc.constant("grant" as const),
              credits: fc.integer({ min: 0, max: 200 }),
            }),
            fc.record({
              op: fc.constant("multiplier" as const),
              m: fc.constantFrom("0", "0.5", "1", "1.15", "3"),
            }),
          ),
          { maxLength: 25 },
        ),
        async (ops) => {
          const s = await setup({ credits: 300 });
          const jobs: string[] = [];
          const check = async () => {
            const ledger = await s.admin.ledger(s.userId);
            expect(await s.admin.balance(s.userId)).toBe(ledgerBalance(ledger));
            expect(await s.admin.balance(s.userId)).toBeGreaterThanOrEqual(0);
            for (const entry of ledger) {
              expect(Number.isSafeInteger(entry.credits) && entry.credits > 0).toBe(true);
              expect(Number.isNaN(Date.parse(entry.at))).toBe(false);
            }
          };
          for (const op of ops) {
            if (op.op === "generate") {
              const body: Record<string, unknown> = {
                prompt: "p",
                modelId: "beta2",
                imageCount: op.count,
              };
              if (op.key !== null) {
                body.idempotencyKey = op.key;
              }
              const res = await s.generate(body);
              expect([202, 402, 409]).toContain(res.status);
              if (res.status === 202) {
                for (const r of ((await res.json()) as Accepted).batch.results) {
                  jobs.push(r.job.id);
                }
              }
            } else if (op.op === "fail" && jobs.length > 0) {
              await s.admin.failJob(jobs[op.pick % jobs.length] as string);
            } else if (op.op === "grant") {
              await s.admin.grantCredits(s.userId, op.credits);
            } else if (op.op === "multiplier") {
              await s.admin.setPriceMultiplier(s.userId, op.m);
            }
            await check();
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("S13: the ledger lists grants, debits and refunds oldest first with ISO times", async () => {
    let now = Date.UTC(2026, 10, 20, 12, 0, 0);
    const s = await setup({ credits: 100, now: () => now });
    now += 1000;
    const body = (await (await s.generate({ prompt: "p", modelId: "beta" })).json()) as Accepted;
    now += 1000;
    await s.admin.failJob(body.batch.results[0]?.job.id as string);
    expect(await s.admin.ledger(s.userId)).toEqual([
      { kind: "grant", credits: 100, at: "2026-11-20T12:00:00.000Z" },
      { kind: "debit", credits: 25, at: "2026-11-20T12:00:01.000Z", taskId: body.batch.taskId },
      {
        kind: "refund",
        credits: 25,
        at: "2026-11-20T12:00:02.000Z",
        taskId: body.batch.taskId,
        jobId: body.batch.results[0]?.job.id,
      },
    ]);
    expect(await s.admin.balance(s.userId)).toBe(100);
  });
});
