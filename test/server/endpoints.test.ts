import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  CreditsAnswerSchema,
  PingAnswerSchema,
  PricedQuoteSchema,
  UnpricedQuoteSchema,
} from "../../scripts/openapi/schemas.js";
import { type QuoteSpec, quote } from "../../src/index.js";
import { errorOf, setup } from "./helpers.js";

describe("ping, credits and quote", () => {
  it("S9: GET /api/ping answers who authenticated", async () => {
    const s = await setup();
    const res = await s.get("/api/ping");
    expect(res.status).toBe(200);
    const body = v.parse(PingAnswerSchema, await res.json());
    expect(body).toEqual({
      ok: true,
      service: "imagegen-pricing-reference",
      authProvider: "api_key",
      userId: s.userId,
      apiKeyId: s.apiKeyId,
    });
    const second = await s.admin.createApiKey(s.userId, { mode: "live" });
    const again = (await (
      await s.get("/api/ping", { authorization: `Bearer ${second.key}` })
    ).json()) as { apiKeyId: string };
    expect(again.apiKeyId).toBe(second.apiKeyId);
  });

  it("S10: GET /api/query/credits answers the balance in credits", async () => {
    const s = await setup({ credits: 777 });
    const res = await s.get("/api/query/credits");
    expect(res.status).toBe(200);
    expect(v.parse(CreditsAnswerSchema, await res.json())).toEqual({
      creditBalance: 777,
      currency: "credits",
      userId: s.userId,
      apiKeyId: s.apiKeyId,
    });
    await s.generate({ prompt: "p", modelId: "beta" });
    expect(
      ((await (await s.get("/api/query/credits")).json()) as { creditBalance: number })
        .creditBalance,
    ).toBe(752);
  });

  it("S11: a quote is priced for the caller's multiplier, equal to the core's quote", async () => {
    const s = await setup({ multiplier: "1.15" });
    const spec = {
      kind: "image",
      modelId: "alpha-img2-official",
      resolution: "4K",
      quality: "high",
      referenceImageCount: 3,
    };
    const res = await s.post("/api/pricing/quote", spec);
    expect(res.status).toBe(200);
    const body = v.parse(PricedQuoteSchema, await res.json());
    expect(body.credits).toBe(897); // (750 + 30) x 1.15 = 897
    expect(body).toEqual(
      quote({ ...spec, kind: "image" } as QuoteSpec, { account: { multiplier: "1.15" } }),
    );
    expect(body.breakdown).toMatchObject({
      baseCredits: 750,
      referenceSurchargeCredits: 30,
      multiplier: "1.15",
    });
    // Two users, two prices for the same spec.
    const other = await s.admin.createUser({ credits: 0, multiplier: "0.5" });
    const otherKey = (await s.admin.createApiKey(other.userId)).key;
    const cheap = await s.post("/api/pricing/quote", spec, { authorization: `Bearer ${otherKey}` });
    expect(((await cheap.json()) as { credits: number }).credits).toBe(390);
  });

  it("S11: strings are trimmed and omitted fields take the generation defaults", async () => {
    const s = await setup();
    const res = await s.post("/api/pricing/quote", { kind: " image ", modelId: " beta2 " });
    expect(
      ((await res.json()) as { credits: number; breakdown: { resolution: string } }).breakdown
        .resolution,
    ).toBe("2K");
  });

  it("S11: a well-formed spec that cannot be priced is 200 with credits: null and its reason", async () => {
    const s = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: "image", modelId: "alpha-img2", resolution: "2K" }, "unsupported_resolution"],
      [{ kind: "image", modelId: "alpha-img2" }, "resolution_required"],
      [{ kind: "image", modelId: "beta2", quality: "high" }, "unsupported_quality"],
      [
        { kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 2 },
        "too_many_references",
      ],
      [{ kind: "video", modelId: "beta2" }, "invalid_kind"],
      [{ kind: "image", modelId: "delta-9" }, "unknown_model"],
      [{ kind: "image", modelId: "" }, "unknown_model"],
      [{ kind: "image", modelId: "alpha-img2-5-flare", quality: "xhigh" }, "unsupported_quality"],
      [{ kind: "image", modelId: "beta2", quality: "auto" }, "unsupported_quality"],
      [{ kind: "image", modelId: "beta2", resolution: "8K" }, "unsupported_resolution"],
      [{ kind: "image", modelId: "beta2", resolution: "1k" }, "unsupported_resolution"],
      [
        { kind: "image", modelId: "alpha-img2-5-flare", referenceImageCount: 15 },
        "invalid_reference_count",
      ],
      [{ kind: "image", modelId: "beta2", referenceImageCount: 1.5 }, "invalid_reference_count"],
      [{ kind: "image", modelId: "beta2", referenceImageCount: -1 }, "invalid_reference_count"],
    ];
    for (const [spec, reason] of cases) {
      const res = await s.post("/api/pricing/quote", spec);
      expect(res.status, JSON.stringify(spec)).toBe(200);
      const body = v.parse(UnpricedQuoteSchema, await res.json());
      expect(body.reason, JSON.stringify(spec)).toBe(reason);
      expect(body.message.length).toBeGreaterThan(10);
    }
  });

  it("S11: a body that is not an object of the quote's fields is 400 with every issue: unknown field, wrong type, missing kind", async () => {
    const s = await setup();
    const cases: [unknown, [string, string][]][] = [
      [{ modelId: "beta2" }, [["kind", "required"]]],
      [{ kind: "image" }, [["modelId", "required"]]],
      [{ kind: "image", modelId: "beta2", credits: 1 }, [["credits", "unknown_field"]]],
      [{ kind: 1, modelId: "beta2" }, [["kind", "invalid_type"]]],
      [{ kind: "image", modelId: null }, [["modelId", "invalid_type"]]],
      [{ kind: "image", modelId: "beta2", resolution: 4 }, [["resolution", "invalid_type"]]],
      [{ kind: "image", modelId: "beta2", quality: null }, [["quality", "invalid_type"]]],
      [
        { kind: "image", modelId: "beta2", referenceImageCount: "2" },
        [["referenceImageCount", "invalid_type"]],
      ],
      [
        JSON.parse('{"kind":"image","modelId":"beta2","__proto__":{"x":1}}'),
        [["__proto__", "unknown_field"]],
      ],
      [[], [["", "invalid_type"]]],
      [
        { kind: 2, resolution: ["5K"], extra: true },
        [
          ["extra", "unknown_field"],
          ["kind", "invalid_type"],
          ["modelId", "required"],
          ["resolution", "invalid_type"],
        ],
      ],
    ];
    for (const [spec, expected] of cases) {
      const res = await s.post("/api/pricing/quote", JSON.stringify(spec));
      expect(res.status, JSON.stringify(spec)).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe("invalid_request");
      const got = (error.issues as { path: string; code: string }[]).map((i) => [i.path, i.code]);
      expect(got.sort(), JSON.stringify(spec)).toEqual(expected.sort());
    }
  });

  it("S11: a referenceImageCount from 0 to 14 is well-formed on every model", async () => {
    const s = await setup();
    for (const n of [0, 1, 14]) {
      const res = await s.post("/api/pricing/quote", {
        kind: "image",
        modelId: "alpha-img2-5-sunburst",
        referenceImageCount: n,
      });
      expect(((await res.json()) as { credits: number }).credits).toBe(18 + 10 * n);
    }
  });
});
