/**
 * The OpenAPI documents the package ships as files (`imagegen-pricing/openapi.json`,
 * `imagegen-pricing/admin-openapi.json`) are what the build scripts make now, and what a server
 * serves: a tool reading the file sees the document a server answers with. A server on another
 * catalog serves the document the build would make for that catalog.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildAdminOpenApiDocument } from "../../scripts/openapi/admin.js";
import { buildOpenApiDocument } from "../../scripts/openapi/document.js";
import {
  ADMIN_OPENAPI_JSON_PATH,
  OPENAPI_JSON_PATH,
  openApiFiles,
} from "../../scripts/openapi-json.js";
import { catalog } from "../../src/models/catalog.js";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { otherCatalog } from "../support/catalogs.js";

const root = new URL("../../", import.meta.url).pathname;
const plain = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, unknown>;
  files: string[];
  scripts: Record<string, string>;
};

describe("the shipped OpenAPI files (S12)", () => {
  it('S12: data/openapi.json and data/admin-openapi.json are what "npm run openapi:json" makes now', () => {
    for (const [path, text] of openApiFiles()) {
      expect(readFileSync(path, "utf8"), `stale: run "npm run openapi:json" (${path})`).toBe(text);
    }
  });

  it("S12: a server serves the files as they are: createOpenApiDocument() (built-in catalog) and createAdminOpenApiDocument()", () => {
    expect(createOpenApiDocument()).toEqual(JSON.parse(readFileSync(OPENAPI_JSON_PATH, "utf8")));
    expect(createOpenApiDocument(catalog)).toEqual(plain(buildOpenApiDocument(catalog)));
    expect(createAdminOpenApiDocument()).toEqual(
      JSON.parse(readFileSync(ADMIN_OPENAPI_JSON_PATH, "utf8")),
    );
    expect(createAdminOpenApiDocument()).toEqual(plain(buildAdminOpenApiDocument()));
    // A new object each time: a caller changing one changes no other.
    const first = createOpenApiDocument();
    first.info = {};
    expect(createOpenApiDocument().info).not.toEqual({});
  });

  it("S12, P8: on another catalog a server serves what the build makes for that catalog: its version, model ids and priced examples", () => {
    const served = createOpenApiDocument(otherCatalog);
    expect(served).toEqual(plain(buildOpenApiDocument(otherCatalog)));
    expect(served).not.toEqual(createOpenApiDocument());
    expect(served.info).toMatchObject({ version: otherCatalog.version });
  });

  it("S12: package.json exports both files and ships their folder", () => {
    expect(pkg.exports["./openapi.json"]).toBe("./data/openapi.json");
    expect(pkg.exports["./admin-openapi.json"]).toBe("./data/admin-openapi.json");
    expect(pkg.files).toContain("data");
    expect(pkg.scripts["openapi:json"]).toBe("tsx scripts/openapi-json.ts");
  });
});
