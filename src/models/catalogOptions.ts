/**
 * The options every core function shares to say which prices and limits apply: a catalog, or a
 * price history read at an instant (P8).
 */
import { messages } from "../messages.js";
import { catalog as builtIn } from "./catalog.js";
import { catalogAt, catalogHistory, type Instant } from "./history.js";
import type { Catalog } from "./modelSpec.js";

/** Which catalog applies: the same two fields in the options of every core function. */
export type CatalogOptions = {
  /**
   * A catalog, or a price history (catalogs, oldest first) read at `at`. Default: the newest
   * built-in catalog, or with `at` the built-in history at that instant.
   */
  catalog?: Catalog | readonly Catalog[] | undefined;
  /**
   * The instant whose prices apply (a `Date`, epoch milliseconds or an ISO 8601 string). A history
   * read without it is read at the current time; a single catalog read at an instant before its
   * version date has no price then (`NoCatalogInForceError`).
   */
  at?: Instant | undefined;
};

/**
 * The catalog that `options` name: the catalog itself, or the history's entry in force at `at`.
 * @internal
 *
 * @param options - `catalog` and `at`, both optional.
 * @param fn - The public function asking, named when its 0.2.0 form (a catalog in the place of the
 *   options) is used, so that old code fails loudly instead of silently reading the built-in
 * catalog.
 * @returns The catalog to read.
 * @throws TypeError when `options` is a catalog (the 0.2.0 form); `NoCatalogInForceError` (a
 * RangeError) when `at` is before the history's first entry;
 *   RangeError when `at` is not an instant; `CatalogHistoryError` for a history whose versions are
 *   not increasing dates.
 */
export function resolveCatalog(options: CatalogOptions | undefined, fn: string): Catalog {
  if (options !== undefined && "models" in options) {
    throw new TypeError(messages.oldCatalogArgument(fn));
  }
  const given = options?.catalog;
  const at = options?.at;
  if (given === undefined) {
    return at === undefined ? builtIn : catalogAt(catalogHistory, at);
  }
  if (isHistory(given)) {
    return catalogAt(given, at ?? Date.now());
  }
  return at === undefined ? given : catalogAt([given], at);
}

/** Whether a `catalog` option is a history (a list) rather than one catalog. */
function isHistory(given: Catalog | readonly Catalog[]): given is readonly Catalog[] {
  return Array.isArray(given);
}
