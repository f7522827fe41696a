/**
 * The largest balance, 2^53 - 1, through the admin API: a grant counts the credits queued jobs hold,
 * so a refund never passes the bound and never invents a credit, on every store.
 */
import { describe, expect, it } from "vitest";
import { MAX_CREDITS } from "../../src/store/store.js";
import { adminCodeOf, setup } from "./helpers.js";

type Accepted = {
  batch: { results: { job: { id: string } }[] };
  billing: { totalCreditCost: number };
};

describe("the largest balance", () => {
  it("S15: at 2^53 - 1, charged, a grant of the charge is credits_too_large naming the held credits; the refund is paid exactly", async () => {
    const s = await setup({ credits: MAX_CREDITS });
    const res = await s.generate({ prompt: "p", modelId: "beta-pro", resolution: "4K" });
    expect(res.status).toBe(202);
    const body = (await res.json()) as Accepted;
    const charge = body.billing.totalCreditCost;
    expect(charge).toBeGreaterThan(0);

    const refused = s.admin.grantCredits(s.userId, charge);
    expect(await adminCodeOf(refused)).toBe("credits_too_large");
    await expect(s.admin.grantCredits(s.userId, charge)).rejects.toThrow(
      `credits: a balance of ${MAX_CREDITS - charge}, ${charge} held by queued jobs (refunds may return them), plus ${charge} would pass the largest exact balance`,
    );
    expect(await s.admin.balance(s.userId)).toBe(MAX_CREDITS - charge);

    const jobId = body.batch.results[0]?.job.id as string;
    expect(await s.admin.failJob(jobId)).toEqual({ refundedCredits: charge });
    expect(await s.admin.balance(s.userId)).toBe(MAX_CREDITS);
    let exact = 0n;
    for (const entry of await s.admin.ledger(s.userId)) {
      exact += entry.kind === "debit" ? -BigInt(entry.credits) : BigInt(entry.credits);
    }
    expect(exact).toBe(BigInt(MAX_CREDITS));
  });
});
