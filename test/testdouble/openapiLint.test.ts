/**
 * Both OpenAPI documents against a maintained linter: Redocly's `recommended` ruleset, with no
 * error and no warning.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { makeServer } from "../server/helpers.js";

async function lint(document: unknown) {
  const config = await createConfig({ extends: ["recommended"] });
  const problems = await lintFromString({
    source: JSON.stringify(document),
    absoluteRef: "/openapi.json",
    config,
  });
  return problems.map(
    (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`,
  );
}

describe("the OpenAPI documents pass Redocly's recommended ruleset (S12)", () => {
  it("S12: GET /openapi.json, as served, has no error and no warning (servers, an MIT license)", async () => {
    const server = await makeServer();
    const served = await (await server.fetch(new Request("http://localhost/openapi.json"))).json();
    expect(await lint(served)).toEqual([]);
    expect(served.info.license).toEqual({ name: "MIT", identifier: "MIT" });
    expect(served.servers[0]).toMatchObject({ url: "/" });
  });

  it("S12: the admin document has no error and no warning", async () => {
    expect(await lint(createAdminOpenApiDocument())).toEqual([]);
  });

  it("S12: the linter does catch what it is meant to (a document without servers or license fails)", async () => {
    const { servers: _servers, ...rest } = createOpenApiDocument() as unknown as {
      servers: unknown;
      info: object;
    };
    const stripped = { ...rest, info: { ...rest.info, license: undefined } };
    const problems = await lint(stripped);
    expect(problems.some((p) => p.startsWith("error no-empty-servers"))).toBe(true);
    expect(problems.some((p) => p.startsWith("warn info-license"))).toBe(true);
  });
});
