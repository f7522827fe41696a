/**
 * The OpenAPI documents the package ships as files (`imagegen-pricing/openapi.json`,
 * `imagegen-pricing/admin-openapi.json`) are what the functions build now: a tool reading the file
 * sees the document a server serves.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ADMIN_OPENAPI_JSON_PATH,
  OPENAPI_JSON_PATH,
  openApiFiles,
} from "../../scripts/openapi-json.js";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";

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

  it("S12: the files hold createOpenApiDocument() (built-in catalog) and createAdminOpenApiDocument()", () => {
    expect(JSON.parse(readFileSync(OPENAPI_JSON_PATH, "utf8"))).toEqual(
      plain(createOpenApiDocument()),
    );
    expect(JSON.parse(readFileSync(ADMIN_OPENAPI_JSON_PATH, "utf8"))).toEqual(
      plain(createAdminOpenApiDocument()),
    );
  });

  it("S12: package.json exports both files and ships their folder", () => {
    expect(pkg.exports["./openapi.json"]).toBe("./data/openapi.json");
    expect(pkg.exports["./admin-openapi.json"]).toBe("./data/admin-openapi.json");
    expect(pkg.files).toContain("data");
    expect(pkg.scripts["openapi:json"]).toBe("tsx scripts/openapi-json.ts");
  });
});
