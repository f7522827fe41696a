import { describe, expect, it } from "vitest";
import {
  type Catalog,
  capabilities,
  catalog,
  catalogHistory,
  checkRequest,
  computeCharge,
  defineCatalogHistory,
  NoCatalogInForceError,
  normalizeRequest,
  quote,
  validateForModel,
} from "../../src/index.js";

/** A two-entry history: beta2 4K low costs 120 until 2026-11-30, then 144 (the oracle's numbers). */
const beta2 = catalog.models.beta2;
const later: Catalog = {
  ...catalog,
  version: "2026-12-01",
  models: {
    ...catalog.models,
    beta2: { ...beta2, prices: { ...beta2.prices, "4K": { low: 144 } } },
  },
};
const history = defineCatalogHistory([catalog, later]);
const spec = { kind: "image", modelId: "beta2", resolution: "4K" } as const;
const body = { prompt: "a red fox", modelId: "beta2", resolution: "4K", imageCount: 2 };

describe("one options bag: catalog (a catalog or a history) and at", () => {
  it("P8: quote reads a history at `at`: 120 credits the millisecond before the change, 144 from it", () => {
    expect(quote(spec, { catalog: history, at: "2026-11-30T23:59:59.999Z" })).toMatchObject({
      credits: 120,
      catalogVersion: "2026-11-20",
    });
    expect(quote(spec, { catalog: history, at: Date.UTC(2026, 11, 1) })).toMatchObject({
      credits: 144,
      catalogVersion: "2026-12-01",
    });
    expect(
      quote(spec, { account: { multiplier: "1.15" }, catalog: history, at: new Date("2026-12-02") })
        .credits,
    ).toBe(166);
  });

  it("P8: computeCharge, checkRequest, normalizeRequest and validateForModel read the same history at the same instant", () => {
    const at = "2026-12-01T00:00:00Z";
    const checked = checkRequest(body, { catalog: history, at });
    if (!checked.success) {
      throw new Error("the body is valid");
    }
    expect(computeCharge(checked.output, { catalog: history, at }).totalCreditCost).toBe(288);
    expect(
      computeCharge(checked.output, { catalog: history, at: "2026-11-30" }).totalCreditCost,
    ).toBe(240);
    expect(normalizeRequest(body, { catalog: history, at }).success).toBe(true);
    expect(validateForModel(checked.output, { catalog: history, at }).success).toBe(true);
  });

  it("P8: capabilities reads the same options: a catalog, or a history at `at`; without them the newest built-in catalog", () => {
    const more = beta2.maxImageCount + 1;
    const wider: Catalog = {
      ...later,
      models: { ...later.models, beta2: { ...beta2, maxImageCount: more } },
    };
    const grown = defineCatalogHistory([catalog, wider]);
    expect(
      capabilities("beta2", { catalog: grown, at: "2026-11-30T23:59:59.999Z" })?.maxImageCount,
    ).toBe(beta2.maxImageCount);
    expect(capabilities("beta2", { catalog: grown, at: "2026-12-01" })?.maxImageCount).toBe(more);
    expect(capabilities("beta2", { catalog: wider })?.maxImageCount).toBe(more);
    expect(capabilities("beta2")?.maxImageCount).toBe(beta2.maxImageCount);
    expect(() => capabilities("beta2", { catalog: wider, at: "2026-11-30" })).toThrow(
      NoCatalogInForceError,
    );
    expect(capabilities("zeta-1", { catalog: wider })).toBeUndefined();
  });

  it("P8: without `catalog`, `at` reads the built-in history; without either, the newest built-in catalog applies", () => {
    const first = catalogHistory[0] as Catalog;
    expect(quote(spec, { at: `${first.version}T00:00:00Z` }).catalogVersion).toBe(first.version);
    expect(quote(spec).catalogVersion).toBe(catalog.version);
    expect(() => quote(spec, { at: "2000-01-01" })).toThrow(NoCatalogInForceError);
  });

  it("P8: one catalog read at an instant before its version date has no price then (never a fallback, P2)", () => {
    expect(() => quote(spec, { catalog: later, at: "2026-11-30T23:59:59Z" })).toThrow(
      NoCatalogInForceError,
    );
    expect(quote(spec, { catalog: later, at: "2026-12-01" }).credits).toBe(144);
    expect(quote(spec, { catalog: later }).credits).toBe(144);
  });

  it("P8: a history read without `at` is read now, and `at` that is not an instant is a RangeError naming it", () => {
    // Both entries of this history took effect before any day this test can run on: now reads the last.
    const past = defineCatalogHistory([catalog, { ...later, version: "2026-11-21" }]);
    expect(quote(spec, { catalog: past })).toMatchObject({
      credits: 144,
      catalogVersion: "2026-11-21",
    });
    expect(() => checkRequest(body, { catalog: history, at: "tomorrow" })).toThrow(/tomorrow/);
  });

  it("P4: the 0.2.0 positional forms throw a TypeError naming the migration instead of pricing at multiplier 1", () => {
    // biome-ignore lint/suspicious/noExplicitAny: old JavaScript callers are what this guards
    const old = quote as any;
    expect(() => old(spec, { multiplier: "1.15" })).toThrow(
      /quote\(spec, \{ account: \{ multiplier \} \}\)/,
    );
    expect(() => old(spec, undefined, catalog)).toThrow(TypeError);
    const request = checkRequest(body);
    if (!request.success) {
      throw new Error("the body is valid");
    }
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => validateForModel(request.output, catalog as any)).toThrow(
      /validateForModel\(input, \{ catalog \}\)/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => normalizeRequest(body, catalog as any)).toThrow(
      /normalizeRequest\(input, \{ catalog \}\)/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => checkRequest(body, catalog as any)).toThrow(
      /checkRequest\(input, \{ catalog \}\)/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => computeCharge(request.output, catalog as any)).toThrow(
      /computeCharge\(input, \{ catalog \}\)/,
    );
    // biome-ignore lint/suspicious/noExplicitAny: as above
    expect(() => capabilities("beta2", catalog as any)).toThrow(
      /capabilities\(input, \{ catalog \}\)/,
    );
  });
});
