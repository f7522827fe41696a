import type { Issue } from "../types.js";

/**
 * Thrown by {@link computeCharge} for a request that cannot be charged, with every issue in
 * `issues`.
 *
 * That is a request {@link validateForModel} rejects, an invalid multiplier or an invalid reference
 * count.
 */
export class InvalidRequestError extends Error {
  override readonly name = "InvalidRequestError";
  /** Always `"invalid_request"`. */
  readonly code = "invalid_request";
  /** Every problem found, as `validateForModel` reports them. */
  readonly issues: Issue[];

  /**
   * Makes the error from the issues found; its message lists them all.
   *
   * @param issues - Every problem found, at least one.
   */
  constructor(issues: Issue[]) {
    super(
      "The request cannot be charged: " +
        `${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join(" ")}`,
    );
    this.issues = issues;
  }
}
