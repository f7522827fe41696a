/** Catalogs the tests share. */
import { type Catalog, catalog, defineCatalog } from "../../src/index.js";

/**
 * A catalog other than the built-in one: two models and another default, for what a document or a
 * schema generated from a catalog must follow.
 */
export const otherCatalog: Catalog = defineCatalog({
  ...catalog,
  version: "2031-01-01",
  defaultModelId: "gamma-image-1.5",
  models: { beta: catalog.models.beta, "gamma-image-1.5": catalog.models["gamma-image-1.5"] },
} as Catalog);
