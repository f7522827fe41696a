/**
 * How a check's findings become public issues: the one place that gives a valibot issue its code
 * and path, and that keeps a list of issues within its bound (N15, S15).
 */
import type * as v from "valibot";
import { safeEcho } from "../echo.js";
import { type IssueCode, messages } from "../messages.js";
import type { Issue } from "../types.js";
import { BOUNDS } from "./bounds.js";

/** A valibot issue, with the code {@link coded} gave it. @internal */
type CodedIssue = v.BaseIssue<unknown> & { code?: IssueCode };

/**
 * The message of a valibot check that also gives each issue it reports its stable `code`, and, with
 * `field`, the path of that field: a check over the whole object (two fields compared) then
 * reports at the field it is about. valibot calls a message only when it reports an issue, so a
 * valid value costs nothing more, and the check itself is unchanged (a JSON Schema can still be
 * derived from it). @internal
 *
 * @param code - The code of every issue reported with this message.
 * @param message - The sentence, or a function of the issue that makes it.
 * @param field - The top-level field the issue is reported at, if not where the check runs.
 * @returns A valibot message function.
 */
export function coded<I extends v.BaseIssue<unknown>>(
  code: IssueCode,
  message: string | ((issue: I) => string),
  field?: string,
): (issue: I) => string {
  return (issue) => {
    const stamped = issue as CodedIssue & { path: unknown };
    stamped.code = code;
    if (field !== undefined) {
      const input = issue.input as Record<string, unknown>;
      stamped.path = [{ type: "object", origin: "value", input, key: field, value: input[field] }];
    }
    return typeof message === "string" ? message : message(issue);
  };
}

/**
 * Formats a valibot path as `field`, `field.sub` or `field[2]`. @internal
 *
 * @param path - The issue's path items.
 * @returns The path as one string (`""` for the value itself).
 */
export function formatPath(path: readonly { key: unknown }[] | undefined): string {
  let out = "";
  for (const item of path ?? []) {
    out +=
      typeof item.key === "number"
        ? `[${item.key}]`
        : out === ""
          ? String(item.key)
          : `.${String(item.key)}`;
  }
  return out;
}

/**
 * Turns a valibot issue into a public {@link Issue}: the code {@link coded} gave it, `required` for
 * a missing key, `invalid_type` for any other type error. @internal
 *
 * @param issue - An issue of the request or quote-spec schema.
 * @returns The public issue.
 */
export function toIssue(issue: CodedIssue): Issue {
  // Only an object schema reports at a key's own path: a key that is missing.
  const missing = issue.path?.at(-1)?.origin === "key";
  return {
    path: formatPath(issue.path),
    code: issue.code ?? (missing ? "required" : "invalid_type"),
    message: issue.message,
  };
}

/**
 * The issues of a body's unknown fields, one per field, each at the field's name cut short (N2,
 * S15): at most {@link BOUNDS}.maxIssues are made, the rest only counted. @internal
 *
 * @param keys - The body's own keys.
 * @param known - The fields the body may have.
 * @param message - The sentence for an unknown field.
 * @returns The issues made, and how many more unknown fields there are.
 */
export function unknownFields(
  keys: readonly string[],
  known: ReadonlySet<string>,
  message: (field: string) => string,
): { issues: Issue[]; omitted: number } {
  const issues: Issue[] = [];
  let omitted = 0;
  for (const key of keys) {
    if (known.has(key)) {
      continue;
    }
    if (issues.length < BOUNDS.maxIssues) {
      issues.push({ path: safeEcho(key), code: "unknown_field", message: message(key) });
    } else {
      omitted++;
    }
  }
  return { issues, omitted };
}

/**
 * Keeps a list of issues within its bound (S15): the first {@link BOUNDS}.maxIssues, then one
 * `too_many_issues` issue at path `""` that says how many were left out. @internal
 *
 * @param issues - Every issue made, in the order to report them.
 * @param omitted - Issues found but never made (counted only).
 * @returns At most `maxIssues + 1` issues.
 */
export function bounded(issues: Issue[], omitted = 0): Issue[] {
  const over = issues.length + omitted - BOUNDS.maxIssues;
  if (over <= 0) {
    return issues;
  }
  const kept = issues.slice(0, BOUNDS.maxIssues);
  kept.push({ path: "", code: "too_many_issues", message: messages.tooManyIssues(over) });
  return kept;
}
