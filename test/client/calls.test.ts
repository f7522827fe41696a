/**
 * The client's calls against the reference server in process: what each resolves to, the local
 * check before a create, the key a create sends, the estimate, and the typed errors.
 */

import type * as v from "valibot";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import type * as server from "../../scripts/openapi/schemas.js";
import { ANSWER_SCHEMAS } from "../../src/client/answers.js";
import {
  type CreditsAnswer,
  createClient,
  type GenerationAccepted,
  ImagegenError,
  type PingAnswer,
  type QuoteAnswer,
} from "../../src/client/index.js";
import { checkRequest, computeCharge, type QuoteSpec, quote } from "../../src/index.js";
import { createAttempts, double, IN_PROCESS, ledgerOf, rejection } from "./helpers.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("the answers", () => {
  it("S9, S10: ping and credits resolve to the service's bodies", async () => {
    const d = await double({ credits: 700 });
    expect(await d.client.ping()).toEqual({
      ok: true,
      service: "imagegen-pricing-reference",
      authProvider: "api_key",
      userId: d.userId,
      apiKeyId: d.apiKeyId,
    });
    expect(await d.client.credits()).toEqual({
      creditBalance: 700,
      currency: "credits",
      userId: d.userId,
      apiKeyId: d.apiKeyId,
    });
  });

  it("S11, P2: quote resolves to the core's quote at the account's multiplier, priceable or not", async () => {
    const d = await double({ multiplier: "1.15" });
    const account = { multiplier: "1.15" };
    for (const spec of [
      { kind: "image", modelId: "beta2", resolution: "4K" },
      { kind: "image", modelId: "alpha-img2-5-flare", quality: "xhigh" },
      { kind: "image", modelId: "alpha-img2-official", quality: "high", referenceImageCount: 3 },
    ] as unknown as QuoteSpec[]) {
      expect(await d.client.quote(spec)).toEqual(quote(spec, { account }));
    }
  });

  it("the answer types are the server's own, assignable both ways (checked by tsc, which npm test runs)", () => {
    expectTypeOf<GenerationAccepted>().toEqualTypeOf<server.GenerationAccepted>();
    expectTypeOf<PingAnswer>().toEqualTypeOf<server.PingAnswer>();
    expectTypeOf<CreditsAnswer>().toEqualTypeOf<server.CreditsAnswer>();
    // The client's quote is the core's Quote (its reason a QuoteReason, not any string): narrower, and assignable to the server's.
    expectTypeOf<QuoteAnswer>().toExtend<server.QuoteAnswer>();
    expectTypeOf<server.NextChange>().toEqualTypeOf<NonNullable<QuoteAnswer["nextChange"]>>();
  });

  it("S3, S9, S10, S11: the shapes the client checks each 2xx against are exactly the answer types (checked by tsc)", () => {
    type Out<K extends keyof typeof ANSWER_SCHEMAS> = v.InferOutput<(typeof ANSWER_SCHEMAS)[K]>;
    expectTypeOf<Out<"accepted">>().toEqualTypeOf<GenerationAccepted>();
    expectTypeOf<Out<"ping">>().toEqualTypeOf<PingAnswer>();
    expectTypeOf<Out<"credits">>().toEqualTypeOf<CreditsAnswer>();
    // A union: compared by assignability both ways.
    type Quoted = Out<"quote">;
    type Both = [Quoted] extends [QuoteAnswer]
      ? [QuoteAnswer] extends [Quoted]
        ? true
        : false
      : false;
    expectTypeOf<Both>().toEqualTypeOf<true>();
    expect(Object.keys(ANSWER_SCHEMAS)).toEqual(["accepted", "quote", "ping", "credits"]);
  });
});

