/**
 * node-postgres (`pg`), loaded so that a missing install is one clear error instead of a
 * module-resolution trace, and the few of its shapes the store's own code uses (internal: the
 * entry's option takes `pg`'s own `Pool`).
 *
 * `pg` is an optional peer dependency: the core and the server never need it, and this entry needs
 * it at once. ES modules resolve static imports before any code runs, so the ES build loads it with
 * a top-level `await import()` it can catch, and the CommonJS build with a `require` it can catch.
 */
import type * as Pg from "pg";

declare const TSUP_FORMAT: string | undefined;

/** One statement, as the store sends it: a name makes it a prepared statement on each connection. @internal */
export type PgQuery = {
  readonly text: string;
  readonly values?: unknown[];
  readonly name?: string;
  /** Milliseconds to wait for the answer before giving the connection up (pg's per-query `query_timeout`). */
  readonly query_timeout?: number;
};

/** The part of a query's result the store reads. @internal */
export type PgResult<R> = { readonly rows: R[]; readonly rowCount: number | null };

/** What the store asks of a connection: to run a statement (a `pg` `Pool` or `PoolClient` has it). @internal */
export interface PgQueryable {
  /** Runs one statement (SQL text with `values` for `$1`, `$2`..., or a {@link PgQuery}): its rows, and how many it touched. */
  query<R extends object = Record<string, unknown>>(
    query: string | PgQuery,
    values?: unknown[],
  ): Promise<PgResult<R>>;
}

/** A connection checked out of a pool, for a transaction (a `pg` `PoolClient`). @internal */
export interface PgPoolClient extends PgQueryable {
  /** Returns the connection to its pool, or closes it when given `true` or the error that broke it. */
  release(destroy?: boolean | Error): void;
}

/**
 * A pool of connections, as far as the store uses one: a `pg` `Pool` (node-postgres 8) has every
 * method here.
 *
 * @internal
 */
export interface PgPool extends PgQueryable {
  /** Checks a connection out of the pool; give it back with `release()`. */
  connect(): Promise<PgPoolClient>;
  /** Listens for an idle connection's error (so that a dropped connection does not end the process). */
  on(event: "error", listener: (error: Error) => void): unknown;
  /** Stops listening for an idle connection's error. */
  off(event: "error", listener: (error: Error) => void): unknown;
  /** Closes every connection. */
  end(): Promise<void>;
}

/**
 * What importing the PostgreSQL entry says when `pg` cannot be found: a constant, so that the source
 * line Node prints above an uncaught error does not repeat the message.
 */
const PG_MISSING = "imagegen-pricing/postgres needs pg 8: npm install pg";

/** Rethrows an error, made the one line {@link PG_MISSING} when the package `pg` itself (not a module inside it) was not found. */
function missing(error: unknown): never {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const notFound = code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
  if (!notFound || typeof message !== "string" || !/['"]pg['"]/.test(message)) {
    throw error;
  }
  const short = new Error(PG_MISSING);
  // Code that loads this entry on demand (the CLI's `serve --database-url`) tells a missing module by
  // its code; not enumerable, so that Node's report of the error stays the one line.
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
