import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import {
  buildCatalogSchema,
  CATALOG_JSON_PATH,
  CATALOG_SCHEMA_PATH,
  renderCatalogJson,
  renderCatalogSchema,
} from "../../scripts/catalog-json.js";
import {
  type Catalog,
  catalogHistory,
  defineCatalogHistory,
  diffCatalogs,
} from "../../src/index.js";

const root = new URL("../../", import.meta.url).pathname;
const committedJson = readFileSync(CATALOG_JSON_PATH, "utf8");
const committedSchema = readFileSync(CATALOG_SCHEMA_PATH, "utf8");
const data = JSON.parse(committedJson) as { $schema: string; catalogs: Catalog[] };
const schema = JSON.parse(committedSchema) as Schema;

type Schema = { [keyword: string]: unknown };

const KNOWN = new Set([
  "$schema",
  "$ref",
  "title",
  "description",
  "definitions",
  "type",
  "enum",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "minItems",
  "uniqueItems",
  "items",
  "properties",
  "required",
  "additionalProperties",
  "propertyNames",
  "anyOf",
]);

const typeOf = (v: unknown) =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "array"
      : Number.isInteger(v)
        ? "integer"
        : typeof v === "number"
          ? "number"
          : typeof v;

/**
 * A small draft-07 validator for exactly the keywords the generated schema uses; any other keyword
 * fails the test, so a schema change cannot slip past it unchecked. Returns the paths that fail.
 */
function validate(value: unknown, s: Schema, path = "$"): string[] {
  for (const keyword of Object.keys(s)) {
    if (!KNOWN.has(keyword)) {
      return [`${path}: unknown keyword ${keyword}`];
    }
  }
  if (typeof s.$ref === "string") {
    const name = s.$ref.replace("#/definitions/", "");
    return validate(value, (schema.definitions as Record<string, Schema>)[name] as Schema, path);
  }
  const errors: string[] = [];
  const t = typeOf(value);
  if (s.type !== undefined && !(s.type === t || (s.type === "number" && t === "integer"))) {
    return [`${path}: not ${s.type}`];
  }
  if (Array.isArray(s.enum) && !s.enum.includes(value)) {
    errors.push(`${path}: not in enum`);
  }
  if (
    typeof s.pattern === "string" &&
    typeof value === "string" &&
    !new RegExp(s.pattern, "u").test(value)
  ) {
    errors.push(`${path}: pattern`);
  }
  if (typeof value === "number") {
    if (typeof s.minimum === "number" && value < s.minimum) {
      errors.push(`${path}: minimum`);
    }
    if (typeof s.maximum === "number" && value > s.maximum) {
      errors.push(`${path}: maximum`);
    }
  }
  if (Array.isArray(value)) {
    if (typeof s.minItems === "number" && value.length < s.minItems) {
      errors.push(`${path}: minItems`);
    }
    if (
      s.uniqueItems === true &&
      new Set(value.map((x) => JSON.stringify(x))).size !== value.length
    ) {
      errors.push(`${path}: uniqueItems`);
    }
    if (s.items) {
      for (const [i, item] of value.entries()) {
        errors.push(...validate(item, s.items as Schema, `${path}[${i}]`));
      }
    }
  }
  if (t === "object") {
    const obj = value as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of (s.required ?? []) as string[]) {
      if (!Object.hasOwn(obj, key)) {
        errors.push(`${path}.${key}: required`);
      }
    }
    for (const [key, inner] of Object.entries(obj)) {
      if (s.propertyNames) {
        errors.push(...validate(key, s.propertyNames as Schema, `${path}.${key} (name)`));
      }
      if (Object.hasOwn(props, key)) {
        errors.push(...validate(inner, props[key] as Schema, `${path}.${key}`));
      } else if (s.additionalProperties === false) {
        errors.push(`${path}.${key}: not allowed`);
      } else if (typeof s.additionalProperties === "object") {
        errors.push(...validate(inner, s.additionalProperties as Schema, `${path}.${key}`));
      }
    }
  }
  if (
    Array.isArray(s.anyOf) &&
    !s.anyOf.some((option) => validate(value, option as Schema, path).length === 0)
  ) {
    errors.push(`${path}: no anyOf option`);
  }
  return errors;
}

