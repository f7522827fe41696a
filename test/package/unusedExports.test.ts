/**
 * Unused exports (scripts/unused-exports.ts): an export of src/ that no module imports and no entry
 * makes public is dead code or an `export` keyword too many, and one more is a failure here.
 */
import { describe, expect, it } from "vitest";
import { findUnusedExports } from "../../scripts/unused-exports.js";

/**
 * Exports used only in their own module, each still to lose its `export` keyword. Remove a line when
 * its keyword goes; the test fails on a line the check no longer finds, so the list only shrinks.
 */
const KNOWN_OWN_MODULE_ONLY = [
  "src/cli/check.ts: CHECK_HELP",
  "src/cli/diff.ts: DIFF_HELP",
  "src/cli/models.ts: MODELS_HELP",
  "src/cli/quote.ts: QUOTE_HELP",
  "src/cli/run.ts: HELP",
  "src/cli/schema.ts: SCHEMA_HELP",
  "src/cli/serve.ts: SERVE_HELP",
  "src/cli/serve.ts: ServeControl",
  "src/generated/jsonSchemas.ts: GeneratedSchema",
  "src/node/bounds.ts: CONNECTION_ERRORS",
  "src/node/bounds.ts: rawErrorAnswer",
  "src/postgres/errors.ts: isTransient",
  "src/postgres/errors.ts: MAX_ATTEMPTS",
  "src/server/auth.ts: Credential",
  "src/server/auth.ts: readCredential",
  "src/server/catalogs.ts: CatalogInForce",
  "src/server/http/body.ts: BodyResult",
  "src/server/http/body.ts: isJsonMediaType",
  "src/server/http/body.ts: jsonShapeProblem",
  "src/server/routes/generations.ts: fingerprint",
];

const findings = findUnusedExports();
const lines = (list: readonly { file: string; name: string }[]) => list.map((e) => `${e.file}: ${e.name}`);

describe("unused exports of src/ (npx tsx scripts/unused-exports.ts)", () => {
  it("no export of src/ is used nowhere: not imported, not public, not used in its own module", () => {
    expect(lines(findings.dead), "dead code: delete it").toEqual([]);
  });

  it("no export is used only in its own module, beyond the known ones", () => {
    const known = new Set(KNOWN_OWN_MODULE_ONLY);
    const found = lines(findings.localOnly);
    expect(
      found.filter((line) => !known.has(line)),
      "used only where it is declared: drop its `export` keyword",
    ).toEqual([]);
    expect(
      KNOWN_OWN_MODULE_ONLY.filter((line) => !found.includes(line)),
      "no longer exported or now imported: remove it from KNOWN_OWN_MODULE_ONLY",
    ).toEqual([]);
  });

  it("sees an import from a test: the core's test-only seams are found as such, not as unused", () => {
    expect(lines(findings.testOnly)).toContain("src/pricing/quote.ts: priceQuoteSpec");
  });
});
