/**
 * Writes the catalog history as data for other languages, generated from the TypeScript catalogs so
 * it never drifts: data/catalog.json (every catalog the package ships, oldest first; exported as
 * `imagegen-pricing/catalog.json`) and data/catalog.schema.json (its JSON Schema, draft-07; exported
 * as `imagegen-pricing/catalog.schema.json`). test/models/catalogJson.test.ts fails while either is
 * stale.
 *
 *   npm run catalog:json              regenerate both files
 *   npm run catalog:json -- --check   exit 1 when either file is out of date
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { type JSONSchema7, toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { type Catalog, catalogHistory, type ModelSpec } from "../src/index.js";
import { QUALITIES, RESOLUTIONS } from "../src/models/lists.js";
import { CatalogSchema, ModelSpecSchema } from "../src/models/modelSpec.js";
import { writeOrCheck } from "./generated.js";

export const CATALOG_JSON_PATH = fileURLToPath(new URL("../data/catalog.json", import.meta.url));
export const CATALOG_SCHEMA_PATH = fileURLToPath(
  new URL("../data/catalog.schema.json", import.meta.url),
);

/** What a catalog history file holds: a pointer to its schema and the catalogs, oldest first. */
export type CatalogHistoryFile = { $schema: string; catalogs: readonly Catalog[] };

const MODEL_KEYS = [
  "id",
  "aspectRatios",
  "defaultAspectRatio",
  "resolutions",
  "defaultResolution",
  "qualities",
  "backgrounds",
  "maxImageCount",
  "maxReferenceImages",
  "referenceSurchargeCredits",
  "outputFormat",
  "prices",
] as const satisfies readonly (keyof ModelSpec)[];

/** A model with its fields, and its price cells, in one fixed order, so the file changes only where the data does. */
function canonicalModel(model: ModelSpec): ModelSpec {
  const prices: Record<string, Record<string, number>> = {};
  for (const resolution of RESOLUTIONS) {
    const row = model.prices[resolution];
    if (!row) {
      continue;
    }
    prices[resolution] = {};
    for (const quality of QUALITIES) {
      const cell = row[quality];
      if (cell !== undefined) {
        prices[resolution][quality] = cell;
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of MODEL_KEYS) {
    out[key] = key === "prices" ? prices : model[key];
  }
  return out as unknown as ModelSpec;
}

/** The history file's content for a list of catalogs (default: the package's history). */
export function buildCatalogJson(history: readonly Catalog[] = catalogHistory): CatalogHistoryFile {
  const catalogs = history.map((c) => ({
    version: c.version,
    defaultModelId: c.defaultModelId,
    models: Object.fromEntries(
      Object.entries(c.models).map(([id, model]) => [id, canonicalModel(model)]),
    ),
  }));
  return { $schema: "./catalog.schema.json", catalogs };
}

/** The widest line of the formatter (biome.json), so a generated file is already formatted. */
const LINE_WIDTH = 100;

/**
 * JSON text, two-space indented, with each list of plain values on one line when it fits (as the
 * formatter lays JSON out), and one trailing newline.
 */
export function formatJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /^( *)(.*)\[\n((?:\1 {2}(?:"(?:[^"\\]|\\.)*"|-?[\d.eE+-]+|true|false|null),?\n)+)\1\]/gm,
    (all, indent: string, head: string, items: string) => {
      const flat = `${indent}${head}[${items
        .trim()
        .split(/,?\n\s*/)
        .map((item) => item.replace(/,$/, ""))
        .join(", ")}]`;
      return flat.length <= LINE_WIDTH ? flat : all;
    },
  );
  return `${text}\n`;
}

/** The history file as JSON text. */
export function renderCatalogJson(file: CatalogHistoryFile = buildCatalogJson()): string {
  return formatJson(file);
}

/** What each field means, for readers of the schema in any language (the TypeScript TSDoc, restated). */
const MODEL_FIELDS: Record<string, string> = {
  id: "The model id, as a request names it; equal to the model's key in `models`.",
  aspectRatios: "Accepted aspect ratios (V1).",
  defaultAspectRatio: "Ratio used when a request names none (N7); one of aspectRatios.",
  resolutions: "Accepted resolutions (V2).",
  defaultResolution:
    "Resolution used when a request names none; null means the request must name it (V2).",
  qualities: "Accepted qualities (V3).",
  backgrounds: "Accepted backgrounds (V4).",
  maxImageCount: "Largest imageCount (V5).",
  maxReferenceImages: "Most distinct reference images (V6).",
  referenceSurchargeCredits: "Base credits added per reference image, per output image (P3).",
  outputFormat: "The format every output has, or null where it is not fixed (V8).",
  prices:
    "Base price per output image in whole credits (P1), by resolution then quality: exactly the accepted resolution x quality cells, and no other.",
};

const CATALOG_FIELDS: Record<string, string> = {
  version:
    "The UTC date (YYYY-MM-DD) this catalog takes effect, at 00:00 UTC. The catalog in force at an instant is the last one whose version date is not after it (P8).",
  defaultModelId: "Model used when a request names none (N5); a key of models.",
  models: "Every model, keyed by its id.",
};

const LISTS = ["aspectRatios", "resolutions", "qualities", "backgrounds"];

/** Renames the converter's `$defs` to draft-07's `definitions`, with the references that point there. */
function draft07(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map(draft07);
  }
  if (typeof value !== "object" || value === null) {
    return value;
  }
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$ref" && typeof inner === "string") {
      out.$ref = inner.replace("#/$defs/", "#/definitions/");
    } else {
      out[key === "$defs" ? "definitions" : key] = draft07(inner);
    }
  }
  return out;
}

