import type { ModelId } from "../types.js";
import type { Catalog, ModelSpec } from "./modelSpec.js";
import { alphaImg2, alphaImg2Official, alphaImg25Flare, alphaImg25Sunburst } from "./alpha.js";
import { beta, beta2, betaPro } from "./beta.js";
import { gammaImage15 } from "./gamma.js";

/**
 * The built-in catalog: the eight models of the service interface and their prices.
 * `version` is the date these prices took effect.
 */
export const catalog = {
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

/** The ids of the built-in models, in catalog order. */
export const MODEL_IDS = Object.keys(catalog.models) as ModelId[];
