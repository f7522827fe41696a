/**
 * Writes test/server/openapi.d.ts: the openapi-typescript types of the reference server's own
 * OpenAPI document. test/server/openapi.test.ts fails when the committed file is stale.
 * Run: `npx tsx scripts/gen-openapi-types.ts`.
 */
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { generateOpenApiTypes, OPENAPI_TYPES_PATH } from "../test/server/openapiTypes.js";

writeFileSync(OPENAPI_TYPES_PATH, await generateOpenApiTypes());
console.log(`wrote ${fileURLToPath(OPENAPI_TYPES_PATH)}`);
