/**
 * The server on a price history (P8): with an injected clock, quotes and new tasks switch catalogs
 * at the exact millisecond a change takes effect, a quote says when the next change applies, and no
 * earlier task's charge, replay or refund moves (S5, S6, S7, S11).
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { PricedQuoteSchema, UnpricedQuoteSchema } from "../../scripts/openapi/schemas.js";
import {
  type Catalog,
  CatalogHistoryError,
  catalog,
  defineCatalog,
  quote,
} from "../../src/index.js";
import { createReferenceServer, type LogEntry } from "../../src/server/index.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { ledgerBalance } from "../support/ledger.js";
import { errorOf, setup } from "./helpers.js";

const { beta2, "beta-pro": betaPro, "alpha-img2-official": official } = catalog.models;

/** The built-in catalog, in force from 2026-11-20. */
const V1: Catalog = catalog;
/**
 * From 2027-01-01: beta2 4K 120 -> 130, alpha-img2-official 2K medium 120 -> 135 with a surcharge of
 * 12 (was 10), beta-pro's default resolution 2K -> 4K, and a new model, beta2-turbo.
 */
const V2 = defineCatalog({
  ...catalog,
  version: "2027-01-01",
  models: {
    ...catalog.models,
    beta2: { ...beta2, prices: { ...beta2.prices, "4K": { low: 130 } } },
    "alpha-img2-official": {
      ...official,
      referenceSurchargeCredits: 12,
      prices: { ...official.prices, "2K": { ...official.prices["2K"], medium: 135 } },
    },
    "beta-pro": { ...betaPro, defaultResolution: "4K" },
    "beta2-turbo": { ...beta2, id: "beta2-turbo" },
  },
});
/** From 2027-03-01: beta2 4K 130 -> 140. */
const V3 = defineCatalog({
  ...V2,
  version: "2027-03-01",
  models: { ...V2.models, beta2: { ...beta2, prices: { ...beta2.prices, "4K": { low: 140 } } } },
});

/** 2027-01-01T00:00:00.000Z, when V2 takes effect. */
const CHANGE = Date.UTC(2027, 0, 1);
const DAY = 86_400_000;

type Accepted = {
  batch: { taskId: string; request: { resolution: string }; results: { job: { id: string } }[] };
  billing: { totalCreditCost: number; balanceAfterCredits: number };
};

/** A user (multiplier 1.15, 10000 credits) on a server with the history `catalogs` and a clock the test moves. */
async function onHistory(catalogs: readonly Catalog[] = [V1, V2], start = CHANGE - 1) {
  const clock = { now: start };
  const logs: LogEntry[] = [];
  const s = await setup({
    catalogs,
    now: () => clock.now,
    credits: 10_000,
    multiplier: "1.15",
    log: (e) => logs.push(e),
  });
  const quoteOf = async (spec: Record<string, unknown>) => {
    const res = await s.post("/api/pricing/quote", { kind: "image", ...spec });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  };
  const accept = async (body: Record<string, unknown>) => {
    const res = await s.generate({ prompt: "a fox", ...body });
    expect(res.status).toBe(202);
    return { text: await res.clone().text(), body: (await res.json()) as Accepted, res };
  };
  return { ...s, clock, logs, quoteOf, accept };
}

