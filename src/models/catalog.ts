/** The built-in catalogs: every set of models and prices the package ships, oldest first (P8). */
import type { ModelId } from "../types.js";
import { alphaImg2, alphaImg2Official, alphaImg25Flare, alphaImg25Sunburst } from "./alpha.js";
import { beta, beta2, betaPro } from "./beta.js";
import { gammaImage15 } from "./gamma.js";
import type { Catalog, ModelSpec } from "./modelSpec.js";

/**
 * The eight models of the service interface and their prices, in force from 2026-11-20 00:00 UTC.
 */
const from20261120 = {
  version: "2026-11-20",
  defaultModelId: "alpha-img2-official",
  models: {
    "alpha-img2": alphaImg2,
    "alpha-img2-official": alphaImg2Official,
    "alpha-img2-5-flare": alphaImg25Flare,
    "alpha-img2-5-sunburst": alphaImg25Sunburst,
    "beta-pro": betaPro,
    beta2,
    beta,
    "gamma-image-1.5": gammaImage15,
  } satisfies Record<ModelId, ModelSpec>,
} as const satisfies Catalog;

/**
 * Every catalog the package ships, oldest first; `catalogHistory` checks and exports them. A price
 * change is one more entry at the end, usually the previous entry with the changed cells and a new
 * `version` (docs/pricing.md, "Changing a price").
 *
 * @internal
 */
export const SHIPPED_CATALOGS = [from20261120] as const satisfies readonly [Catalog, ...Catalog[]];

/**
 * The built-in catalog: the newest one the package ships, with the models of the service interface
 * and their prices.
 *
 * `version` is the date these prices take effect (00:00 UTC); to price at another instant, use
 * `catalogAt(catalogHistory, when)`.
 */
// The tuple is never empty, so its last element is defined, and it has every built-in model.
export const catalog = SHIPPED_CATALOGS[SHIPPED_CATALOGS.length - 1] as Catalog & {
  readonly models: Readonly<Record<ModelId, ModelSpec>>;
};

/** The ids of the built-in models, in catalog order. */
export const MODEL_IDS = Object.keys(catalog.models) as ModelId[];
