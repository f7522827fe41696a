/**
 * The store `imagegen-pricing serve` keeps its state in, and how its start-up lines name it: in
 * memory by default, or PostgreSQL for a database URL, with the URL's password shown as `***`.
 * PostgreSQL is loaded only when asked for, so that the `pg` package stays optional.
 */
import type { Store } from "../store/store.js";
import { EXIT } from "./io.js";
import { oneLine, StartError } from "./serveError.js";
import type { ServeOptions } from "./serveOptions.js";

/**
 * Opens the PostgreSQL store, loaded only when asked for, so that `pg` stays optional.
 *
 * @param url - The database URL (never printed as given: it may hold a password).
 * @param schema - The schema of its tables (default: the store's).
 * @returns The store, connected.
 * @throws StartError: exit code 1 when `pg` is missing or the database cannot be used, 2 for a bad schema name.
 */
export async function openPostgresStore(url: string, schema: string | undefined): Promise<Store> {
  let module: typeof import("../postgres/index.js");
  try {
    module = await import("../postgres/index.js");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new StartError("--database-url needs the pg package: install it next to imagegen-pricing (npm install pg).", 1);
    }
    throw error;
  }
  try {
    return await module.createPostgresStore({ connectionString: url, ...(schema === undefined ? {} : { schema }) });
  } catch (error) {
    if (error instanceof TypeError) throw new StartError(`--schema: ${oneLine(error.message)}`, EXIT.usage);
    // Never the URL itself: it may hold a password.
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message ? `: ${oneLine(cause.message)}` : "";
    throw new StartError(`Cannot use the database: ${oneLine((error as Error).message)}${detail}`, 1);
  }
}

/**
 * Which of the fixture users the store holds already: an earlier start loaded them, and they are
 * kept as the store has them.
 *
 * @param store - The PostgreSQL store, or none for the in-memory one (which starts empty).
 * @param users - The fixture users, each with its id.
 * @returns The ids of those the store knows.
 */
export async function usersInStore(store: Store | undefined, users: readonly { readonly id: string }[]): Promise<Set<string>> {
  const found = new Set<string>();
  if (store !== undefined) for (const { id } of users) if (await store.getUser(id)) found.add(id);
  return found;
}

/**
 * The store as the start-up summary names it.
 *
 * @param options - The database URL, its schema and where the URL came from.
 * @returns The text after `Store: `.
 */
export function storeName(options: ServeOptions): string {
  return options.databaseUrl === undefined
    ? "in memory (gone when the process ends)"
    : `PostgreSQL, schema ${options.schema ?? "imagegen"}, at ${maskDatabaseUrl(options.databaseUrl)} (from ${options.databaseUrlFrom})`;
}

/**
 * The store as the `--json` start-up line names it.
 *
 * @param options - The database URL.
 * @returns Its `store` field, and its `databaseUrl` without the password for PostgreSQL.
 */
export function storeFields(options: ServeOptions): { store: "memory" | "postgres"; databaseUrl?: string } {
  return options.databaseUrl === undefined
    ? { store: "memory" }
    : { store: "postgres", databaseUrl: maskDatabaseUrl(options.databaseUrl) };
}

/**
 * A database URL as it may be shown: its password (and a `password` query parameter) replaced by
 * `***`; a text that is not a URL is not shown at all.
 *
 * @param url - The connection string.
 * @returns The URL without its password.
 */
function maskDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(a connection string that is not a URL, not shown)";
  }
  if (parsed.password !== "") parsed.password = "***";
  for (const name of [...parsed.searchParams.keys()]) {
    if (/^(password|sslpassword|passfile|sslkey)$/i.test(name)) parsed.searchParams.set(name, "***");
  }
  return parsed.href;
}