describe("the server on a price history (P8)", () => {
  it("P8/S11: a quote switches catalogs at the exact millisecond: 23:59:59.999 is the old price with nextChange, 00:00:00.000 the new one without", async () => {
    const s = await onHistory();
    const spec = { kind: "image" as const, modelId: "beta2", resolution: "4K" as const };

    s.clock.now = CHANGE - 1;
    const before = await s.quoteOf(spec);
    expect(v.parse(PricedQuoteSchema, before)).toBeDefined();
    expect(before).toEqual({
      ...quote(spec, { account: { multiplier: "1.15" }, catalog: V1 }),
      nextChange: { version: "2027-01-01", effectiveAt: "2027-01-01T00:00:00.000Z", credits: 150 }, // 130 x 1.15 = 149.5
    });
    expect(before).toMatchObject({ credits: 138, catalogVersion: "2026-11-20" }); // 120 x 1.15

    s.clock.now = CHANGE;
    const after = await s.quoteOf(spec);
    expect(after).toEqual(quote(spec, { account: { multiplier: "1.15" }, catalog: V2 }));
    expect(after).toMatchObject({ credits: 150, catalogVersion: "2027-01-01" });
    expect(after).not.toHaveProperty("nextChange");
  });

  it("P8/S11: nextChange says what the same spec costs under the next catalog, surcharge included, and null where it cannot be priced", async () => {
    const s = await onHistory();
    const spec = {
      modelId: "alpha-img2-official",
      resolution: "2K",
      quality: "medium",
      referenceImageCount: 2,
    };
    // (120 + 2 x 10) x 1.15 = 161 now; (135 + 2 x 12) x 1.15 = 182.85 from the change.
    expect(await s.quoteOf(spec)).toMatchObject({ credits: 161, nextChange: { credits: 183 } });

    const unpriced = await s.quoteOf({ modelId: "alpha-img2", resolution: "4K" });
    expect(v.parse(UnpricedQuoteSchema, unpriced)).toMatchObject({
      credits: null,
      reason: "unsupported_resolution",
    });
    expect(unpriced.nextChange).toEqual({
      version: "2027-01-01",
      effectiveAt: "2027-01-01T00:00:00.000Z",
      credits: null,
    });

    // A model the change adds: unknown now, priced from the change on.
    expect(await s.quoteOf({ modelId: "beta2-turbo", resolution: "4K" })).toMatchObject({
      credits: null,
      reason: "unknown_model",
      nextChange: { credits: 138 },
    });
    s.clock.now = CHANGE;
    expect(await s.quoteOf({ modelId: "beta2-turbo", resolution: "4K" })).toMatchObject({
      credits: 138,
    });
  });

  it("P8/S11: with three catalogs nextChange names only the next one, and is absent after the last", async () => {
    const s = await onHistory([V1, V2, V3]);
    const spec = { modelId: "beta2", resolution: "4K", quality: "low" };
    const at = async (now: number) => {
      s.clock.now = now;
      return s.quoteOf(spec);
    };
    expect(await at(CHANGE - 1)).toMatchObject({
      credits: 138,
      nextChange: { version: "2027-01-01", credits: 150 },
    });
    expect(await at(CHANGE)).toMatchObject({
      credits: 150,
      catalogVersion: "2027-01-01",
      nextChange: { version: "2027-03-01", effectiveAt: "2027-03-01T00:00:00.000Z", credits: 161 }, // 140 x 1.15
    });
    expect(await at(Date.UTC(2027, 2, 1) - 1)).toMatchObject({
      credits: 150,
      nextChange: { version: "2027-03-01" },
    });
    const last = await at(Date.UTC(2027, 2, 1));
    expect(last).toMatchObject({ credits: 161, catalogVersion: "2027-03-01" });
    expect(last).not.toHaveProperty("nextChange");
  });

  it("P8/S3/S4/S8: new tasks switch at the exact millisecond, and each task keeps the version it was charged under", async () => {
    const s = await onHistory();
    const body = { modelId: "beta2", resolution: "4K", imageCount: 2 };

    s.clock.now = CHANGE - 1;
    const old = await s.accept(body);
    expect(old.body.billing).toEqual({ totalCreditCost: 276, balanceAfterCredits: 10_000 - 276 }); // 2 x 138

    s.clock.now = CHANGE;
    const fresh = await s.accept(body);
    expect(fresh.body.billing).toEqual({
      totalCreditCost: 300,
      balanceAfterCredits: 10_000 - 276 - 300,
    }); // 2 x 150

    const oldTask = await s.admin.task(old.body.batch.taskId);
    expect(oldTask).toMatchObject({
      catalogVersion: "2026-11-20",
      totalCreditCost: 276,
      createdAt: "2026-12-31T23:59:59.999Z",
    });
    expect(oldTask.jobs.map((j) => j.credits)).toEqual([138, 138]);
    const newTask = await s.admin.task(fresh.body.batch.taskId);
    expect(newTask).toMatchObject({
      catalogVersion: "2027-01-01",
      totalCreditCost: 300,
      createdAt: "2027-01-01T00:00:00.000Z",
    });
    expect(newTask.jobs.map((j) => j.credits)).toEqual([150, 150]);
    const debits = (await s.admin.ledger(s.userId))
      .filter((e) => e.kind === "debit")
      .map((e) => e.credits);
    expect(debits).toEqual([276, 300]);
  });

  it("P8/S5/S7: a replay after the change answers the first 202 byte for byte and charges nothing, though the price moved", async () => {
    const s = await onHistory();
    const body = { modelId: "beta2", resolution: "4K", imageCount: 2, idempotencyKey: "order-1" };
    const first = await s.accept(body);
    expect(first.body.billing.totalCreditCost).toBe(276);
    const entries = (await s.admin.ledger(s.userId)).length;

    for (const now of [CHANGE, CHANGE + 400 * DAY]) {
      s.clock.now = now;
      const res = await s.generate({ prompt: "a fox", ...body });
      expect(res.status).toBe(202);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(await res.text()).toBe(first.text);
    }
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 276);
    expect(await s.admin.ledger(s.userId)).toHaveLength(entries);
    expect((await s.admin.task(first.body.batch.taskId)).catalogVersion).toBe("2026-11-20");
    // The same body with a new key is a new task, at the new price.
    expect(
      (await s.accept({ ...body, idempotencyKey: "order-2" })).body.billing.totalCreditCost,
    ).toBe(300);
  });

  it("P8/S6/S7: a refund after the change refunds what the job was charged before it; a later task's refund its own charge", async () => {
    const s = await onHistory();
    const old = await s.accept({ modelId: "beta2", resolution: "4K", imageCount: 2 });
    const [oldJob0, oldJob1] = old.body.batch.results.map((r) => r.job.id) as [string, string];

    s.clock.now = CHANGE + 5;
    const fresh = await s.accept({ modelId: "beta2", resolution: "4K" });
    const freshJob = fresh.body.batch.results[0]?.job.id as string;
    expect(await s.admin.failJob(oldJob1)).toEqual({ refundedCredits: 138 });
    expect(await s.admin.failJob(oldJob1)).toEqual({ refundedCredits: 0 });
    expect(await s.admin.failJob(freshJob)).toEqual({ refundedCredits: 150 });
    expect((await s.admin.job(oldJob0)).credits).toBe(138);

    s.clock.now = CHANGE + 30 * DAY;
    expect(await s.admin.failJob(oldJob0)).toEqual({ refundedCredits: 138 });
    const ledger = await s.admin.ledger(s.userId);
    expect(ledger.filter((e) => e.kind === "refund").map((e) => e.credits)).toEqual([
      138, 150, 138,
    ]);
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 276 - 150 + 138 + 150 + 138);
    expect(ledgerBalance(ledger)).toBe(await s.admin.balance(s.userId));
  });

  it("P8/S5: a retry that leaves out a default the change moved still replays; the same key with another request is still 409", async () => {
    const s = await onHistory();
    const body = { modelId: "beta-pro", idempotencyKey: "k" }; // default resolution: 2K before the change, 4K after
    const first = await s.accept(body);
    expect(first.body.batch.request.resolution).toBe("2K");
    expect(first.body.billing.totalCreditCost).toBe(92); // 80 x 1.15

    s.clock.now = CHANGE;
    const retry = await s.generate({ prompt: "a fox", ...body });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(first.text);

    const other = await s.generate({ prompt: "a hare", ...body });
    expect(other.status).toBe(409);
    expect((await errorOf(other)).code).toBe("idempotency_key_reused");
    // Asking for 4K explicitly with the old key is another request than the 2K task.
    expect((await s.generate({ prompt: "a fox", ...body, resolution: "4K" })).status).toBe(409);

    const fresh = await s.accept({ ...body, idempotencyKey: "k2" });
    expect(fresh.body.batch.request.resolution).toBe("4K");
    expect(fresh.body.billing.totalCreditCost).toBe(115); // 100 x 1.15
    expect(await s.admin.balance(s.userId)).toBe(10_000 - 92 - 115);
  });

  it("P8/N5/V7: a request is validated by the catalog that prices it: a model the change adds is refused before it and accepted from its instant; the OpenAPI document follows", async () => {
    const s = await onHistory();
    const modelIds = async () => {
      const res = await s.get("/openapi.json", {});
      expect(res.status).toBe(200);
      const doc = (await res.json()) as {
        info: { version: string };
        components: {
          schemas: { GenerationRequest: { properties: { modelId: { enum: string[] } } } };
        };
      };
      return {
        version: doc.info.version,
        ids: doc.components.schemas.GenerationRequest.properties.modelId.enum,
        doc,
      };
    };

    const before = await s.generate({ prompt: "a fox", modelId: "beta2-turbo", resolution: "4K" });
    expect(before.status).toBe(400);
    expect(await errorOf(before)).toMatchObject({ code: "invalid_request", param: "modelId" });
    expect(await modelIds()).toMatchObject({ version: "2026-11-20" });
    expect((await modelIds()).ids).not.toContain("beta2-turbo");
    expect((await modelIds()).doc).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument(V1))));

    s.clock.now = CHANGE;
    const after = await s.accept({ modelId: "beta2-turbo", resolution: "4K" });
    expect(after.body.billing.totalCreditCost).toBe(138);
    expect(await modelIds()).toMatchObject({ version: "2027-01-01" });
    expect((await modelIds()).ids).toContain("beta2-turbo");
    expect((await modelIds()).doc).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument(V2))));
  });

  it("P8: one instant per request: a clock that moves while a generation is handled does not split its validation, price and time", async () => {
    let ticking = false;
    const clock = { now: CHANGE - 1 };
    // Every read of the clock during the request is a millisecond later: a second read would cross the change.
    const s = await setup({
      catalogs: [V1, V2],
      credits: 10_000,
      now: () => (ticking ? clock.now++ : clock.now),
    });
    ticking = true;
    const res = await s.generate({ prompt: "a fox", modelId: "beta2", resolution: "4K" });
    ticking = false;
    expect(res.status).toBe(202);
    const { batch } = (await res.json()) as Accepted;
    expect(await s.admin.task(batch.taskId)).toMatchObject({
      catalogVersion: "2026-11-20",
      totalCreditCost: 120,
      createdAt: "2026-12-31T23:59:59.999Z",
    });
  });

  it("P8/S14: before the first catalog no price is known: quotes and tasks answer 503 with Retry-After, charge nothing and are logged; ping, credits and /openapi.json still answer", async () => {
    const s = await onHistory([V2], CHANGE - 1);
    const quoteRes = await s.post("/api/pricing/quote", {
      kind: "image",
      modelId: "beta2",
      resolution: "4K",
    });
    expect(quoteRes.status).toBe(503);
    expect(quoteRes.headers.get("retry-after")).toBe("1");
    const error = await errorOf(quoteRes);
    expect(error.code).toBe("service_unavailable");
    expect(error.message).toContain("2027-01-01T00:00:00.000Z");
    expect(error.requestId).toBe(quoteRes.headers.get("request-id"));

    const task = await s.generate({
      prompt: "a fox",
      modelId: "beta2",
      resolution: "4K",
      idempotencyKey: "early",
    });
    expect(task.status).toBe(503);
    expect(await s.admin.balance(s.userId)).toBe(10_000);
    expect((await s.admin.ledger(s.userId)).map((e) => e.kind)).toEqual(["grant"]);
    expect(s.logs.map((l) => [l.message, l.error.name])).toEqual([
      ["no catalog is in force yet", "NoCatalogInForceError"],
      ["no catalog is in force yet", "NoCatalogInForceError"],
    ]);

    s.clock.now = CHANGE - 1500;
    expect(
      (await s.post("/api/pricing/quote", { kind: "image", modelId: "beta2" })).headers.get(
        "retry-after",
      ),
    ).toBe("2");
    s.clock.now = CHANGE - 10 * DAY; // a long wait is asked an hour at a time
    expect(
      (await s.post("/api/pricing/quote", { kind: "image", modelId: "beta2" })).headers.get(
        "retry-after",
      ),
    ).toBe("3600");

    expect((await s.get("/api/ping")).status).toBe(200);
    expect((await s.get("/api/query/credits")).status).toBe(200);
    const doc = (await (await s.get("/openapi.json", {})).json()) as { info: { version: string } };
    expect(doc.info.version).toBe("2027-01-01"); // the catalog that will take effect

    s.clock.now = CHANGE; // from the first catalog's instant, everything answers; the early key was never used
    expect((await s.quoteOf({ modelId: "beta2", resolution: "4K" })).credits).toBe(150);
    expect(
      (await s.accept({ modelId: "beta2", resolution: "4K", idempotencyKey: "early" })).body.billing
        .totalCreditCost,
    ).toBe(150);
  });

  it("P8: a server given one catalog (or none) prices with it whatever the clock, and its quotes have no nextChange", async () => {
    const clock = { now: Date.UTC(2000, 0, 1) };
    const builtIn = await setup({ now: () => clock.now });
    const res = await builtIn.post("/api/pricing/quote", {
      kind: "image",
      modelId: "beta2",
      resolution: "4K",
    });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ credits: 120, catalogVersion: catalog.version });
    expect(body).not.toHaveProperty("nextChange");

    const later = await setup({ catalog: V2, now: () => clock.now });
    const laterBody = (await (
      await later.post("/api/pricing/quote", { kind: "image", modelId: "beta2", resolution: "4K" })
    ).json()) as Record<string, unknown>;
    expect(laterBody).toMatchObject({ credits: 130, catalogVersion: "2027-01-01" });
    expect(laterBody).not.toHaveProperty("nextChange");
  });

  it("P8: `catalog` and `catalogs` together are a RangeError naming both; a bad history is refused when the server is made, naming its entry", () => {
    expect(() => createReferenceServer({ catalog: V1, catalogs: [V1] })).toThrow(RangeError);
    expect(() => createReferenceServer({ catalog: V1, catalogs: [V1] })).toThrow(
      /`catalog`.*`catalogs`.*not both/,
    );

    expect(() => createReferenceServer({ catalogs: [] })).toThrow(CatalogHistoryError);
    expect(() => createReferenceServer({ catalogs: [V2, V1] })).toThrow(
      /entry 1 \(version 2026-11-20\): versions must be strictly increasing/,
    );
    const broken = {
      ...V2,
      models: { ...V2.models, beta2: { ...beta2, prices: { "1K": { low: 60 } } } },
    } as Catalog;
    let thrown: unknown;
    try {
      createReferenceServer({ catalogs: [V1, broken] });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(CatalogHistoryError);
    expect(
      (thrown as CatalogHistoryError).problems.map((p) => [p.index, p.version]),
    ).toContainEqual([1, "2027-01-01"]);
    expect(String((thrown as Error).message)).toMatch(
      /entry 1 \(version 2027-01-01\): models\.beta2/,
    );
  });

  it("P8: the history is read once, when the server is made: changing the array afterwards changes no price", async () => {
    const list: Catalog[] = [V1, V2];
    const s = await setup({ catalogs: list, now: () => CHANGE });
    list.pop();
    list.push(defineCatalog({ ...V3, version: "2027-01-01" }));
    const body = (await (
      await s.post("/api/pricing/quote", { kind: "image", modelId: "beta2", resolution: "4K" })
    ).json()) as {
      credits: number;
    };
    expect(body.credits).toBe(130);
  });
});
