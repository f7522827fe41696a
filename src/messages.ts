/**
 * Every issue code and every sentence the core says, for requests and quote specs alike, kept
 * together so that the wording stays consistent and a translation has one file to replace.
 */
import { safeEcho } from "./echo.js";

/**
 * Stable codes of the issues `checkRequest`, `normalizeRequest`, `validateForModel` and
 * `computeCharge` report, to branch on.
 *
 * A message's wording may change; its code does not. The reference server's quote endpoint reports
 * these codes too.
 */
export type IssueCode =
  | "invalid_type"
  | "unknown_field"
  | "required"
  | "too_short"
  | "too_long"
  | "unknown_model"
  | "invalid_option"
  | "not_integer"
  | "too_small"
  | "references_required"
  | "references_not_allowed"
  | "too_many_references"
  | "resolution_required"
  | "unsupported_aspect_ratio"
  | "unsupported_resolution"
  | "unsupported_quality"
  | "unsupported_background"
  | "too_many_images"
  | "invalid_multiplier"
  | "invalid_reference_count"
  | "not_priceable"
  | "too_many_issues";

/** Why a quote has no price (`credits: null`). */
export type QuoteReason =
  | "invalid_spec"
  | "invalid_kind"
  | "unknown_model"
  | "resolution_required"
  | "unsupported_resolution"
  | "unsupported_quality"
  | "invalid_reference_count"
  | "too_many_references"
  | "invalid_multiplier"
  | "not_priceable";

/**
 * Shows a received value briefly: strings quoted and made safe (see {@link safeEcho}), other values
 * by type.
 */
export function show(value: unknown): string {
  if (typeof value === "string") {
    return JSON.stringify(safeEcho(value));
  }
  if (value === null) {
    return "null";
  }
  if (Array.isArray(value)) {
    return "an array";
  }
  if (typeof value === "number") {
    return String(value);
  }
  return typeof value === "object" ? "an object" : typeof value;
}

const list = (values: readonly string[]) => values.join(", ");

/** @internal */
export const messages = {
  notAnObject: (got: unknown) => `The request body must be a JSON object; received ${show(got)}.`,
  unknownField: (field: string, known: readonly string[]) =>
    `Field ${show(field)} is not part of a generation request; its fields are ${list(known)}.`,
  wrongType: (field: string, expected: string, got: unknown) =>
    `${field} must be ${expected}; received ${show(got)}.`,
  required: (field: string) => `${field} is required.`,
  blank: (field: string) => `${field} must not be empty or only whitespace.`,
  tooLong: (field: string, max: number, length: number) =>
    `${field} must be at most ${max} characters after trimming; it has ${length}.`,
  unknownModel: (got: unknown, ids: readonly string[]) =>
    `modelId ${show(got)} is not a known model; use one of ${list(ids)}.`,
  invalidOption: (field: string, got: unknown, allowed: readonly string[], hint = "") =>
    `${field} ${show(got)} is not accepted${hint}; use one of ${list(allowed)}.`,
  notInteger: (field: string, got: unknown) =>
    `${field} must be a whole number; received ${show(got)}.`,
  tooSmall: (field: string, min: number, got: unknown) =>
    `${field} must be at least ${min}; received ${show(got)}.`,
  referencesRequired: () =>
    "inputAssetIds must list at least one reference asset when generationType is image-to-image.",
  referencesNotAllowed: () =>
    "inputAssetIds must be empty when generationType is text-to-image; set " +
    "generationType to image-to-image to use reference images.",
  tooManyReferences: (max: number, got: number, modelId?: string) =>
    `inputAssetIds may list at most ${max} distinct ` +
    `assets${modelId ? ` for ${modelId}` : ""}; it lists ${got}.`,
  tooManyEntries: (maxDistinct: number, maxEntries: number, got: number) =>
    `inputAssetIds may list at most ${maxDistinct} distinct assets in at most ` +
    `${maxEntries} entries; it has ${got} entries, which were not read.`,
  resolutionRequired: (modelId: string, allowed: readonly string[]) =>
    `resolution is required for ${modelId}; pass ${list(allowed.map((r) => `"${r}"`))} explicitly.`,
  unsupported: (field: string, got: unknown, modelId: string, allowed: readonly string[]) =>
    `${field} ${show(got)} is not supported by ${modelId}; use one of ${list(allowed)}.`,
  tooManyReferenceImages: (max: number, got: number, modelId: string) =>
    `referenceImageCount may be at most ${max} for ${modelId}; received ${got}.`,
  tooManyImages: (max: number, got: number, modelId: string) =>
    `imageCount may be at most ${max} for ${modelId}; received ${got}.`,
  invalidMultiplier: (got: unknown) =>
    "The price multiplier must be a plain decimal from 0 to 1000 of at most 32 " +
    `characters (such as "1.15"), or a finite number in that range; received ` +
    `${show(got)}.`,
  invalidReferenceCount: (field: string, max: number, got: unknown) =>
    `${field} must be a whole number from 0 to ${max}; received ${show(got)}.`,
  notPriceable: (modelId: string, resolution: string, quality: string) =>
    `${modelId} has no price at resolution ${resolution} and quality ${quality}.`,
  tooManyIssues: (count: number) =>
    count === 1
      ? "1 more issue was left out to keep the answer short; fix the ones listed first."
      : `${count} more issues were left out to keep the answer short; fix the ones listed first.`,
  invalidSpec: (got: unknown) => `A quote spec must be a JSON object; received ${show(got)}.`,
  unknownSpecField: (field: string) =>
    `Field ${show(field)} is not part of a quote spec; use kind, modelId, resolution, ` +
    "quality and referenceImageCount.",
  invalidKind: (got: unknown) => `kind must be "image"; received ${show(got)}.`,
  oldCatalogArgument: (fn: string) =>
    `${fn} takes its catalog in its options since 0.3.0: ${fn}(input, { catalog }) ` +
    `rather than ${fn}(input, catalog).`,
  oldQuoteArguments: () =>
    "quote takes (spec, { account, catalog, at }) since 0.3.0: " +
    "quote(spec, { account: { multiplier } }) rather than " +
    "quote(spec, { multiplier }) or quote(spec, account, catalog).",
} as const;
