/**
 * Writes the OpenAPI documents as files, for tools that read a document without starting a server
 * (Prism, client generators, contract tests): data/openapi.json (the service's document for the
 * built-in catalog, exported as `imagegen-pricing/openapi.json`) and data/admin-openapi.json (the
 * admin API's, exported as `imagegen-pricing/admin-openapi.json`), built from the valibot schemas
 * and the examples of scripts/openapi/. A server serves these files as they are (for the built-in
 * catalog); test/package/openapiFiles.test.ts fails while either differs from what this script makes.
 *
 *   npm run openapi:json              regenerate both files
 *   npm run openapi:json -- --check   exit 1 when either file is out of date
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { writeOrCheck } from "./generated.js";
import { buildAdminOpenApiDocument } from "./openapi/admin.js";
import { buildOpenApiDocument } from "./openapi/document.js";

export const OPENAPI_JSON_PATH = fileURLToPath(new URL("../data/openapi.json", import.meta.url));
export const ADMIN_OPENAPI_JSON_PATH = fileURLToPath(
  new URL("../data/admin-openapi.json", import.meta.url),
);

/**
 * A document as the file holds it: JSON laid out as the formatter lays it out, so that `biome check`
 * passes on the generated file.
 *
 * @param document - The document.
 * @param path - Where the file goes (the formatter's settings for it).
 * @returns The file's text.
 */
export function renderDocument(document: unknown, path: string): string {
  return execFileSync(
    fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url)),
    ["format", "--stdin-file-path", path],
    {
      input: `${JSON.stringify(document, null, 2)}\n`,
      encoding: "utf8",
    },
  );
}

/**
 * Both files and the text each must hold now.
 *
 * @returns Each file's path and text.
 */
export function openApiFiles(): [string, string][] {
  return [
    [OPENAPI_JSON_PATH, renderDocument(buildOpenApiDocument(), OPENAPI_JSON_PATH)],
    [ADMIN_OPENAPI_JSON_PATH, renderDocument(buildAdminOpenApiDocument(), ADMIN_OPENAPI_JSON_PATH)],
  ];
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = writeOrCheck(openApiFiles(), process.argv.slice(2), "npm run openapi:json");
}
