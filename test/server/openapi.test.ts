import { readFileSync } from "node:fs";
import createClient from "openapi-fetch";
import { describe, expect, it } from "vitest";
import { createOpenApiDocument } from "../../src/server/index.js";
import { BASE, type Setup, setup } from "./helpers.js";
import type { paths } from "./openapi.js";
import { generateOpenApiTypes, OPENAPI_TYPES_PATH } from "./openapiTypes.js";

function typedClient(s: Setup) {
  return createClient<paths>({
    baseUrl: BASE,
    headers: s.auth,
    fetch: (request: Request) => s.server.fetch(request),
  });
}

describe("OpenAPI", () => {
  it("S12: GET /openapi.json needs no key and serves the exported OpenAPI 3.1 document", async () => {
    const s = await setup();
    const res = await s.get("/openapi.json", {});
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument())));
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(["/api/generations", "/api/ping", "/api/pricing/quote", "/api/query/credits"]);
  });

  it("the committed openapi.d.ts matches a fresh generation (run scripts/gen-openapi-types.ts)", async () => {
    expect(readFileSync(OPENAPI_TYPES_PATH, "utf8")).toBe(await generateOpenApiTypes());
  });

  it("S3, S9, S10, S11: a client generated from the document gets typed answers from all four endpoints", async () => {
    const s = await setup({ credits: 500 });
    const client = typedClient(s);

    const ping = await client.GET("/api/ping");
    expect(ping.response.status).toBe(200);
    expect(ping.data?.authProvider).toBe("api_key");
    expect(ping.data?.userId).toBe(s.userId);

    const credits = await client.GET("/api/query/credits");
    const balance: number | undefined = credits.data?.creditBalance;
    expect(balance).toBe(500);

    const quote = await client.POST("/api/pricing/quote", { body: { kind: "image", modelId: "beta-pro", resolution: "4K" } });
    const priced = quote.data && "breakdown" in quote.data ? quote.data : undefined;
    expect(priced?.credits).toBe(100);
    expect(priced?.breakdown.baseCredits).toBe(100);
    const unpriced = await client.POST("/api/pricing/quote", {
      body: { kind: "image", modelId: "alpha-img2", resolution: "4K" },
    });
    expect(unpriced.data).toMatchObject({ credits: null, reason: "unsupported_resolution" });

    const created = await client.POST("/api/generations", {
      body: { prompt: "a lighthouse", modelId: "beta-pro", resolution: "4K", imageCount: 2, idempotencyKey: "lh-1" },
    });
    expect(created.response.status).toBe(202);
    const jobIds: string[] = created.data?.batch.results.map((r) => r.job.id) ?? [];
    expect(jobIds).toHaveLength(2);
    expect(created.data?.billing).toEqual({ totalCreditCost: 200, balanceAfterCredits: 300 });

    const replay = await client.POST("/api/generations", {
      body: { prompt: "a lighthouse", modelId: "beta-pro", resolution: "4K", imageCount: 2, idempotencyKey: "lh-1" },
    });
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.data).toEqual(created.data);

    const poor = await client.POST("/api/generations", {
      body: { prompt: "again", modelId: "beta-pro", resolution: "4K", imageCount: 4 },
    });
    expect(poor.response.status).toBe(402);
    expect(poor.error?.error.code).toBe("insufficient_credits");

    const bad = await client.POST("/api/pricing/quote", {
      // @ts-expect-error the generated types reject a resolution outside the public list, as the server does
      body: { kind: "image", modelId: "beta", resolution: "8K" },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.issues?.[0]?.path).toBe("resolution");
  });
});
