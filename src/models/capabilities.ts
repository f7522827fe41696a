import type { AspectRatio, Background, GenerationType, OutputFormat, Quality, Resolution } from "../types.js";
import { catalog as builtIn } from "./catalog.js";
import { GENERATION_TYPES } from "./lists.js";
import { type Catalog, findModel } from "./modelSpec.js";

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
 * @param catalog - The catalog to read (default: the built-in one).
 * @returns The model's options and limits, or `undefined` for a model the catalog does not have.
 * @example
 * ```ts
 * capabilities("gamma-image-1.5")?.aspectRatios; // ["1:1", "16:9", "9:16", "3:2", "2:3"]
 * ```
 */
export function capabilities(modelId: string, catalog: Catalog = builtIn): Capabilities | undefined {
  const model = findModel(catalog, modelId);
  if (!model) return undefined;
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
