/** The oracle of a run: the package's built-in catalog, typed as any catalog. */
import { type Catalog, catalog } from "../index.js";

/** The catalog the kit holds a server to: the newest built-in one. */
export const CATALOG: Catalog = catalog;
