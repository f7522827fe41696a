/**
 * Writes data/request.converted.json: the JSON Schema (draft-07) of a generation request for the
 * built-in catalog, converted from its valibot schema with `@valibot/to-json-schema`. The
 * `imagegen-pricing/json-schema` entry bundles this file and adds what a conversion cannot say (see
 * src/jsonSchema.ts), so the converter stays a development dependency: the package needs valibot
 * alone. test/package/generatedSchemas.test.ts fails until the file is regenerated after the
 * request schema changes.
 *
 *   npx tsx scripts/jsonSchemas.ts            regenerate the file
 *   npx tsx scripts/jsonSchemas.ts --check    exit 1 when it is out of date
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { toJsonSchema } from "@valibot/to-json-schema";
import { catalog } from "../src/models/catalog.js";
import { requestSchema } from "../src/request/schema.js";
import { writeOrCheck } from "./generated.js";
import { renderDocument } from "./openapi-json.js";

export const CONVERTED_REQUEST_PATH = fileURLToPath(
  new URL("../data/request.converted.json", import.meta.url),
);

/**
 * The request schema of the built-in catalog, converted.
 *
 * @returns The JSON Schema, as plain JSON.
 */
export function convertRequestSchema(): Record<string, unknown> {
  const converted = toJsonSchema(requestSchema(catalog), { errorMode: "ignore" });
  return JSON.parse(JSON.stringify(converted)) as Record<string, unknown>;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = writeOrCheck(
    [[CONVERTED_REQUEST_PATH, renderDocument(convertRequestSchema(), CONVERTED_REQUEST_PATH)]],
    process.argv.slice(2),
    "npx tsx scripts/jsonSchemas.ts",
  );
}
