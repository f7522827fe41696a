import type { AspectRatio, Background, GenerationType, Quality, Resolution } from "../types.js";

/** The seven ratios of the public interface, besides `Auto`. */
export const PUBLIC_RATIOS = [
  "1:1",
  "2:3",
  "3:2",
  "3:4",
  "4:3",
  "9:16",
  "16:9",
] as const satisfies readonly AspectRatio[];

/** The eight further fixed ratios the 2.5 models also accept. */
const EXTRA_RATIOS = [
  "5:4",
  "4:5",
  "2:1",
  "1:2",
  "21:9",
  "9:21",
  "3:1",
  "1:3",
] as const satisfies readonly AspectRatio[];

/** Every aspect ratio a request may name (N7): `Auto` and the 15 fixed ratios. */
export const ASPECT_RATIOS = [
  "Auto",
  ...PUBLIC_RATIOS,
  ...EXTRA_RATIOS,
] as const satisfies readonly AspectRatio[];

/** Every resolution tier (N8). */
export const RESOLUTIONS = ["1K", "2K", "4K"] as const satisfies readonly Resolution[];

/** Every quality level a request may name (N9). */
export const QUALITIES = ["low", "medium", "high"] as const satisfies readonly Quality[];

/** Every background mode (N10). */
export const BACKGROUNDS = [
  "auto",
  "opaque",
  "transparent",
] as const satisfies readonly Background[];

/** Both generation types (N6). */
export const GENERATION_TYPES = [
  "text-to-image",
  "image-to-image",
] as const satisfies readonly GenerationType[];

/** Shape limits of the public interface (N4, N12, N13). */
export const LIMITS = {
  promptMaxChars: 12_000,
  idempotencyKeyMaxChars: 128,
  maxReferences: 14,
} as const;

/** Request defaults that do not depend on the model (N6, N9, N10, N11). */
export const DEFAULTS = {
  generationType: "text-to-image",
  quality: "low",
  background: "auto",
  imageCount: 1,
} as const;
