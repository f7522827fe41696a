/**
 * Writes src/generated/jsonSchemas.ts: the JSON Schemas of the request and of every answer,
 * converted from their valibot schemas with `@valibot/to-json-schema`. Converting here rather than
 * at run time keeps the converter a development dependency: the package needs valibot alone.
 * test/package/generatedSchemas.test.ts fails until the file is regenerated after a schema changes.
 *
 *   npx tsx scripts/jsonSchemas.ts            regenerate the file
 *   npx tsx scripts/jsonSchemas.ts --check    exit 1 when it is out of date
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { catalog } from "../src/models/catalog.js";
import { QuoteSpecSchema } from "../src/pricing/quoteSpec.js";
import { requestSchema } from "../src/request/schema.js";
import {
  CreditsAnswerSchema,
  ErrorBodySchema,
  GenerationAcceptedSchema,
  NextChangeSchema,
  PingAnswerSchema,
  PricedQuoteSchema,
  UnpricedQuoteSchema,
} from "../src/server/openapi/schemas.js";
import { writeOrCheck } from "./generated.js";

export const GENERATED_PATH = fileURLToPath(new URL("../src/generated/jsonSchemas.ts", import.meta.url));

type JsonObject = Record<string, unknown>;

/** Converts one schema, as plain JSON (nothing but what JSON.stringify keeps). */
function convert(schema: v.GenericSchema, typeMode?: "input" | "output"): JsonObject {
  const converted = toJsonSchema(schema, { errorMode: "ignore", ...(typeMode ? { typeMode } : {}) });
  return JSON.parse(JSON.stringify(converted)) as JsonObject;
}

/**
 * Every schema the package serves, converted. The request schemas are converted for the built-in
 * catalog; the only part that depends on a catalog (the model ids and the default one) is set again
 * from the catalog at run time.
 *
 * @returns The schemas by name.
 */
export function generateJsonSchemas() {
  return {
    /** A generation request, for `imagegen-pricing/json-schema` (draft-07, as converted). */
    request: convert(requestSchema(catalog)),
    /** A generation request as sent, for the OpenAPI document. */
    requestInput: convert(requestSchema(catalog), "input"),
    quoteSpec: convert(QuoteSpecSchema, "input"),
    generationAccepted: convert(GenerationAcceptedSchema, "output"),
    pricedQuote: convert(PricedQuoteSchema, "output"),
    unpricedQuote: convert(UnpricedQuoteSchema, "output"),
    ping: convert(PingAnswerSchema, "output"),
    credits: convert(CreditsAnswerSchema, "output"),
    error: convert(ErrorBodySchema, "output"),
    nextChange: convert(NextChangeSchema, "output"),
  };
}

/** The generated module's text, formatted as Biome formats it. */
export function renderJsonSchemas(): string {
  const schemas = generateJsonSchemas();
  const text = `/**
 * The JSON Schemas of the request and of every answer, converted from their valibot schemas by
 * scripts/jsonSchemas.ts (\`npx tsx scripts/jsonSchemas.ts\`). Generated: do not edit by hand; a
 * test fails when this file no longer matches the schemas.
 */

/** A JSON Schema as plain data. @internal */
export type GeneratedSchema = { readonly [key: string]: unknown };

/** The converted schemas by name; clone one before changing it. @internal */
export const JSON_SCHEMAS: Readonly<Record<${Object.keys(schemas)
    .map((name) => JSON.stringify(name))
    .join(" | ")}, GeneratedSchema>> = ${JSON.stringify(schemas, null, 2)};
`;
  return execFileSync(
    fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url)),
    ["format", "--stdin-file-path", GENERATED_PATH],
    {
      input: text,
      encoding: "utf8",
    },
  );
}

function main(argv: readonly string[]): number {
  return writeOrCheck([[GENERATED_PATH, renderJsonSchemas()]], argv, "npx tsx scripts/jsonSchemas.ts");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
