/**
 * The strict schema of a quote spec (S11): what `POST /api/pricing/quote` accepts before pricing.
 * Shape problems are a 400 with issues; a well-formed spec that cannot be priced (an unknown model,
 * a `kind` other than `image`, a cell the model does not offer) is `credits: null` from the core's
 * `quote` (P2).
 */
import * as v from "valibot";
import { LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import type { QuoteSpec } from "../pricing/quote.js";
import { formatPath } from "../request/issues.js";
import { isPlainObject } from "../request/normalizeRequest.js";
import type { Issue } from "../types.js";
import { serverMessages as m } from "./messages.js";

/** The fields of a quote spec. */
export const QUOTE_SPEC_FIELDS = ["kind", "modelId", "resolution", "quality", "referenceImageCount"] as const;

const text = (field: string) =>
  v.pipe(
    v.string((i) => m.specWrongType(field, "a string", i.input)),
    v.trim(),
  );
const option = <const T extends string>(field: string, allowed: readonly T[]) =>
  v.pipe(
    v.string((i) => m.specWrongType(field, "a string", i.input)),
    v.trim(),
    v.picklist(allowed, (i) => m.specOption(field, i.input, allowed)),
  );
const referenceCount = (i: { input: unknown }) => m.specReferenceCount(LIMITS.maxReferences, i.input);

/**
 * The quote spec schema: `kind` and `modelId` strings (required), `resolution` and `quality` within
 * the public lists, `referenceImageCount` a whole number from 0 to 14, nothing else. Strings are
 * trimmed (N3).
 */
export const QuoteSpecSchema = v.strictObject(
  {
    /** Required; `"image"` is the only kind priced (another is `credits: null`, P2). */
    kind: text("kind"),
    /** Required; an unknown model is `credits: null` (P2). */
    modelId: text("modelId"),
    /** `1K`, `2K` or `4K`; default: the model's. */
    resolution: v.optional(option("resolution", RESOLUTIONS)),
    /** `low`, `medium` or `high`; default `low`. */
    quality: v.optional(option("quality", QUALITIES)),
    /** Distinct reference images, 0 to 14; default 0. */
    referenceImageCount: v.optional(
      v.pipe(
        v.number(referenceCount),
        v.integer(referenceCount),
        v.minValue(0, referenceCount),
        v.maxValue(LIMITS.maxReferences, referenceCount),
      ),
    ),
  },
  // valibot reports a missing key with the object's message, at the key's path.
  (i) => (i.path ? m.specRequired(String(i.path[0]?.key)) : m.specNotObject(i.input)),
);

const CODES: Record<string, string> = {
  picklist: "invalid_option",
  integer: "invalid_reference_count",
  min_value: "invalid_reference_count",
  max_value: "invalid_reference_count",
};

/**
 * Checks a parsed body against {@link QuoteSpecSchema}, reporting every issue at once.
 *
 * @param input - The parsed JSON body.
 * @returns The trimmed spec, or every issue (`unknown_field`, `required`, `invalid_type`,
 *   `invalid_option`, `invalid_reference_count`).
 * @internal
 */
export function parseQuoteSpec(input: unknown): { success: true; output: QuoteSpec } | { success: false; issues: Issue[] } {
  if (!isPlainObject(input)) {
    return { success: false, issues: [{ path: "", code: "invalid_type", message: m.specNotObject(input) }] };
  }
  const issues: Issue[] = [];
  const known: Record<string, unknown> = {};
  // Unknown keys are listed by hand: valibot skips `__proto__` and friends (docs/decisions.md, N2).
  for (const key of Object.keys(input)) {
    if ((QUOTE_SPEC_FIELDS as readonly string[]).includes(key)) known[key] = input[key];
    else issues.push({ path: key, code: "unknown_field", message: m.specUnknownField(key) });
  }
  const result = v.safeParse(QuoteSpecSchema, known);
  if (!result.success) {
    for (const issue of result.issues) {
      const path = formatPath(issue.path);
      const missing = issue.type === "strict_object" && issue.path?.at(-1)?.origin === "key";
      const code = missing ? "required" : (CODES[issue.type] ?? "invalid_type");
      issues.push({ path, code, message: issue.message });
    }
  }
  if (issues.length > 0 || !result.success) return { success: false, issues };
  return { success: true, output: result.output as QuoteSpec };
}