describe("create", () => {
  it("S3, S4: resolves to the 202 body, and the account is charged exactly computeCharge's total", async () => {
    const d = await double({ credits: 1000, multiplier: "2.3" });
    const body = { prompt: "a fox", modelId: "beta", imageCount: 3 } as const;
    const accepted = await d.client.generations.create(body);
    const checked = checkRequest(body);
    if (!checked.success) {
      throw new Error("valid body");
    }
    const total = computeCharge(checked.output, { account: { multiplier: "2.3" } }).totalCreditCost;
    expect(total).toBe(174);
    expect(accepted.billing).toEqual({ totalCreditCost: 174, balanceAfterCredits: 826 });
    expect(accepted.batch.results).toHaveLength(3);
    expect((await ledgerOf(d.server, d.userId)).debited).toBe(174);
  });

  it("S5: without a key of the caller's, the client makes a UUID and sends it as the header and the body field", async () => {
    const d = await double();
    const sent: Request[] = [];
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: async (request) => {
        sent.push(request.clone());
        return d.server.fetch(request);
      },
    });
    await client.generations.create({ prompt: "a fox", modelId: "beta2" });
    expect(sent).toHaveLength(1);
    const request = sent[0] as Request;
    const key = request.headers.get("idempotency-key");
    expect(key).toMatch(UUID);
    expect(((await request.json()) as { idempotencyKey: string }).idempotencyKey).toBe(key);
    expect((await createAttempts(d.server)).map((a) => a.idempotencyKey)).toEqual([key]);
  });

  it("S5: the caller's key (the option or the body's) is the one sent; creating again with it resolves as the same task, charged once", async () => {
    const d = await double();
    const body = { prompt: "a fox", modelId: "beta2", imageCount: 2 } as const;
    const first = await d.client.generations.create(body, { idempotencyKey: "order-1234" });
    const again = await d.client.generations.create({ ...body, idempotencyKey: " order-1234 " });
    expect(again).toEqual(first);
    const ledger = await ledgerOf(d.server, d.userId);
    expect(ledger.debits).toHaveLength(1);
    expect(ledger.debited).toBe(first.billing.totalCreditCost);
  });

  it("N1-N15, V1-V8: a body the rules refuse rejects with invalid_request and exactly checkRequest's issues, and nothing is sent", async () => {
    const d = await double();
    const fetch = vi.fn(d.server.fetch);
    const client = createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch });
    const body = { prompt: " ", modelId: "alpha-img2", resolution: "4K", imageCount: 20, cost: 1 };
    const error = await rejection(client.generations.create(body as never));
    const checked = checkRequest(body);
    expect(checked.success).toBe(false);
    expect(error).toBeInstanceOf(ImagegenError);
    expect(error).toMatchObject({
      code: "invalid_request",
      attempts: 0,
      status: undefined,
      requestId: undefined,
    });
    expect((error as ImagegenError).issues).toEqual(checked.success ? [] : checked.issues);
    expect((error as ImagegenError).message).toMatch(
      /^The request was not sent: it breaks 4 rules/,
    );
    expect(fetch).not.toHaveBeenCalled();
    expect(await createAttempts(d.server)).toEqual([]);
  });

  it("S5, N13: a key option that is blank or differs from the body's is refused before sending", async () => {
    const d = await double();
    const mismatch = await rejection(
      d.client.generations.create({ prompt: "x", idempotencyKey: "a" }, { idempotencyKey: "b" }),
    );
    expect(mismatch).toMatchObject({
      code: "invalid_request",
      issues: [{ path: "idempotencyKey", code: "idempotency_key_mismatch" }],
    });
    // The same key, padded, is the same key (N3).
    await d.client.generations.create(
      { prompt: "x", modelId: "beta2", idempotencyKey: " k-9 " },
      { idempotencyKey: "k-9" },
    );
    const blank = await rejection(
      d.client.generations.create({ prompt: "x" }, { idempotencyKey: "  " }),
    );
    expect(blank).toMatchObject({ code: "invalid_request", issues: [{ path: "idempotencyKey" }] });
    expect((await createAttempts(d.server)).map((a) => a.idempotencyKey)).toEqual(["k-9"]);
  });
});