/** A copy of the committed data with one change. */
function mutated(
  edit: (c: Record<string, unknown> & { models: Record<string, Record<string, unknown>> }) => void,
) {
  const copy = JSON.parse(committedJson) as {
    catalogs: (Record<string, unknown> & { models: Record<string, Record<string, unknown>> })[];
  };
  edit(copy.catalogs[0] as (typeof copy.catalogs)[0]);
  return copy;
}

describe("data/catalog.json: the catalog history for other languages (npm run catalog:json)", () => {
  it("P8: data/catalog.json and data/catalog.schema.json are what the generator writes today (run npm run catalog:json)", () => {
    expect(renderCatalogJson()).toBe(committedJson);
    expect(renderCatalogSchema()).toBe(committedSchema);
  });

  it("P8: the file holds every catalog the package ships, oldest first, equal field by field", () => {
    expect(data.$schema).toBe("./catalog.schema.json");
    expect(data.catalogs.map((c) => c.version)).toEqual(catalogHistory.map((c) => c.version));
    expect(defineCatalogHistory(data.catalogs)).toHaveLength(catalogHistory.length);
    for (const [i, c] of data.catalogs.entries()) {
      expect(c).toEqual(catalogHistory[i]);
      expect(diffCatalogs(catalogHistory[i] as Catalog, c)).toEqual([]);
    }
  });

  it("P1, V1-V8: the committed data validates against the committed JSON Schema", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(validate(data, schema)).toEqual([]);
    expect(buildCatalogSchema()).toEqual(schema);
  });

  it("P1, V1-V8: the JSON Schema refuses what the package refuses: a price as text, a negative price, an unknown field, a bad ratio, a repeated value, a bad version", () => {
    const bad = [
      mutated((c) => {
        (c.models.beta2 as { prices: Record<string, unknown> }).prices["4K"] = { low: "120" };
      }),
      mutated((c) => {
        (c.models.beta2 as { prices: Record<string, unknown> }).prices["4K"] = { low: -1 };
      }),
      mutated((c) => {
        (c.models.beta2 as { prices: Record<string, unknown> }).prices["8K"] = { low: 1 };
      }),
      mutated((c) => {
        (c.models.beta2 as Record<string, unknown>).cost = 1;
      }),
      mutated((c) => {
        (c.models.beta2 as Record<string, unknown>).aspectRatios = ["7:5"];
      }),
      mutated((c) => {
        (c.models.beta2 as Record<string, unknown>).qualities = ["low", "low"];
      }),
      mutated((c) => {
        (c.models.beta2 as Record<string, unknown>).maxReferenceImages = 15;
      }),
      mutated((c) => {
        delete (c.models.beta2 as Record<string, unknown>).outputFormat;
      }),
      mutated((c) => {
        c.version = "20261120";
      }),
      { catalogs: [] },
      { catalogs: data.catalogs, extra: true },
    ];
    for (const value of bad) {
      expect(validate(value, schema), JSON.stringify(value).slice(0, 80)).not.toEqual([]);
    }
  });

  it("the package exports the file as imagegen-pricing/catalog.json and its schema, outside dist/ (a clean build keeps them)", () => {
    const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
      exports: Record<string, unknown>;
      files: string[];
      scripts: Record<string, string>;
    };
    expect(pkg.exports["./catalog.json"]).toBe("./data/catalog.json");
    expect(pkg.exports["./catalog.schema.json"]).toBe("./data/catalog.schema.json");
    expect(pkg.files).toContain("data");
    expect(pkg.scripts["catalog:json"]).toBe("tsx scripts/catalog-json.ts");
    expect(existsSync(`${root}data/catalog.json`)).toBe(true);
    // A package may require itself by name through its own exports map.
    const require = createRequire(`${root}package.json`);
    expect(require("imagegen-pricing/catalog.json")).toEqual(data);
    expect(require("imagegen-pricing/catalog.schema.json")).toEqual(schema);
  });
});