/**
 * The JSON Schema (draft-07) of data/catalog.json, converted from the valibot schemas with
 * `@valibot/to-json-schema`. A JSON Schema cannot say "a default is one of the accepted values",
 * "exactly the accepted cells are priced", "each model is keyed by its id" or "versions increase";
 * the descriptions say so, and the package checks them before writing the file.
 */
export function buildCatalogSchema(): JSONSchema7 {
  const HistoryFile = v.strictObject({
    $schema: v.optional(v.string()),
    catalogs: v.pipe(v.array(CatalogSchema), v.minLength(1)),
  });
  const converted = draft07(
    toJsonSchema(HistoryFile, {
      errorMode: "ignore",
      definitions: { catalog: CatalogSchema, model: ModelSpecSchema },
    }),
  ) as JSONSchema7 & { definitions: { catalog: JSONSchema7; model: JSONSchema7 } };
  const { $schema: draft, definitions, ...root } = converted;
  const catalogProps = definitions.catalog.properties as Record<string, JSONSchema7>;
  const modelProps = definitions.model.properties as Record<string, JSONSchema7>;
  for (const [key, text] of Object.entries(CATALOG_FIELDS)) {
    if (catalogProps[key]) {
      catalogProps[key].description = text;
    }
  }
  // A calendar date, as the package checks it (the converter's "format" is only advisory in draft-07).
  if (catalogProps.version) {
    catalogProps.version.pattern = "^\\d{4}-\\d{2}-\\d{2}$";
  }
  for (const [key, text] of Object.entries(MODEL_FIELDS)) {
    if (modelProps[key]) {
      modelProps[key].description = text;
    }
  }
  for (const key of LISTS) {
    if (modelProps[key]) {
      modelProps[key].uniqueItems = true;
    }
  }
  const props = root.properties as Record<string, JSONSchema7>;
  if (props.$schema) {
    props.$schema.description = "Where this file's JSON Schema is.";
  }
  if (props.catalogs) {
    props.catalogs.description = "Every catalog, oldest first; versions strictly increasing.";
  }
  return {
    $schema: draft,
    title: "imagegen-pricing catalog history",
    description:
      "Every catalog (models, limits and prices) imagegen-pricing ships, oldest first. Generated from the package's TypeScript data by npm run catalog:json.",
    ...root,
    definitions: {
      catalog: {
        description:
          "One catalog: its version and models. Each model is keyed by its own id, and defaultModelId is a key of models.",
        ...definitions.catalog,
      },
      model: {
        description:
          "Everything known about one model: what it accepts and what it costs. The defaults are among the accepted values, and prices has exactly the accepted resolution x quality cells.",
        ...definitions.model,
      },
    },
  };
}

/** The schema as JSON text. */
export function renderCatalogSchema(schema: JSONSchema7 = buildCatalogSchema()): string {
  return formatJson(schema);
}

function main(argv: readonly string[]): number {
  const files: [string, string][] = [
    [CATALOG_JSON_PATH, renderCatalogJson()],
    [CATALOG_SCHEMA_PATH, renderCatalogSchema()],
  ];
  return writeOrCheck(files, argv, "npm run catalog:json");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
