/**
 * A quote spec (P2, S11): its fields, its schema, and the one reader that trims and checks it,
 * shared by `quote` (which turns what it cannot price into `credits: null`) and by a quote endpoint
 * (which answers a spec that is not an object of the quote's fields with its issues, and any other
 * exactly as `quote` does).
 */
import * as v from "valibot";
import { messages } from "../messages.js";
import { LIMITS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { text } from "../request/fields.js";
import { bounded, formatPath, toIssue, unknownFields } from "../request/issues.js";
import { isPlainObject } from "../request/normalizeRequest.js";
import type { Issue, ModelId, Quality, Resolution, Result } from "../types.js";

/**
 * What to price: one output image of a model (the service's image specification, the body of the
 * quote endpoint).
 *
 * Its values are typed as the public lists, so an editor offers them and a typo does not compile;
 * `quote` still judges any value at run time (a spec read from JSON), answering `credits: null`
 * with the reason for what it cannot price (P2).
 */
export type QuoteSpec = {
  kind: "image";
  /** A built-in model ({@link ModelId}), or any id of a catalog of your own. */
  modelId: ModelId | (string & {});
  /** Default: the model's default resolution (N8). */
  resolution?: Resolution;
  /** Default: `"low"` (N9). */
  quality?: Quality;
  /**
   * Distinct reference images; default 0. The service interface's name for the field of the quote
   * endpoint's body; the same count is `referenceCount` everywhere else (`computeCharge`'s option,
   * a quote's breakdown).
   */
  referenceImageCount?: number;
};

/** The fields of a quote spec. */
export const QUOTE_SPEC_FIELDS = [
  "kind",
  "modelId",
  "resolution",
  "quality",
  "referenceImageCount",
] as const;

const KNOWN = new Set<string>(QUOTE_SPEC_FIELDS);

const referenceCount = (i: { input: unknown }) =>
  messages.invalidReferenceCount("referenceImageCount", LIMITS.maxReferences, i.input);

/**
 * The quote spec schema (S11): a JSON object of the quote's fields, each of its type: `kind` and
 * `modelId` strings (required), `resolution` and `quality` strings, `referenceImageCount` a number,
 * nothing else. Strings are trimmed (N3). The values themselves are `quote`'s to judge: an unknown
 * model, a `kind` other than `image`, a value outside the public lists or that the model does not
 * offer, a count that is not a whole number from 0 to the model's limit is `credits: null` with its
 * reason (P2), on the quote endpoint as in code.
 */
export const QuoteSpecSchema = v.strictObject(
  {
    /** Required; `"image"` is the only kind priced (another is `credits: null`, P2). */
    kind: text("kind"),
    /** Required; an unknown model is `credits: null` (P2). */
    modelId: text("modelId"),
    /** `1K`, `2K` or `4K`; default: the model's. Another value is `credits: null` (P2). */
    resolution: v.optional(text("resolution")),
    /** `low`, `medium` or `high`; default `low`. Another value is `credits: null` (P2). */
    quality: v.optional(text("quality")),
    /** Distinct reference images, a whole number from 0 to 14 and the model's limit; default 0. */
    referenceImageCount: v.optional(v.number(referenceCount)),
  },
  // valibot reports a missing key with the object's message, at the key's path.
  (i) => (i.path ? messages.required(formatPath(i.path)) : messages.invalidSpec(i.input)),
);

/** A quote spec's fields as read: strings trimmed, anything else as given. @internal */
export type SpecFields = { readonly [K in (typeof QUOTE_SPEC_FIELDS)[number]]?: unknown };

/**
 * What one read of a spec gives: its fields, and its issues (none when it is well formed).
 * @internal
 */
type ReadSpec = { fields: SpecFields; issues: Issue[] };

const NONE: Issue[] = [];

/**
 * A spec that reading would leave as it is: `kind` and `modelId` strings with nothing to trim, the
 * other fields absent or already one of their values. Most specs are, and they skip the schema.
 */
function isCanonical(s: SpecFields): boolean {
  const { kind, modelId, resolution, quality, referenceImageCount: n } = s;
  return (
    typeof kind === "string" &&
    typeof modelId === "string" &&
    kind === kind.trim() &&
    modelId === modelId.trim() &&
    (resolution === undefined || (RESOLUTIONS as readonly unknown[]).includes(resolution)) &&
    (quality === undefined || (QUALITIES as readonly unknown[]).includes(quality)) &&
    (n === undefined ||
      (Number.isInteger(n) && (n as number) >= 0 && (n as number) <= LIMITS.maxReferences))
  );
}

/**
 * Reads a quote spec once: trims its strings and checks each field against {@link QuoteSpecSchema},
 * every issue at once and within the bounds of S15. The one reader behind `quote` and
 * {@link parseQuoteSpec}. @internal
 *
 * @param spec - Any object.
 * @param strict - Read own fields only and report unknown ones (a body from a client), or read
 *   fields as properties and ignore the rest (a spec in code).
 * @returns The fields as read (even when malformed), and the issues.
 */
export function readQuoteSpec(spec: object, strict: boolean): ReadSpec {
  const s = spec as Record<string, unknown>;
  const own = strict ? Object.keys(s) : undefined;
  if (
    own === undefined
      ? isCanonical(s)
      : own.every((key) => KNOWN.has(key)) && isCanonical(pickOwn(s))
  ) {
    return { fields: s, issues: NONE };
  }
  const known: Record<string, unknown> = {};
  for (const key of QUOTE_SPEC_FIELDS) {
    if (strict ? Object.hasOwn(s, key) : key in s) {
      known[key] = s[key];
    }
  }
  const unknown = own
    ? unknownFields(own, KNOWN, messages.unknownSpecField)
    : { issues: NONE, omitted: 0 };
  const result = v.safeParse(QuoteSpecSchema, known);
  const issues = [...unknown.issues, ...(result.issues ?? []).map(toIssue)];
  return { fields: result.output as SpecFields, issues: bounded(issues, unknown.omitted) };
}

/**
 * The fields of a spec in code, as {@link readQuoteSpec} reads them, without making anything for a
 * spec that is already canonical: what `quote` prices. @internal
 *
 * @param spec - Any object.
 * @returns The fields as read.
 */
export function specFields(spec: object): SpecFields {
  return isCanonical(spec) ? spec : readQuoteSpec(spec, false).fields;
}

/** The spec's own known fields. */
function pickOwn(s: Record<string, unknown>): SpecFields {
  const out: Record<string, unknown> = {};
  for (const key of QUOTE_SPEC_FIELDS) {
    if (Object.hasOwn(s, key)) {
      out[key] = s[key];
    }
  }
  return out;
}

/**
 * Checks that a quote spec from a client is a JSON object of the quote's fields (S11): `kind` and
 * `modelId` strings, `resolution` and `quality` strings, a `referenceImageCount` number, and no
 * other field. Strings are trimmed (N3). Whether the values can be priced is `quote`'s answer, so
 * that an endpoint and `quote` answer every such spec alike (`credits: null` and its reason, P2).
 *
 * @param input - A parsed JSON body, of any type.
 * @returns `{ success: true, output }` with the trimmed spec, or `{ success: false, issues }` with
 *   every issue (`unknown_field`, `required`, `invalid_type`; at most 50, then `too_many_issues`).
 * @example
 * ```ts
 * const spec = parseQuoteSpec(JSON.parse(body));
 * if (!spec.success) return { status: 400, issues: spec.issues };
 * return { status: 200, body: quote(spec.output, account) };
 * ```
 */
export function parseQuoteSpec(input: unknown): Result<QuoteSpec> {
  if (!isPlainObject(input)) {
    return {
      success: false,
      issues: [{ path: "", code: "invalid_type", message: messages.invalidSpec(input) }],
    };
  }
  const read = readQuoteSpec(input, true);
  if (read.issues.length > 0) {
    return { success: false, issues: read.issues };
  }
  // Typed as the spec `quote` takes: its strings are still the client's, which `quote` judges.
  return { success: true, output: pickOwn(read.fields as Record<string, unknown>) as QuoteSpec };
}
