/**
 * The valibot building blocks of request and quote-spec fields: trimmed strings, options from a
 * list, lengths in code points, lists sized before their entries are read. Both schemas are made of
 * these, so a field means the same, and says the same, wherever it appears.
 */
import * as v from "valibot";
import { type IssueCode, messages } from "../messages.js";
import { QUALITIES } from "../models/lists.js";
import { coded } from "./issues.js";

/** Any UTF-16 surrogate: a string without one has as many code points as units. */
const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Length in Unicode code points, the unit of every length rule. @internal
 *
 * @param s - Any string.
 * @returns How many code points it has (a lone surrogate counts as one, as `[...s]` counts it).
 */
export function charLength(s: string): number {
  // Most strings hold no surrogate, and the regex engine answers that without a loop in script.
  // Stryker disable next-line ConditionalExpression: the loop counts such a string the same, only
  // slower
  if (!SURROGATE.test(s)) {
    return s.length;
  }
  let n = s.length;
  // Past the end, charCodeAt is NaN, which no range test below accepts: the loop needs no other
  // bound. Stryker disable next-line EqualityOperator: one step past the end reads NaN, see above
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** A string is at most `max` code points; the cheap UTF-16 length answers most cases alone. */
const fitsIn = (max: number) => (s: string) => {
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a string has no more code
  // points than UTF-16 units, so charLength alone gives the same answer
  if (s.length <= max) {
    return true;
  }
  return charLength(s) <= max;
};

/**
 * A string; a wrong type is `invalid_type` (N14). Each helper below starts its own flat pipe with
 * it.
 */
const string = (field: string) => v.string((i) => messages.wrongType(field, "a string", i.input));

/**
 * A string field, trimmed (N3); a wrong type is `invalid_type` (N14). @internal
 *
 * @param field - The field's name, for the message.
 * @returns The schema.
 */
export const text = (field: string) => v.pipe(string(field), v.trim());

/**
 * A trimmed string of 1 or more code points (N12's asset ids). @internal
 *
 * @param field - The field's name, for the messages.
 * @returns The schema.
 */
export const nonBlank = (field: string) =>
  v.pipe(string(field), v.trim(), v.minLength(1, coded("too_short", messages.blank(field))));

/**
 * A trimmed string of 1 to `max` code points (N4, N13). @internal
 *
 * @param field - The field's name, for the messages.
 * @param max - The most code points allowed after trimming.
 * @returns The schema.
 */
export const trimmedString = (field: string, max: number) =>
  v.pipe(
    string(field),
    v.trim(),
    v.minLength(1, coded("too_short", messages.blank(field))),
    v.check(
      fitsIn(max),
      coded("too_long", (i) => messages.tooLong(field, max, charLength(i.input as string))),
    ),
  );

/**
 * A trimmed string that must be one of `allowed` (N3, N6-N10); anything else is `code`. @internal
 *
 * @param field - The field's name, for the message.
 * @param allowed - The accepted values, listed in the message.
 * @param options - `code` (default `invalid_option`), `message` (default: names the field, the
 * value
 *   and the allowed values), `hint` (added to the default message for some values).
 * @returns The schema.
 */
export const option = <const T extends string>(
  field: string,
  allowed: readonly T[],
  options: {
    code?: IssueCode;
    message?: (got: unknown) => string;
    hint?: (got: unknown) => string;
  } = {},
) =>
  v.pipe(
    string(field),
    v.trim(),
    v.picklist(
      allowed,
      coded(
        options.code ?? "invalid_option",
        (i) =>
          options.message?.(i.input) ??
          messages.invalidOption(field, i.input, allowed, options.hint?.(i.input)),
      ),
    ),
  );

const UNOFFERED_QUALITIES = ["auto", "xhigh", "max"];

/**
 * What a quality message adds for a value no model offers (N9). @internal
 *
 * @param got - The value received.
 * @returns The words to add, or `""`.
 */
export const qualityHint = (got: unknown): string =>
  UNOFFERED_QUALITIES.includes(String(got))
    ? " (auto, xhigh and max are not offered by any model)"
    : "";

/**
 * A quality (N9): one of the public levels; `auto`, `xhigh` and `max` get a message saying that no
 * model offers them. @internal
 *
 * @returns The schema.
 */
export const qualityOption = () => option("quality", QUALITIES, { hint: qualityHint });

/**
 * An array schema that checks the array's length before its entries (S15): a list longer than
 * `max` is one issue with `code`, and its entries are not read, so a huge list of bad entries costs
 * one step, not one issue per entry. @internal
 *
 * @param list - A valibot array schema.
 * @param max - The most entries read.
 * @param code - The code of a list that is too long.
 * @param message - The sentence for a list of `length` entries.
 * @returns The same schema, sized first.
 */
export function sizedFirst<S extends v.GenericSchema<unknown[]>>(
  list: S,
  max: number,
  code: IssueCode,
  message: (length: number) => string,
): S {
  // Run only on a list that is too long, so its requirement always fails.
  const tooLong = v.check(
    // Stryker disable next-line ArrowFunction: valibot fails a check on any falsy answer, undefined
    // too
    () => false,
    coded(code, (i) => message((i.input as unknown[]).length)),
  );
  return {
    ...list,
    "~run"(dataset: v.UnknownDataset, config: v.Config<v.BaseIssue<unknown>>) {
      if (Array.isArray(dataset.value) && dataset.value.length > max) {
        // The check reports only on a typed value; the list is not typed, and stays so.
        const out = tooLong["~run"]({ typed: true, value: dataset.value }, config);
        return { typed: false, value: out.value, issues: out.issues } as v.FailureDataset<
          v.BaseIssue<unknown>
        >;
      }
      return list["~run"](dataset, config);
    },
  };
}
