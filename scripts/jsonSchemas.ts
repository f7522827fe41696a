/**
 * Writes src/generated/jsonSchemas.ts: the JSON Schemas of the generation request and of every
 * body of both OpenAPI documents, converted from their valibot schemas with `@valibot/to-json-schema`.
 * Converting here rather than at run time keeps the converter a development dependency: the package
 * needs valibot alone. test/package/generatedSchemas.test.ts fails until the file is regenerated
 * after a schema changes.
 *
 *   npx tsx scripts/jsonSchemas.ts            regenerate the file
 *   npx tsx scripts/jsonSchemas.ts --check    exit 1 when it is out of date
 */
import { execFileSync } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toJsonSchema, toJsonSchemaDefs } from "@valibot/to-json-schema";
import type * as v from "valibot";
import { catalog } from "../src/models/catalog.js";
import { requestSchema } from "../src/request/schema.js";
import { ADMIN_SCHEMAS, SERVICE_SCHEMAS } from "../src/server/openapi/schemas.js";
import { writeOrCheck } from "./generated.js";

export const GENERATED_PATH = fileURLToPath(
  new URL("../src/generated/jsonSchemas.ts", import.meta.url),
);

/** Plain JSON: nothing but what JSON.stringify keeps. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The components of an OpenAPI 3.1 document (JSON Schema 2020-12), each schema that another one
 * uses named by its `$ref`.
 */
const components = (schemas: Record<string, v.GenericSchema>) =>
  plain(
    toJsonSchemaDefs(schemas, {
      target: "draft-2020-12",
      typeMode: "output",
      errorMode: "ignore",
      overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
    }),
  );

/**
 * Every schema the package serves, converted. The request schemas are converted for the built-in
 * catalog; the only part that depends on a catalog (the model ids and the default one) is set again
 * from the catalog at run time.
 *
 * @returns The schemas: the request (draft-07, for `imagegen-pricing/json-schema`) and each document's components.
 */
export function generateJsonSchemas() {
  return {
    request: plain(toJsonSchema(requestSchema(catalog), { errorMode: "ignore" })),
    service: components(SERVICE_SCHEMAS),
    admin: components(ADMIN_SCHEMAS),
  };
}

/** The generated module's text, formatted as Biome formats it. */
export function renderJsonSchemas(): string {
  const { request, service, admin } = generateJsonSchemas();
  const names = (schemas: object) =>
    `Readonly<Record<${Object.keys(schemas)
      .map((name) => JSON.stringify(name))
      .join(" | ")}, GeneratedSchema>>`;
  const text = `/**
 * The JSON Schemas of the generation request and of every body of both OpenAPI documents,
 * converted from their valibot schemas by scripts/jsonSchemas.ts (\`npx tsx scripts/jsonSchemas.ts\`).
 * Generated: do not edit by hand; a test fails when this file no longer matches the schemas.
 */

/** A JSON Schema as plain data. @internal */
export type GeneratedSchema = { readonly [key: string]: unknown };

/** The converted schemas; clone one before changing it. @internal */
export const JSON_SCHEMAS: { request: GeneratedSchema; service: ${names(service)}; admin: ${names(admin)} } = ${JSON.stringify({ request, service, admin }, null, 2)};
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

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = writeOrCheck(
    [[GENERATED_PATH, renderJsonSchemas()]],
    process.argv.slice(2),
    "npx tsx scripts/jsonSchemas.ts",
  );
}
