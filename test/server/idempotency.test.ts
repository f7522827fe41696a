import { describe, expect, it } from "vitest";
import { errorOf, setup } from "./helpers.js";

describe("idempotency", () => {
  it("S5: the same key and request replays the original 202 byte for byte and charges nothing", async () => {
    const s = await setup();
    const body = { prompt: "a fox", modelId: "beta2", imageCount: 2, idempotencyKey: "order-1" };
    const first = await s.generate(body);
    const firstText = await first.text();
    const second = await s.generate(body);
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(firstText);
    expect(second.headers.get("request-id")).not.toBe(first.headers.get("request-id"));
    expect(await s.admin.balance(s.userId)).toBe(1000 - 160);
    expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
  });

  it("S5: an omitted default equals the same value sent, and whitespace is trimmed first", async () => {
    const s = await setup();
    const first = await s.generate({ prompt: "a fox", idempotencyKey: "k" });
    const firstText = await first.text();
    const same = [
      { prompt: " a fox ", idempotencyKey: " k " },
      {
        prompt: "a fox",
        modelId: "alpha-img2-official",
        generationType: "text-to-image",
        aspectRatio: "9:16",
        resolution: "2K",
        quality: "low",
        background: "auto",
        imageCount: 1,
        inputAssetIds: [],
        idempotencyKey: "k",
      },
    ];
    for (const body of same) {
      const res = await s.generate(body);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(await res.text()).toBe(firstText);
    }
    expect(await s.admin.balance(s.userId)).toBe(1000 - 18);
  });

  it("S5: the replay stands after the balance, the multiplier and the user's keys changed", async () => {
    const s = await setup({ credits: 100 });
    const body = { prompt: "p", modelId: "beta", imageCount: 4, idempotencyKey: "all-in" };
    const first = await s.generate(body);
    const firstText = await first.text();
    expect(await s.admin.balance(s.userId)).toBe(0);
    await s.admin.setPriceMultiplier(s.userId, "3");
    await s.admin.revokeApiKey(s.apiKeyId);
    const { key } = await s.admin.createApiKey(s.userId);
    const again = await s.generate(body, { authorization: `Bearer ${key}` });
    expect(again.status).toBe(202); // not 402, although the balance is 0 and the price tripled
    expect(await again.text()).toBe(firstText);
    expect(await s.admin.balance(s.userId)).toBe(0);
  });

  it("S5: the same key with a different request is 409 idempotency_key_reused, and changes nothing", async () => {
    const s = await setup();
    await s.generate({ prompt: "p", idempotencyKey: "k" });
    const ledger = await s.admin.ledger(s.userId);
    for (const body of [
      { prompt: "q", idempotencyKey: "k" },
      { prompt: "p", imageCount: 2, idempotencyKey: "k" },
      { prompt: "p", quality: "medium", idempotencyKey: "k" },
    ]) {
      const res = await s.generate(body);
      expect(res.status).toBe(409);
      expect(await errorOf(res)).toMatchObject({
        code: "idempotency_key_reused",
        param: "idempotencyKey",
      });
    }
    expect(await s.admin.ledger(s.userId)).toEqual(ledger);
  });

  it("S5: keys are scoped per user", async () => {
    const s = await setup();
    const other = await s.admin.createUser({ credits: 1000 });
    const otherKey = (await s.admin.createApiKey(other.userId)).key;
    await s.generate({ prompt: "p", idempotencyKey: "shared" });
    const res = await s.generate(
      { prompt: "different", idempotencyKey: "shared" },
      { authorization: `Bearer ${otherKey}` },
    );
    expect(res.status).toBe(202);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await s.admin.balance(other.userId)).toBe(1000 - 18);
  });

  it("S5: concurrent requests with one key charge once; the others replay the same body", async () => {
    const s = await setup();
    const body = { prompt: "p", modelId: "beta2", idempotencyKey: "race" };
    const responses = await Promise.all(Array.from({ length: 25 }, () => s.generate(body)));
    const texts = await Promise.all(responses.map((r) => r.text()));
    expect(responses.every((r) => r.status === 202)).toBe(true);
    expect(new Set(texts).size).toBe(1);
    expect(responses.filter((r) => r.headers.get("idempotent-replayed") === "true")).toHaveLength(
      24,
    );
    expect(await s.admin.balance(s.userId)).toBe(1000 - 80);
  });

  it("S5: concurrent different requests with one key: exactly one is accepted, the rest are 409", async () => {
    const s = await setup();
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        s.generate({ prompt: `p${i}`, modelId: "beta2", idempotencyKey: "race" }),
      ),
    );
    expect(responses.filter((r) => r.status === 202)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 80);
  });

  it("S5: a rejected request (400 asset, 402) does not use its key up", async () => {
    const s = await setup({ credits: 10 });
    const body = { prompt: "p", modelId: "beta", idempotencyKey: "retry-me" };
    expect((await s.generate(body)).status).toBe(402);
    const badAsset = {
      prompt: "p",
      generationType: "image-to-image",
      inputAssetIds: ["nope"],
      idempotencyKey: "other",
    };
    expect((await s.generate(badAsset)).status).toBe(400);
    await s.admin.grantCredits(s.userId, 100);
    const ok = await s.generate(body);
    expect(ok.status).toBe(202);
    expect(ok.headers.get("idempotent-replayed")).toBeNull();
    // The key rejected for its asset is free for a different request.
    expect(
      (await s.generate({ prompt: "p", modelId: "beta", idempotencyKey: "other" })).status,
    ).toBe(202);
    expect(await s.admin.balance(s.userId)).toBe(110 - 50);
  });

  it("S5: with no window (the default) a retry 48 hours later replays the original task and charges nothing", async () => {
    let now = Date.UTC(2026, 0, 1);
    const s = await setup({ now: () => now });
    const body = { prompt: "p", idempotencyKey: "order-48h" };
    const first = await s.generate(body);
    const firstText = await first.text();
    now += 48 * 60 * 60 * 1000;
    const retry = await s.generate(body);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(firstText);
    now += 365 * 24 * 60 * 60 * 1000; // a year on, still the same task
    expect((await s.generate({ prompt: "another", idempotencyKey: "order-48h" })).status).toBe(409);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 18);
    expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
  });

  it("S5: with idempotencyTtlMs a key expires that long after its task: a retry after the window is a new task", async () => {
    let now = Date.UTC(2026, 0, 1);
    const window = 24 * 60 * 60 * 1000;
    const s = await setup({ now: () => now, idempotencyTtlMs: window });
    const body = { prompt: "p", idempotencyKey: "daily" };
    const first = await s.generate(body);
    const firstTask = ((await first.json()) as { batch: { taskId: string } }).batch.taskId;
    now += window - 1;
    expect((await s.generate(body)).headers.get("idempotent-replayed")).toBe("true");
    now += 1;
    const fresh = await s.generate(body);
    expect(fresh.status).toBe(202);
    expect(fresh.headers.get("idempotent-replayed")).toBeNull();
    expect(((await fresh.json()) as { batch: { taskId: string } }).batch.taskId).not.toBe(
      firstTask,
    );
    expect(await s.admin.balance(s.userId)).toBe(1000 - 36);
    // After the window the key is free for a different request too.
    now += window;
    expect((await s.generate({ prompt: "other", idempotencyKey: "daily" })).status).toBe(202);
  });

  it("S5: an idempotencyTtlMs past 100 years is refused when the server is made, with a RangeError naming the range; the longest keeps a key on this store", async () => {
    for (const ttl of [2 ** 53 - 1, 3_155_760_000_001, 0, Number.POSITIVE_INFINITY]) {
      await expect(setup({ idempotencyTtlMs: ttl })).rejects.toThrow(
        /idempotencyTtlMs must be whole milliseconds from 1 to 3155760000000 \(100 years\)/,
      );
    }
    const s = await setup({ idempotencyTtlMs: 3_155_760_000_000 });
    const body = { prompt: "a fox", idempotencyKey: "order-1042" };
    const first = await s.generate(body);
    expect(first.status).toBe(202);
    const replay = await s.generate(body);
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([202, "true"]);
    expect(await replay.text()).toBe(await first.text());
  });

  it("S5: a replay renders the first 202 byte for byte from the stored task, after the balance changed", async () => {
    const s = await setup({ credits: 1000 });
    const body = {
      prompt: "a fox",
      modelId: "beta-pro",
      resolution: "4K",
      imageCount: 2,
      idempotencyKey: "render-me",
    };
    const first = await s.generate(body);
    const firstText = await first.text();
    expect(JSON.parse(firstText).billing).toEqual({
      totalCreditCost: 200,
      balanceAfterCredits: 800,
    });
    await s.admin.grantCredits(s.userId, 123);
    await s.generate({ prompt: "another task", modelId: "beta" });
    await s.admin.failJob(JSON.parse(firstText).batch.results[0].job.id); // even a failed job does not change it
    expect(await s.admin.balance(s.userId)).toBe(1000 - 200 + 123 - 25 + 100);
    const replay = await s.generate(body);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await replay.text()).toBe(firstText); // balanceAfterCredits is still the one the first answer said
  });
});
