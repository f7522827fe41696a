/**
 * node-postgres (`pg`), loaded so that a missing install is one clear error instead of a
 * module-resolution trace.
 *
 * `pg` is an optional peer dependency: the core and the server never need it, and this entry needs
 * it at once. ES modules resolve static imports before any code runs, so the ES build loads it with
 * a top-level `await import()` it can catch, and the CommonJS build with a `require` it can catch.
 */
import type * as Pg from "pg";

declare const TSUP_FORMAT: string | undefined;

/**
 * What importing the PostgreSQL entry says when `pg` cannot be found: a constant, so that the
 * source line Node prints above an uncaught error does not repeat the message.
 */
const PG_MISSING = "imagegen-pricing/postgres needs pg 8: npm install pg";

/**
 * Rethrows an error, made the one line {@link PG_MISSING} when the package `pg` itself (not a
 * module inside it) was not found.
 */
function missing(error: unknown): never {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
  if (!notFound || typeof message !== "string" || !/['"]pg['"]/.test(message)) {
    throw error;
  }
  const short = new Error(PG_MISSING);
  // Code that loads this entry on demand (the CLI's `serve --database-url`) tells a missing module
  // by its code; not enumerable, so that Node's report of the error stays the one line.
  Object.defineProperty(short, "code", {
    value: (error as { code: string }).code,
    enumerable: false,
  });
  throw short;
}

let loaded: typeof Pg;
if (typeof TSUP_FORMAT === "string" && TSUP_FORMAT === "cjs") {
  try {
    loaded = require("pg") as typeof Pg;
  } catch (error) {
    missing(error);
  }
} else {
  // `pg` is CommonJS: its exports are the ES module's default.
  loaded = await import("pg").then((module) => module.default as typeof Pg, missing);
}

/** The `pg` module (node-postgres). */
export const pg: typeof Pg = loaded;
