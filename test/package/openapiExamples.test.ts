/**
 * Every request body and every answer of both OpenAPI documents has an example, and each example is
 * valid against its schema by a JSON Schema 2020-12 validator (Ajv), so that a mock server or a
 * contract test built from a document alone answers like the reference server. The walk covers
 * whatever operations the documents have, so a new route without examples fails here.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { createOpenApiDocument, type OpenApiDocument } from "../../src/server/openapi/document.js";
import { otherCatalog } from "../support/catalogs.js";

type JsonObject = Record<string, unknown>;
type MediaType = {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
};
type Content = Record<string, MediaType>;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
/** Statuses whose answers carry no body, so have nothing to exemplify. */
const BODILESS = new Set(["204", "304"]);

/** A response or request body, or the component its `$ref` (a JSON pointer into the document) names. */
function resolve<T extends object>(document: OpenApiDocument, value: T | { $ref: string }): T {
  if (!("$ref" in value)) {
    return value;
  }
  let target: unknown = document;
  for (const key of value.$ref.replace(/^#\//, "").split("/")) {
    target = (target as JsonObject | undefined)?.[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  }
  if (target === undefined) {
    throw new Error(`${value.$ref} names nothing in the document`);
  }
  return target as T;
}

/** Each body of a document: where it is, and its media types. */
function bodiesOf(
  document: OpenApiDocument,
): { where: string; content: Content | undefined; bodiless: boolean }[] {
  const out: { where: string; content: Content | undefined; bodiless: boolean }[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, JsonObject>)) {
    for (const method of METHODS) {
      const operation = item[method] as
        | { requestBody?: { content?: Content }; responses?: Record<string, { content?: Content }> }
        | undefined;
      if (!operation) {
        continue;
      }
      const name = `${method.toUpperCase()} ${path}`;
      const body = operation.requestBody && resolve(document, operation.requestBody);
      if (body) {
        out.push({ where: `${name} request body`, content: body.content, bodiless: false });
      }
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        out.push({
          where: `${name} ${status}`,
          content: resolve(document, response).content,
          bodiless: BODILESS.has(status),
        });
      }
    }
  }
  return out;
}

/** The examples of a media type, by name (`example` counts as one named "example"). */
function examplesOf(media: MediaType): [string, unknown][] {
  const named = Object.entries(media.examples ?? {}).map(
    ([name, e]) => [name, e.value] as [string, unknown],
  );
  return "example" in media ? [["example", media.example], ...named] : named;
}

/** A validator of JSON Schema 2020-12 (the dialect of OpenAPI 3.1), with the formats the documents use. */
function validator() {
  const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
  // OpenAPI's own keywords beside JSON Schema's, and a component document's root.
  ajv.addVocabulary(["example", "discriminator", "xml", "externalDocs", "components"]);
  ajv.addFormat("date-time", {
    type: "string",
    validate: (s: string) =>
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(s) &&
      !Number.isNaN(Date.parse(s)),
  });
  return ajv;
}

/**
 * What is wrong with a document's examples: each body without an example, and each example its
 * schema rejects.
 */
function exampleProblems(document: OpenApiDocument): string[] {
  const ajv = validator();
  // The document's components once, so that a media type's `#/components/schemas/...` resolve.
  ajv.addSchema({
    $id: "https://imagegen-pricing.invalid/openapi.json",
    components: document.components,
  });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const compile = (schema: unknown) => {
    const text = JSON.stringify(schema).replaceAll(
      '"#/components/',
      '"https://imagegen-pricing.invalid/openapi.json#/components/',
    );
    const known = compiled.get(text);
    if (known) {
      return known;
    }
    const validate = ajv.compile(JSON.parse(text) as JsonObject);
    compiled.set(text, validate);
    return validate;
  };
  const problems: string[] = [];
  for (const { where, content, bodiless } of bodiesOf(document)) {
    if (content === undefined || Object.keys(content).length === 0) {
      if (!bodiless) {
        problems.push(`${where}: no content, so no example`);
      }
      continue;
    }
    for (const [type, media] of Object.entries(content)) {
      const examples = examplesOf(media);
      if (examples.length === 0) {
        problems.push(`${where} ${type}: no example`);
      }
      if (media.schema === undefined) {
        problems.push(`${where} ${type}: no schema`);
        continue;
      }
      const validate = compile(media.schema);
      for (const [name, value] of examples) {
        if (!validate(value)) {
          problems.push(`${where} ${type} example "${name}": ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
  }
  return problems;
}

const documents: [string, () => OpenApiDocument][] = [
  ["the service's document (built-in catalog)", () => createOpenApiDocument()],
  ["the service's document (another catalog)", () => createOpenApiDocument(otherCatalog)],
  ["the admin document", () => createAdminOpenApiDocument()],
];

describe("every body of both OpenAPI documents has an example its schema accepts (S12)", () => {
  for (const [name, make] of documents) {
    it(`S12: ${name}: every request body and every answer of every operation has a valid example`, () => {
      const document = make();
      expect(bodiesOf(document).length).toBeGreaterThan(10);
      expect(exampleProblems(document)).toEqual([]);
    });
  }

  it("S12: the walk finds a missing example, an answer without content and an example its schema rejects", () => {
    const document = createOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Content }> }>>;
    } & OpenApiDocument;
    const responses = (path: string, method: string) =>
      document.paths[path]?.[method]?.responses ?? {};
    const created = responses("/api/generations", "post")["202"]?.content?.["application/json"];
    const ping = responses("/api/ping", "get");
    const credits = responses("/api/query/credits", "get")["200"]?.content?.["application/json"];
    if (!created || !ping["200"] || !credits) {
      throw new Error("the document lost an answer this test changes");
    }
    delete created.example;
    delete ping["200"].content;
    credits.example = {
      creditBalance: -1,
      currency: "credits",
      userId: "usr_1",
      apiKeyId: "apk_1",
    };
    const problems = exampleProblems(document);
    expect(problems).toContain("POST /api/generations 202 application/json: no example");
    expect(problems).toContain("GET /api/ping 200: no content, so no example");
    expect(
      problems.some((p) =>
        p.startsWith(
          'GET /api/query/credits 200 application/json example "example": data/creditBalance must be >= 0',
        ),
      ),
    ).toBe(true);
    expect(problems).toHaveLength(3);
  });
});
