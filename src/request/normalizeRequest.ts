import * as v from "valibot";
import { catalog as builtIn } from "../models/catalog.js";
import type { Catalog } from "../models/modelSpec.js";
import { messages } from "../messages.js";
import type { GenerationRequest, Issue, Result } from "../types.js";
import { toIssue } from "./issues.js";
import { REQUEST_FIELDS, requestSchema } from "./schema.js";

const KNOWN = new Set<string>(REQUEST_FIELDS);

/** A plain object: not null, not an array, made by `{}` / `JSON.parse` or with a null prototype. @internal */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Normalizes a generation request body: checks its shape, trims every string, applies the defaults
 * (the model-dependent ones too), and de-duplicates references (rules N1-N15, and V2's explicit
 * resolution). Every issue is reported at once. The input is never modified.
 *
 * @param input - A parsed JSON body, of any type.
 * @param options - `catalog`: whose models and defaults apply (default: the built-in one).
 * @returns `{ success: true, output }` with the normalized request, or `{ success: false, issues }`.
 * @example
 * ```ts
 * const result = normalizeRequest({ prompt: "  a red fox ", modelId: "beta2" });
 * if (result.success) result.output.resolution; // "2K", the model's default
 * else console.log(result.issues);             // [{ path, code, message }, ...]
 * ```
 */
export function normalizeRequest(input: unknown, options?: { catalog?: Catalog }): Result<GenerationRequest> {
  if (!isPlainObject(input)) {
    return { success: false, issues: [{ path: "", code: "invalid_type", message: messages.notAnObject(input) }] };
  }
  const schema = requestSchema(options?.catalog ?? builtIn);

  const unknown: Issue[] = [];
  for (const key of Object.keys(input)) {
    if (!KNOWN.has(key)) unknown.push({ path: key, code: "unknown_field", message: messages.unknownField(key) });
  }
  if (unknown.length > 0) {
    // Check the known fields too, so that every issue is reported at once (N15).
    const known: Record<string, unknown> = {};
    for (const key of REQUEST_FIELDS) if (Object.hasOwn(input, key)) known[key] = input[key];
    const rest = v.safeParse(schema, known);
    return { success: false, issues: rest.success ? unknown : [...unknown, ...rest.issues.map(toIssue)] };
  }

  const result = v.safeParse(schema, input);
  return result.success ? { success: true, output: result.output } : { success: false, issues: result.issues.map(toIssue) };
}
