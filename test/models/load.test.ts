/**
 * The core's modules load. Some of their work runs once, at import: the shipped history is checked
 * by defineCatalogHistory, the request and quote-spec schemas are built from the field helpers. A
 * mistake there makes the import throw, and a test file that imports the module statically then
 * fails to load, which a test runner may report apart from failing tests (Stryker's vitest runner
 * counts it as no failure). So this file imports nothing from src statically: each test imports the
 * module itself, and a throwing import fails that test.
 */
import { describe, expect, it } from "vitest";

describe("the core's modules load", () => {
  it("P8: history.ts loads, and the history it ships is the catalogs of catalog.ts, in force from their version dates", async () => {
    const { SHIPPED_CATALOGS, catalog } = await import("../../src/models/catalog.js");
    const { catalogAt, catalogHistory, nextCatalogChange } = await import(
      "../../src/models/history.js"
    );
    expect(catalogHistory).toEqual(SHIPPED_CATALOGS);
    expect(catalogHistory.at(-1)).toBe(catalog);
    for (const entry of catalogHistory) {
      expect(catalogAt(catalogHistory, `${entry.version}T00:00:00Z`)).toBe(entry);
    }
    expect(nextCatalogChange(catalogHistory, "2000-01-01")?.version).toBe(
      catalogHistory[0]?.version,
    );
  });

  it("N3, P1: the package entry loads: its schemas accept a request, and it is priced", async () => {
    const { checkRequest, quote } = await import("../../src/index.js");
    const { parseQuoteSpec } = await import("../../src/pricing/quoteSpec.js");
    const checked = checkRequest({
      prompt: "  a red fox  ",
      modelId: "beta2",
      resolution: "4K",
      quality: "low",
    });
    expect(checked.success && checked.output.prompt).toBe("a red fox");
    const spec = parseQuoteSpec({ kind: "image", modelId: " beta2 ", resolution: "4K" });
    expect(spec.success && quote(spec.output).credits).toBe(120);
  });
});
