/**
 * The catalogs of one reference server: one catalog always in force, or a history whose entries
 * each take effect at their version date (P8), with the catalog in force at an instant, a task's
 * catalog by version, and the OpenAPI document of the catalog in force.
 */
import { catalog as builtIn } from "../models/catalog.js";
import {
  type CatalogChangeTime,
  defineCatalogHistory,
  NoCatalogInForceError,
  versionStart,
} from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import type { CatalogInForce, ServerCatalogs } from "./context.js";
import { createOpenApiDocument } from "./openapi/document.js";

/**
 * Makes the catalogs of a server from its options: `catalogs` (a history, checked here once) or
 * `catalog` (always in force, whatever the clock), or the built-in catalog.
 *
 * @throws RangeError when both are given; `CatalogHistoryError` naming each bad entry of
 * `catalogs`.
 * @internal
 */
export function serverCatalogs(
  catalog: Catalog | undefined,
  catalogs: readonly Catalog[] | undefined,
): ServerCatalogs {
  if (catalog !== undefined && catalogs !== undefined) {
    throw new RangeError(
      "createReferenceServer: pass either `catalog` (one catalog, always in force) or " +
        "`catalogs` (a history, oldest first, each catalog in force from its version " +
        "date), not both.",
    );
  }
  const texts = new Map<Catalog, string>();
  const openApiOf = (c: Catalog) => {
    const text = texts.get(c) ?? JSON.stringify(createOpenApiDocument(c));
    texts.set(c, text);
    return text;
  };

  if (catalogs === undefined) {
    const only = catalog ?? builtIn;
    const inForce: CatalogInForce = { catalog: only, next: undefined };
    return {
      at: () => inForce,
      byVersion: (version) => (version === only.version ? only : undefined),
      openApiText: () => openApiOf(only),
    };
  }

  // A copy, so that a caller changing its array later does not change the server's prices.
  const history: readonly Catalog[] = Object.freeze([...defineCatalogHistory(catalogs)]);
  // defineCatalogHistory has checked every version is a calendar date, strictly increasing.
  const starts = history.map((c) => versionStart(c.version) as number);
  const first = history[0] as Catalog;
  /**
   * The index of the last entry whose start is not after `now`; -1 before the first (and for a
   * clock that is not a number).
   */
  const indexAt = (now: number) => {
    let i = starts.length - 1;
    while (i >= 0 && !((starts[i] as number) <= now)) {
      i--;
    }
    return i;
  };
  const next = (index: number): CatalogChangeTime | undefined => {
    const c = history[index + 1];
    const at = starts[index + 1];
    return c === undefined || at === undefined
      ? undefined
      : {
          version: c.version,
          effectiveAt: new Date(at).toISOString(),
          effectiveAtMs: at,
          catalog: c,
        };
  };
  // One answer per entry: the same object for every request priced under it.
  const answers: CatalogInForce[] = history.map((c, i) => ({ catalog: c, next: next(i) }));
  return {
    at(now) {
      const found = answers[indexAt(now)];
      if (found !== undefined) {
        return found;
      }
      if (!Number.isFinite(now)) {
        throw new RangeError(
          `The server's clock (the now option) must return epoch milliseconds; it returned ${now}.`,
        );
      }
      throw new NoCatalogInForceError(now, first.version);
    },
    byVersion: (version) => history.find((c) => c.version === version),
    openApiText: (now) => openApiOf(history[indexAt(now)] ?? first),
  };
}

/**
 * When the first catalog of a history takes effect (00:00 UTC of its version), from the error of an
 * instant before it. @internal
 */
export function firstCatalogStart(error: NoCatalogInForceError): number {
  return versionStart(error.firstVersion) ?? 0;
}
