import type * as v from "valibot";
import type { IssueCode } from "../messages.js";
import type { Issue } from "../types.js";

/** Codes of valibot's own actions as used by the request schema. */
const ACTION_CODES: Record<string, IssueCode> = {
  min_length: "too_short",
  max_length: "too_many_references",
  integer: "not_integer",
  min_value: "too_small",
};

/** Formats a valibot path as `field`, `field.sub` or `field[2]`. @internal */
export function formatPath(path: readonly { key: unknown }[] | undefined): string {
  let out = "";
  for (const item of path ?? []) {
    out += typeof item.key === "number" ? `[${item.key}]` : out === "" ? String(item.key) : `.${String(item.key)}`;
  }
  return out;
}

/** Turns a valibot issue of the request schema into a public {@link Issue}. @internal */
export function toIssue(issue: v.BaseIssue<unknown>): Issue {
  const path = formatPath(issue.path);
  let code: string;
  if (issue.kind === "validation") code = ACTION_CODES[issue.type] ?? issue.type;
  else if (issue.type === "picklist") code = path === "modelId" ? "unknown_model" : "invalid_option";
  else if (issue.type === "object" && issue.path?.at(-1)?.origin === "key") code = "required";
  else code = "invalid_type";
  return { path, code, message: issue.message };
}
