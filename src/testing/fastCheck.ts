/**
 * The fast-check module that every arbitrary of `imagegen-pricing/testing` is built with, loaded so
 * that a missing install is one clear error instead of a module-resolution trace.
 *
 * fast-check is an optional peer dependency: the core never needs it, and this entry needs it at
 * once. ES modules resolve static imports before any code runs, so the ES build loads it with a
 * top-level `await import()` it can catch, and the CommonJS build (where top-level `await` does not
 * exist) with a `require` it can catch; tsup defines `TSUP_FORMAT` for each build, and the source
 * run by Vitest or tsx takes the ES branch.
 *
 * @module
 */
import type * as FastCheck from "fast-check";

declare const TSUP_FORMAT: string | undefined;

/** What importing the testing entry says when fast-check cannot be found. */
const FAST_CHECK_MISSING = "imagegen-pricing/testing needs fast-check 4: npm install -D fast-check";

/** Does this error say that the package `fast-check` itself could not be found? */
function isFastCheckMissing(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = e?.code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof e?.message === "string" &&
    e.message.includes("'fast-check'")
  );
}

function missing(error: unknown): never {
  if (isFastCheckMissing(error)) {
    throw new Error(FAST_CHECK_MISSING);
  }
  throw error;
}

let loaded: typeof FastCheck;
if (typeof TSUP_FORMAT === "string" && TSUP_FORMAT === "cjs") {
  try {
    loaded = require("fast-check") as typeof FastCheck;
  } catch (error) {
    missing(error);
  }
} else {
  loaded = await import("fast-check").catch(missing);
}

/** The fast-check namespace (`fc`). */
export const fc: typeof FastCheck = loaded;
