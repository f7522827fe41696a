import { PUBLIC_RATIOS } from "./lists.js";
import type { ModelSpec } from "./modelSpec.js";

const BETA_FAMILY = {
  aspectRatios: ["Auto", ...PUBLIC_RATIOS],
  defaultAspectRatio: "9:16",
  resolutions: ["1K", "2K", "4K"],
  defaultResolution: "2K",
  qualities: ["low"],
  backgrounds: ["auto"],
  maxImageCount: 4,
  maxReferenceImages: 14,
  referenceSurchargeCredits: 0,
  outputFormat: null,
} as const;

/** `beta-pro`. */
export const betaPro = {
  id: "beta-pro",
  ...BETA_FAMILY,
  prices: { "1K": { low: 80 }, "2K": { low: 80 }, "4K": { low: 100 } },
} as const satisfies ModelSpec;

/** `beta2`. */
export const beta2 = {
  id: "beta2",
  ...BETA_FAMILY,
  prices: { "1K": { low: 60 }, "2K": { low: 80 }, "4K": { low: 120 } },
} as const satisfies ModelSpec;

/** `beta`: outputs 1K whatever is asked, so every resolution costs the same. */
export const beta = {
  id: "beta",
  ...BETA_FAMILY,
  prices: { "1K": { low: 25 }, "2K": { low: 25 }, "4K": { low: 25 } },
} as const satisfies ModelSpec;
