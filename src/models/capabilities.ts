import type {
  AspectRatio,
  Background,
  GenerationType,
  OutputFormat,
  Quality,
  Resolution,
} from "../types.js";
import { type CatalogOptions, resolveCatalog } from "./catalogOptions.js";
import { GENERATION_TYPES } from "./lists.js";
import { findModel } from "./modelSpec.js";

/** What a model accepts, for a UI that offers only valid options. */
export type Capabilities = {
  modelId: string;
  generationTypes: readonly GenerationType[];
  aspectRatios: readonly AspectRatio[];
  defaultAspectRatio: AspectRatio;
  resolutions: readonly Resolution[];
  /** `null` when the request must name the resolution. */
  defaultResolution: Resolution | null;
  qualities: readonly Quality[];
  backgrounds: readonly Background[];
  maxImageCount: number;
  maxReferenceImages: number;
  referenceSurchargeCredits: number;
  outputFormat: OutputFormat | null;
};

/**
 * Lists what a model accepts, read from the catalog.
 *
 * @param modelId - The model to describe.
 * @param options - `catalog` (a catalog, or a price history) and `at`, as for every core function
 *   (default: the built-in catalog).
 * @returns The model's options and limits, or `undefined` for a model the catalog does not have.
 * @throws TypeError when a catalog is given in the place of the options (the 0.2.0 form).
 * @example
 * ```ts
 * capabilities("gamma-image-1.5")?.aspectRatios; // ["1:1", "16:9", "9:16", "3:2", "2:3"]
 * capabilities("my-model", { catalog: myCatalog })?.resolutions;
 * ```
 */
export function capabilities(modelId: string, options?: CatalogOptions): Capabilities | undefined {
  const model = findModel(resolveCatalog(options, "capabilities"), modelId);
  if (!model) {
    return undefined;
  }
  return {
    modelId: model.id,
    generationTypes: GENERATION_TYPES,
    aspectRatios: model.aspectRatios,
    defaultAspectRatio: model.defaultAspectRatio,
    resolutions: model.resolutions,
    defaultResolution: model.defaultResolution,
    qualities: model.qualities,
    backgrounds: model.backgrounds,
    maxImageCount: model.maxImageCount,
    maxReferenceImages: model.maxReferenceImages,
    referenceSurchargeCredits: model.referenceSurchargeCredits,
    outputFormat: model.outputFormat,
  };
}
