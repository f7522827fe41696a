import type { ModelSpec } from "./modelSpec.js";

/**
 * `gamma-image-1.5`: five ratios, up to 10 images, one reference image (the edit route uses only
 * the first).
 */
export const gammaImage15 = {
  id: "gamma-image-1.5",
  aspectRatios: ["1:1", "16:9", "9:16", "3:2", "2:3"],
  defaultAspectRatio: "9:16",
  resolutions: ["1K", "2K", "4K"],
  defaultResolution: "2K",
  qualities: ["low"],
  backgrounds: ["auto"],
  maxImageCount: 10,
  maxReferenceImages: 1,
  referenceSurchargeCredits: 0,
  outputFormat: null,
  prices: { "1K": { low: 30 }, "2K": { low: 30 }, "4K": { low: 30 } },
} as const satisfies ModelSpec;
