/**
 * The OpenAPI 3.1 document of the admin HTTP API, as `npm run openapi:json` built it into
 * data/admin-openapi.json (scripts/openapi/admin.ts).
 */
import adminDocument from "../../../data/admin-openapi.json" with { type: "json" };
import type { OpenApiDocument } from "./document.js";

/**
 * The OpenAPI 3.1 document of the admin HTTP API (`/admin/...`), which a reference server with an
 * admin token serves at `GET /admin/openapi.json`.
 *
 * @returns A new document (safe to modify).
 * @internal
 */
export function createAdminOpenApiDocument(): OpenApiDocument {
  return structuredClone(adminDocument) as OpenApiDocument;
}
