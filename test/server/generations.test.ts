import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { GenerationAcceptedSchema } from "../../scripts/openapi/schemas.js";
import { ledgerBalance } from "../support/ledger.js";
import { errorOf, setup } from "./helpers.js";

describe("POST /api/generations", () => {
  it("S3: 202 with batch.request, one queued job per output image, and both billing copies", async () => {
    const s = await setup({ credits: 1000 });
    const res = await s.generate({
      prompt: "  a red fox ",
      modelId: "beta2",
      resolution: "4K",
      imageCount: 3,
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    const body = v.parse(GenerationAcceptedSchema, await res.json());
    expect(body.batch.request).toEqual({
      imageCount: 3,
      modelId: "beta2",
      aspectRatio: "9:16",
      resolution: "4K",
      prompt: "a red fox",
    });
    expect(body.batch.results).toHaveLength(3);
    for (const result of body.batch.results) {
      expect(result.job.id).toMatch(/^job_[0-9a-f]+_\d+$/);
      expect(result.job.status).toBe("queued");
      expect(result.assets).toEqual([]);
    }
    expect(new Set(body.batch.results.map((r) => r.job.id)).size).toBe(3);
    // beta2 4K is 120 per image (seed table), three images.
    expect(body.billing).toEqual({ totalCreditCost: 360, balanceAfterCredits: 640 });
    expect(body.batch.totalCreditCost).toBe(360);
    expect(body.batch.balanceAfterCredits).toBe(640);
  });

  it("S3: the charge counts authorized, de-duplicated references on a surcharge model, with the multiplier", async () => {
    const s = await setup({ credits: 5000, multiplier: "1.15" });
    const [a, b] = s.assets as [string, string];
    const res = await s.generate({
      prompt: "edit",
      modelId: "alpha-img2-official",
      generationType: "image-to-image",
      quality: "medium",
      resolution: "1K",
      imageCount: 2,
      inputAssetIds: [a, b, ` ${a}`],
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { billing: { totalCreditCost: number } };
    // (60 + 2 x 10) x 1.15 = 92 per image; two images.
    expect(body.billing.totalCreditCost).toBe(184);
    expect(await s.admin.balance(s.userId)).toBe(5000 - 184);
  });

  it("S3: a cost sent by the client is an unknown field, never used", async () => {
    const s = await setup();
    const res = await s.generate({ prompt: "p", totalCreditCost: 0 });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.issues).toContainEqual(
      expect.objectContaining({ path: "totalCreditCost", code: "unknown_field" }),
    );
    expect(await s.admin.balance(s.userId)).toBe(1000);
  });

  it("S4: the whole charge is debited on acceptance, with one ledger entry for the task", async () => {
    const s = await setup({ credits: 100 });
    const res = await s.generate({ prompt: "p", modelId: "beta", imageCount: 4 });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { batch: { taskId: string } };
    expect(await s.admin.balance(s.userId)).toBe(0); // 4 x 25, to the last credit
    const ledger = await s.admin.ledger(s.userId);
    expect(ledger.map((e) => [e.kind, e.credits, e.taskId])).toEqual([
      ["grant", 100, undefined],
      ["debit", 100, body.batch.taskId],
    ]);
  });

  it("S4: too few credits is 402 and nothing changes: balance, ledger, tasks, the key", async () => {
    const s = await setup({ credits: 99 });
    const before = await s.admin.ledger(s.userId);
    const res = await s.generate({
      prompt: "p",
      modelId: "beta",
      imageCount: 4,
      idempotencyKey: "k",
    });
    expect(res.status).toBe(402);
    const error = await errorOf(res);
    expect(error.code).toBe("insufficient_credits");
    expect(error.message).toContain("100");
    expect(await s.admin.balance(s.userId)).toBe(99);
    expect(await s.admin.ledger(s.userId)).toEqual(before);
    const credits = await s.get("/api/query/credits");
    expect(((await credits.json()) as { creditBalance: number }).creditBalance).toBe(99);
  });

  it("S4: the balance never goes below zero, however many requests race for it", async () => {
    const s = await setup({ credits: 250 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => s.generate({ prompt: "p", modelId: "beta" })),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((x) => x === 202)).toHaveLength(10);
    expect(statuses.filter((x) => x === 402)).toHaveLength(10);
    expect(await s.admin.balance(s.userId)).toBe(0);
    expect(ledgerBalance(await s.admin.ledger(s.userId))).toBe(0);
  });

  it("S8: a task stores ratio, resolution, quality, background, per-job charges and the normalized request", async () => {
    const s = await setup({ credits: 10_000, multiplier: 2 });
    const [a] = s.assets as [string];
    const res = await s.generate({
      prompt: " sunset ",
      modelId: " alpha-img2-5-flare ",
      generationType: "image-to-image",
      aspectRatio: "21:9",
      quality: "high",
      background: "transparent",
      imageCount: 2,
      inputAssetIds: [a, a],
      idempotencyKey: " my-key ",
    });
    expect(res.status).toBe(202);
    const { batch } = (await res.json()) as {
      batch: { taskId: string; results: { job: { id: string } }[] };
    };
    const task = await s.admin.task(batch.taskId);
    expect(task).toMatchObject({
      aspectRatio: "21:9",
      resolution: "1K",
      quality: "high",
      background: "transparent",
      referenceCount: 1,
      multiplier: "2",
      totalCreditCost: 1040,
      clientIdempotencyKey: true,
    });
    // (250 + 10) x 2 = 520 per image.
    expect(task.jobs).toEqual(
      batch.results.map((r) => ({
        jobId: r.job.id,
        taskId: batch.taskId,
        status: "queued",
        credits: 520,
      })),
    );
    expect(task.request).toEqual({
      prompt: "sunset",
      modelId: "alpha-img2-5-flare",
      generationType: "image-to-image",
      aspectRatio: "21:9",
      resolution: "1K",
      quality: "high",
      background: "transparent",
      imageCount: 2,
      inputAssetIds: [a],
      idempotencyKey: "my-key",
    });
  });

  it("S8: without a client key the server makes a random one and stores it in the snapshot (N13)", async () => {
    const s = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await s.generate({ prompt: "p" });
      const { batch } = (await res.json()) as { batch: { taskId: string } };
      const task = await s.admin.task(batch.taskId);
      expect(task.clientIdempotencyKey).toBe(false);
      expect(task.request.idempotencyKey).toMatch(/^srv_[0-9a-f]{32}$/);
      ids.push(task.request.idempotencyKey as string);
    }
    expect(ids[0]).not.toBe(ids[1]);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 2 * 18); // two tasks, two charges
  });

  it("S3: request rules of the core apply: every issue is reported with its path", async () => {
    const s = await setup();
    const res = await s.generate({
      prompt: " ",
      modelId: "gamma-image-1.5",
      aspectRatio: "4:3",
      imageCount: 11,
      quality: "auto",
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    const paths = (error.issues as { path: string }[]).map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["prompt", "quality"]));
    const model = await s.generate({
      prompt: "p",
      modelId: "gamma-image-1.5",
      aspectRatio: "4:3",
      imageCount: 11,
    });
    const modelError = await errorOf(model);
    expect((modelError.issues as { code: string }[]).map((i) => i.code).sort()).toEqual([
      "too_many_images",
      "unsupported_aspect_ratio",
    ]);
    expect(await s.admin.balance(s.userId)).toBe(1000);
  });
});
