import { ASPECT_RATIOS, PUBLIC_RATIOS } from "./lists.js";
import type { ModelSpec } from "./modelSpec.js";

const WITH_AUTO = ["Auto", ...PUBLIC_RATIOS] as const;
const FIXED_15 = ASPECT_RATIOS.filter((r) => r !== "Auto");

/**
 * Prices shared by the three quality models (seed: "The two 2.5 models have the same base prices").
 */
const QUALITY_GRID = {
  "1K": { low: 18, medium: 60, high: 250 },
  "2K": { low: 18, medium: 120, high: 450 },
  "4K": { low: 36, medium: 180, high: 750 },
} as const;

const QUALITY_MODEL = {
  resolutions: ["1K", "2K", "4K"],
  qualities: ["low", "medium", "high"],
  backgrounds: ["auto", "opaque", "transparent"],
  maxImageCount: 4,
  maxReferenceImages: 14,
  referenceSurchargeCredits: 10,
  prices: QUALITY_GRID,
} as const;

/** `alpha-img2`: 1K only, and the request must say so. */
export const alphaImg2 = {
  id: "alpha-img2",
  aspectRatios: WITH_AUTO,
  defaultAspectRatio: "9:16",
  resolutions: ["1K"],
  defaultResolution: null,
  qualities: ["low"],
  backgrounds: ["auto"],
  maxImageCount: 8,
  maxReferenceImages: 14,
  referenceSurchargeCredits: 0,
  outputFormat: null,
  prices: { "1K": { low: 18 } },
} as const satisfies ModelSpec;

/** `alpha-img2-official`: three quality levels, transparent background. */
export const alphaImg2Official = {
  id: "alpha-img2-official",
  aspectRatios: WITH_AUTO,
  defaultAspectRatio: "9:16",
  defaultResolution: "2K",
  outputFormat: null,
  ...QUALITY_MODEL,
} as const satisfies ModelSpec;

/** `alpha-img2-5-flare`: fast generation, 15 fixed ratios, PNG. */
export const alphaImg25Flare = {
  id: "alpha-img2-5-flare",
  aspectRatios: FIXED_15,
  defaultAspectRatio: "9:16",
  defaultResolution: "1K",
  outputFormat: "png",
  ...QUALITY_MODEL,
} as const satisfies ModelSpec;

/** `alpha-img2-5-sunburst`: fine editing, 15 fixed ratios, PNG. */
export const alphaImg25Sunburst = {
  ...alphaImg25Flare,
  id: "alpha-img2-5-sunburst",
} as const satisfies ModelSpec;
