/**
 * `normalizeRequest`: the shape rules of a generation request body (N1-N15), every issue at once,
 * within the bounds of S15.
 */
import * as v from "valibot";
import { messages } from "../messages.js";
import { type CatalogOptions, resolveCatalog } from "../models/catalogOptions.js";
import { type Catalog, findModel, type ModelSpec } from "../models/modelSpec.js";
import type { GenerationRequest, Issue, Result } from "../types.js";
import { qualityHint } from "./fields.js";
import { bounded, toIssue, unknownFields } from "./issues.js";
import { REQUEST_FIELDS, requestSchema } from "./schema.js";

const KNOWN = new Set<string>(REQUEST_FIELDS);

/**
 * A plain object: not null, not an array, made by `{}` / `JSON.parse` or with a null prototype.
 * @internal
 *
 * @param value - Anything.
 * @returns Whether `value` is a plain object.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) {
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * What the shape rules found in a body. On failure, `issues` is every issue made (not yet bounded),
 * `omitted` counts unknown fields found but not made into issues, and `fields` holds each known
 * field as far as it was read (trimmed strings, defaults), with `malformed` naming the fields that
 * have an issue. @internal
 */
type Shape =
  | { success: true; output: GenerationRequest }
  | {
      success: false;
      issues: Issue[];
      omitted: number;
      fields: Record<string, unknown> | undefined;
      malformed: ReadonlySet<string>;
    };

/**
 * Checks a body against the shape rules, without bounding the issues: the one pass that
 * {@link normalizeRequest} and `checkRequest` share. @internal
 *
 * @param input - A parsed JSON body, of any type.
 * @param catalog - Whose models and defaults apply.
 * @returns The normalized request, or what was found.
 */
export function readShape(input: unknown, catalog: Catalog): Shape {
  if (!isPlainObject(input)) {
    const issues: Issue[] = [
      { path: "", code: "invalid_type", message: messages.notAnObject(input) },
    ];
    return { success: false, issues, omitted: 0, fields: undefined, malformed: new Set() };
  }
  const schema = requestSchema(catalog);
  // The schema reads only its own fields, so the known fields are all checked whatever else the
  // body holds (N15).
  const unknown = unknownFields(Object.keys(input), KNOWN, (field) =>
    messages.unknownField(field, REQUEST_FIELDS),
  );
  const result = v.safeParse(schema, input);
  if (result.success && unknown.issues.length === 0) {
    return { success: true, output: result.output };
  }
  let shaped = (result.issues ?? []).map(toIssue);
  // A field is malformed when an issue is at it or inside it (`inputAssetIds[3]`).
  const malformed = new Set(shaped.map((issue) => issue.path.split("[", 1)[0] as string));
  const fields = result.output as Record<string, unknown>;
  const model = malformed.has("modelId") ? undefined : findModel(catalog, fields.modelId);
  if (model) {
    shaped = shaped.map((issue) => withModelValues(issue, model, input));
  }
  return {
    success: false,
    issues: [...unknown.issues, ...shaped],
    omitted: unknown.omitted,
    fields,
    malformed,
  };
}

/** The option fields whose accepted values depend on the model (V1-V4). */
const MODEL_OPTIONS = {
  aspectRatio: "aspectRatios",
  resolution: "resolutions",
  quality: "qualities",
  background: "backgrounds",
} as const satisfies Record<string, keyof ModelSpec>;

/**
 * An option outside the public list, named with the values the request's model accepts rather than
 * the whole public list, so that a value taken from the message passes (V1-V4).
 */
function withModelValues(issue: Issue, model: ModelSpec, input: Record<string, unknown>): Issue {
  const field = issue.path as keyof typeof MODEL_OPTIONS;
  if (issue.code !== "invalid_option" || !Object.hasOwn(MODEL_OPTIONS, field)) {
    return issue;
  }
  const raw = input[field];
  const got = typeof raw === "string" ? raw.trim() : raw;
  const hint = field === "quality" ? qualityHint(got) : "";
  return {
    ...issue,
    message: messages.invalidOption(field, got, model[MODEL_OPTIONS[field]], hint),
  };
}

/**
 * Normalizes a generation request body: checks its shape, trims every string, applies the defaults
 * (the model-dependent ones too), and de-duplicates references (rules N1-N15, and V2's explicit
 * resolution).
 *
 * The first of the two stages of {@link checkRequest}, which also checks the model's own limits in
 * the same call and is the one to use for a body from a client; call this stage alone when you
 * want the normalized request before, or without, that check. Every issue is reported at once, up
 * to a bound: at most 50, then one `too_many_issues` issue counting the rest (S15). The input is
 * never modified.
 *
 * @param input - A parsed JSON body, of any type.
 * @param options - `catalog` (a catalog, or a price history) and `at`: whose models and defaults
 *   apply (default: the built-in catalog).
 * @returns `{ success: true, output }` with the normalized request, or
 * `{ success: false, issues }`.
 * @example
 * ```ts
 * const result = normalizeRequest({ prompt: "  a red fox ", modelId: "beta2" });
 * if (result.success) result.output.resolution; // "2K", the model's default
 * else console.log(result.issues);             // [{ path, code, message }, ...]
 * ```
 */
export function normalizeRequest(
  input: unknown,
  options?: CatalogOptions,
): Result<GenerationRequest> {
  const shape = readShape(input, resolveCatalog(options, "normalizeRequest"));
  return shape.success ? shape : { success: false, issues: bounded(shape.issues, shape.omitted) };
}
