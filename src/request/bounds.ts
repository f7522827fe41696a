/**
 * How much of a request or quote spec is read and echoed back, whatever its size, so that checking
 * it costs time linear in its size and bounded per request, and an answer stays small (S15).
 */

import { MAX_ECHO_CHARS } from "../echo.js";

/** The bounds every check of a request or quote spec keeps (S15). */
export const BOUNDS = {
  /**
   * Issues reported at most; any further ones are counted in one last `too_many_issues` issue at
   * path `""`, so a list holds at most 51 issues.
   */
  maxIssues: 50,
  /**
   * Entries of `inputAssetIds` read at most. A longer list is one `too_many_references` issue at
   * `inputAssetIds` and its entries are not read: no model accepts more than 14 distinct assets,
   * and a list this long is no honest request, whatever its duplicates.
   */
  maxReferenceEntries: 1000,
  /**
   * Code points of a client value (a string, an unknown field's name) shown in a message or a
   * path; a longer value is cut there and ends in `...`.
   */
  maxEchoChars: MAX_ECHO_CHARS,
} as const;
