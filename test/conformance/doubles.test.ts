/**
 * The test-bed of the conformance proof, checked on its own: each broken server really has its bug
 * over HTTP (and the same probe on the unbroken double answers correctly), and the alternative
 * implementation answers correct requests exactly as the package's core prices them, with its own
 * choices where the interface is silent.
 */
import { afterAll, describe, expect, it } from "vitest";
import { checkRequest, computeCharge, quote } from "../../src/index.js";
import { BROKEN_SERVERS } from "./servers/breaks.js";
import { type ListeningDouble, listenDouble } from "./servers/http.js";
import { ADMIN_TOKEN, at, call, PROBES } from "./servers/probes.js";

const started: ListeningDouble[] = [];
afterAll(async () => {
  await Promise.all(started.map((d) => d.close()));
});

async function start(options: Parameters<typeof listenDouble>[0] = {}) {
  const d = await listenDouble({ adminToken: ADMIN_TOKEN, ...options });
  started.push(d);
  return d;
}

describe("each broken server has its bug over HTTP", () => {
  for (const broken of BROKEN_SERVERS) {
    it(`${broken.rule}: ${broken.bug} (${broken.breaks})`, async () => {
      const probe = PROBES[broken.breaks];
      const [correct, buggy] = await Promise.all([start(), start({ breaks: broken.breaks })]);
      expect(await probe.show(correct)).toEqual(probe.correct);
      expect(await probe.show(buggy)).not.toEqual(probe.correct);
    });
  }
});

describe("the alternative implementation", () => {
  const requests = [
    { prompt: "a", modelId: "beta2", resolution: "4K", imageCount: 3 },
    { prompt: " b ", modelId: "alpha-img2-5-sunburst", quality: "high", aspectRatio: "21:9" },
    { prompt: "c", modelId: "alpha-img2", resolution: "1K", imageCount: 8 },
    { prompt: "d", modelId: "gamma-image-1.5", imageCount: 10, aspectRatio: "3:2" },
    { prompt: "e", quality: "medium", resolution: "4K", imageCount: 2 },
  ];
  for (const [index, body] of requests.entries()) {
    it(`P4, P5, S3, S4: correct request ${index + 1} is charged what computeCharge says`, async () => {
      const d = await start({ multiplier: "1.15" });
      const checked = checkRequest(body);
      if (!checked.success) {
        throw new Error("the example request is valid");
      }
      const expected = computeCharge(checked.output, { account: { multiplier: "1.15" } });
      const before = d.balance();
      const answer = await call(d, "POST", "/api/generations", body);
      expect(answer.status).toBe(202);
      expect(at(answer.body, "billing.totalCreditCost")).toBe(expected.totalCreditCost);
      expect(at(answer.body, "batch.totalCreditCost")).toBe(expected.totalCreditCost);
      expect(at(answer.body, "billing.balanceAfterCredits")).toBe(
        before - expected.totalCreditCost,
      );
      expect(before - d.balance()).toBe(expected.totalCreditCost);
      expect(at(answer.body, "batch.results")).toHaveLength(checked.output.imageCount);
      const spec = {
        kind: "image",
        modelId: checked.output.modelId,
        resolution: checked.output.resolution,
        quality: checked.output.quality,
      } as const;
      const quoted = await call(d, "POST", "/api/pricing/quote", spec);
      expect(quoted.body).toEqual({
        credits: quote(spec, { account: { multiplier: "1.15" } }).credits,
      });
    });
  }

  it("P6: image-to-image charges the distinct owned references and leaves a foreign one out", async () => {
    const d = await start();
    const [a, b] = d.assets;
    const body = {
      prompt: "x",
      modelId: "alpha-img2-official",
      resolution: "1K",
      generationType: "image-to-image",
      inputAssetIds: [a, ` ${a} `, b, d.foreignAsset],
    };
    const answer = await call(d, "POST", "/api/generations", body);
    expect(answer.status).toBe(202);
    expect(at(answer.body, "billing.totalCreditCost")).toBe(48); // (18 + 2 x 10) x 1.25 = 47.5
  });

  it("S5: a replay returns the first body and charges nothing; another body with the key is refused", async () => {
    const d = await start();
    const body = { prompt: "x", resolution: "1K", idempotencyKey: "once" };
    const first = await call(d, "POST", "/api/generations", body);
    const balance = d.balance();
    const replay = await call(d, "POST", "/api/generations", { ...body, quality: "low" });
    expect(replay.body).toEqual(first.body);
    const other = await call(d, "POST", "/api/generations", { ...body, prompt: "y" });
    expect(other.status).toBe(422);
    expect(d.balance()).toBe(balance);
  });

  it("S1, S12: its silent choices: 403 and 422 without codes, no Request-Id, no replay header", async () => {
    const d = await start();
    const lower = await call(d, "GET", "/api/ping", undefined, `bearer ${d.key}`);
    expect(lower.status).toBe(403);
    expect(lower.body).toEqual({ error: { message: expect.any(String), type: "authentication" } });
    const refused = await call(d, "POST", "/api/generations", { prompt: "" });
    expect(refused.status).toBe(422);
    expect(at(refused.body, "error.code")).toBeUndefined();
    expect(refused.headers.get("request-id")).toBeNull();
    const unknown = await call(d, "DELETE", "/api/ping");
    expect(unknown.status).toBe(404);
  });

  it("N12, N14, V3: null is absent, quality is free where the price ignores it, text-to-image ignores references", async () => {
    const d = await start();
    const body = {
      prompt: "x",
      modelId: "beta2",
      resolution: "1K",
      quality: "high",
      background: null,
      inputAssetIds: ["ast_nobody_1"],
    };
    const answer = await call(d, "POST", "/api/generations", body);
    expect(answer.status).toBe(202);
    expect(at(answer.body, "billing.totalCreditCost")).toBe(75);
    const quoted = await call(d, "POST", "/api/pricing/quote", {
      kind: "image",
      modelId: "beta2",
      resolution: "1K",
      quality: "high",
      colour: "red",
    });
    expect(quoted.body).toEqual({ credits: 75 });
  });

  it("S5: a lost answer is a create carried out in full, and its keyed retry replays it", async () => {
    const d = await start({ loseAnswers: 1 });
    const body = { prompt: "x", resolution: "1K", idempotencyKey: "lost-once" };
    await expect(call(d, "POST", "/api/generations", body)).rejects.toThrow();
    expect(d.lostAnswers()).toBe(1);
    expect(d.balance()).toBe(100_000 - 23);
    const retry = await call(d, "POST", "/api/generations", body);
    expect(retry.status).toBe(202);
    expect(at(retry.body, "billing.totalCreditCost")).toBe(23);
    expect(d.balance()).toBe(100_000 - 23);
  });

  it("S9, S10: ping and credits answer the interface's fields", async () => {
    const d = await start();
    const ping = await call(d, "GET", "/api/ping");
    expect(ping.body).toEqual({
      ok: true,
      service: expect.any(String),
      authProvider: "api_key",
      userId: d.userId,
      apiKeyId: d.apiKeyId,
    });
    const credits = await call(d, "GET", "/api/query/credits");
    expect(credits.body).toEqual({
      creditBalance: d.balance(),
      currency: "credits",
      userId: d.userId,
      apiKeyId: d.apiKeyId,
    });
  });
});