describe("estimate", () => {
  it("P4, P5: the exact total this account is charged: imageCount x the quote endpoint's per-image price, equal to the 202 debit", async () => {
    const d = await double({ credits: 100_000, multiplier: "1.15" });
    const { assetId } = await d.admin.createAsset(d.userId);
    const body = {
      prompt: "edit",
      modelId: "alpha-img2-official",
      quality: "medium",
      generationType: "image-to-image",
      inputAssetIds: [assetId, ` ${assetId} `],
      imageCount: 3,
    } as const;
    const estimate = await d.client.generations.estimate(body);
    // (120 + 10 x 1 reference) x 1.15 = 149.5, half-up 150 per image; three images 450.
    expect(estimate).toMatchObject({ credits: 450, perOutputCredits: 150, imageCount: 3 });
    const accepted = await d.client.generations.create(body);
    expect(accepted.billing.totalCreditCost).toBe(estimate.credits);
  });

  it("P2: a body the rules refuse has credits: null with invalid_request and its issues, says nothing was priced, and nothing is sent", async () => {
    const d = await double();
    const estimate = await d.client.generations.estimate({
      prompt: "x",
      modelId: "alpha-img2-5-flare",
      quality: "xhigh" as "high",
    });
    const checked = checkRequest({ prompt: "x", modelId: "alpha-img2-5-flare", quality: "xhigh" });
    expect(estimate).toMatchObject({ credits: null, reason: "invalid_request" });
    // An estimate sends no generation: what it reports is that nothing was priced.
    expect(estimate.credits === null && estimate.message).toMatch(
      /^Nothing was priced: it breaks a rule \(quality: /,
    );
    expect(estimate.credits === null && estimate.issues).toEqual(
      checked.success ? [] : checked.issues,
    );
    expect(await d.admin.requests()).toEqual([]);
  });

  it("P2, P8: what the service cannot price for this account is credits: null with the service's reason, never a base price", async () => {
    // A service whose catalog no longer has the model: the local check passes, the quote is null.
    const d = await double();
    const fetch = async () =>
      new Response(
        JSON.stringify({
          credits: null,
          reason: "unknown_model",
          message: "gone",
          catalogVersion: "2030-01-01",
        }),
        {
          status: 200,
          headers: { "content-type": "application/json" },
        },
      );
    const client = createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch });
    expect(await client.generations.estimate({ prompt: "x", modelId: "beta2" })).toEqual({
      credits: null,
      reason: "unknown_model",
      message: "gone",
    });
  });
});

describe("typed errors", () => {
  it("S4: insufficient_credits is 402 with the service's request id and the balance it gives; nothing charged, nothing retried", async () => {
    const d = await double({ credits: 50 });
    const error = await rejection(
      d.client.generations.create({ prompt: "x", modelId: "beta2", imageCount: 2 }),
    );
    expect(error).toBeInstanceOf(ImagegenError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      code: "insufficient_credits",
      status: 402,
      balance: 50,
      attempts: 1,
    });
    expect((error as ImagegenError).requestId).toMatch(/^req_/);
    expect((error as ImagegenError).idempotencyKey).toMatch(UUID);
    expect(await createAttempts(d.server)).toHaveLength(1);
    expect(await d.admin.balance(d.userId)).toBe(50);
  });

  it("S5: the same key with another request is 409 idempotency_key_reused, not retried", async () => {
    const d = await double();
    await d.client.generations.create(
      { prompt: "a fox", modelId: "beta2" },
      { idempotencyKey: "k-1" },
    );
    const error = await rejection(
      d.client.generations.create({ prompt: "a cat", modelId: "beta2" }, { idempotencyKey: "k-1" }),
    );
    expect(error).toMatchObject({
      code: "idempotency_key_reused",
      status: 409,
      attempts: 1,
      idempotencyKey: "k-1",
    });
    expect(await createAttempts(d.server)).toHaveLength(2);
  });

  it("S2: an asset the caller does not own is 400 asset_not_found naming its path, not retried", async () => {
    const d = await double();
    const error = await rejection(
      d.client.generations.create({
        prompt: "edit",
        generationType: "image-to-image",
        inputAssetIds: ["ast_not_mine"],
      }),
    );
    expect(error).toMatchObject({
      code: "asset_not_found",
      status: 400,
      param: "inputAssetIds[0]",
      attempts: 1,
    });
  });

  it("S1: a revoked key is 401 invalid_api_key on every call, and the key is in no error", async () => {
    const d = await double();
    await d.admin.revokeApiKey(d.apiKeyId);
    for (const call of [
      d.client.ping(),
      d.client.credits(),
      d.client.quote({ kind: "image", modelId: "beta2" }),
    ]) {
      const error = await rejection(call);
      expect(error).toMatchObject({ code: "invalid_api_key", status: 401, attempts: 1 });
      expect(
        JSON.stringify({ ...(error as object), message: (error as Error).message }),
      ).not.toContain(d.key);
    }
  });

  it("S11: a quote spec that is not an object of the quote's fields is 400 invalid_request with the service's issues", async () => {
    const d = await double();
    const error = await rejection(
      d.client.quote({ kind: "image", modelId: "beta2", referenceImageCount: "2" as never }),
    );
    expect(error).toMatchObject({
      code: "invalid_request",
      status: 400,
      issues: [{ path: "referenceImageCount", code: "invalid_type" }],
    });
  });
});
