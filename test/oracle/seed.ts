/**
 * The oracle: the service interface's tables and the rules of docs/rules.md, typed in again by hand,
 * independently of src/models. Tests compare the implementation against this, never against itself.
 */

export const ORACLE_MODEL_IDS = [
  "alpha-img2",
  "alpha-img2-official",
  "alpha-img2-5-flare",
  "alpha-img2-5-sunburst",
  "beta-pro",
  "beta2",
  "beta",
  "gamma-image-1.5",
] as const;

export type OracleModel = (typeof ORACLE_MODEL_IDS)[number];

/** Base price per output image: model -> resolution -> quality -> credits. A missing cell is not priceable. */
export const ORACLE_PRICES: Record<OracleModel, Record<string, Record<string, number>>> = {
  "alpha-img2": { "1K": { low: 18 } },
  "alpha-img2-official": {
    "1K": { low: 18, medium: 60, high: 250 },
    "2K": { low: 18, medium: 120, high: 450 },
    "4K": { low: 36, medium: 180, high: 750 },
  },
  "alpha-img2-5-flare": {
    "1K": { low: 18, medium: 60, high: 250 },
    "2K": { low: 18, medium: 120, high: 450 },
    "4K": { low: 36, medium: 180, high: 750 },
  },
  "alpha-img2-5-sunburst": {
    "1K": { low: 18, medium: 60, high: 250 },
    "2K": { low: 18, medium: 120, high: 450 },
    "4K": { low: 36, medium: 180, high: 750 },
  },
  "beta-pro": { "1K": { low: 80 }, "2K": { low: 80 }, "4K": { low: 100 } },
  beta2: { "1K": { low: 60 }, "2K": { low: 80 }, "4K": { low: 120 } },
  beta: { "1K": { low: 25 }, "2K": { low: 25 }, "4K": { low: 25 } },
  "gamma-image-1.5": { "1K": { low: 30 }, "2K": { low: 30 }, "4K": { low: 30 } },
};

export const ORACLE_SURCHARGE: Record<OracleModel, number> = {
  "alpha-img2": 0,
  "alpha-img2-official": 10,
  "alpha-img2-5-flare": 10,
  "alpha-img2-5-sunburst": 10,
  "beta-pro": 0,
  beta2: 0,
  beta: 0,
  "gamma-image-1.5": 0,
};

export const ORACLE_MAX_IMAGES: Record<OracleModel, number> = {
  "alpha-img2": 8,
  "alpha-img2-official": 4,
  "alpha-img2-5-flare": 4,
  "alpha-img2-5-sunburst": 4,
  "beta-pro": 4,
  beta2: 4,
  beta: 4,
  "gamma-image-1.5": 10,
};

export const ORACLE_MAX_REFS: Record<OracleModel, number> = {
  "alpha-img2": 14,
  "alpha-img2-official": 14,
  "alpha-img2-5-flare": 14,
  "alpha-img2-5-sunburst": 14,
  "beta-pro": 14,
  beta2: 14,
  beta: 14,
  "gamma-image-1.5": 1,
};

const PUBLIC7 = ["1:1", "2:3", "3:2", "3:4", "4:3", "9:16", "16:9"];
const FIFTEEN = [...PUBLIC7, "5:4", "4:5", "2:1", "1:2", "21:9", "9:21", "3:1", "1:3"];
export const ALL_RATIOS = ["Auto", ...FIFTEEN];

export const ORACLE_RATIOS: Record<OracleModel, string[]> = {
  "alpha-img2": ["Auto", ...PUBLIC7],
  "alpha-img2-official": ["Auto", ...PUBLIC7],
  "alpha-img2-5-flare": FIFTEEN,
  "alpha-img2-5-sunburst": FIFTEEN,
  "beta-pro": ["Auto", ...PUBLIC7],
  beta2: ["Auto", ...PUBLIC7],
  beta: ["Auto", ...PUBLIC7],
  "gamma-image-1.5": ["1:1", "16:9", "9:16", "3:2", "2:3"],
};

const QUALITY_MODELS = new Set<string>([
  "alpha-img2-official",
  "alpha-img2-5-flare",
  "alpha-img2-5-sunburst",
]);
export const isQualityModel = (m: string) => QUALITY_MODELS.has(m);
export const is25Model = (m: string) => m === "alpha-img2-5-flare" || m === "alpha-img2-5-sunburst";

export const oracleResolutions = (m: OracleModel) =>
  m === "alpha-img2" ? ["1K"] : ["1K", "2K", "4K"];
export const oracleQualities = (m: OracleModel) =>
  isQualityModel(m) ? ["low", "medium", "high"] : ["low"];
export const oracleBackgrounds = (m: OracleModel) =>
  isQualityModel(m) ? ["auto", "opaque", "transparent"] : ["auto"];
/** `undefined`: the request must name it. */
export const oracleDefaultResolution = (m: OracleModel) =>
  m === "alpha-img2" ? undefined : is25Model(m) ? "1K" : "2K";

/**
 * Exact half-up rounding of `credits x multiplier` with BigInt, the multiplier a plain decimal string.
 * round_half_up(c * n / 10^k) = floor((2 * c * n + 10^k) / (2 * 10^k)).
 */
export function bigIntHalfUp(credits: number, multiplier: string): number {
  const [whole = "0", frac = ""] = multiplier.split(".");
  const num = BigInt(whole + frac);
  const den = 10n ** BigInt(frac.length);
  return Number((2n * BigInt(credits) * num + den) / (2n * den));
}

/** Multipliers 0.01 .. 3.00 in steps of 0.01, as exact decimal strings. */
export const HUNDREDTHS: string[] = Array.from({ length: 300 }, (_, i) => {
  const n = i + 1;
  return `${Math.floor(n / 100)}.${String(n % 100).padStart(2, "0")}`;
});

// ---- Defaults, public lists and limits, for the property suite. ----

/** N5: the model used when a request names none. */
export const ORACLE_DEFAULT_MODEL: OracleModel = "alpha-img2-official";
/** N7: every current model's default ratio. */
export const ORACLE_DEFAULT_RATIO = "9:16";
/** The public lists of N6, N8, N9, N10. */
export const ORACLE_GENERATION_TYPES = ["text-to-image", "image-to-image"];
export const ORACLE_RESOLUTIONS = ["1K", "2K", "4K"];
export const ORACLE_QUALITIES = ["low", "medium", "high"];
export const ORACLE_BACKGROUNDS = ["auto", "opaque", "transparent"];
/** The ten fields of a generation request (N2). */
export const ORACLE_FIELDS = [
  "prompt",
  "modelId",
  "generationType",
  "aspectRatio",
  "resolution",
  "quality",
  "background",
  "imageCount",
  "inputAssetIds",
  "idempotencyKey",
];
/** N4, N13, N12: limits in code points / distinct ids. */
export const ORACLE_PROMPT_MAX = 12000;
export const ORACLE_KEY_MAX = 128;
export const ORACLE_PUBLIC_MAX_REFS = 14;
/** V8: the service interface fixes PNG for the 2.5 models only. */
export const oracleOutputFormat = (m: OracleModel) => (is25Model(m) ? "png" : null);
/** P1 + P3 at multiplier 1: the per-output price, or `null` where the interface gives none. */
export function oraclePrice(
  m: OracleModel,
  resolution: string,
  quality: string,
  refs: number,
): number | null {
  const base = ORACLE_PRICES[m][resolution]?.[quality];
  if (base === undefined || !Number.isInteger(refs) || refs < 0 || refs > ORACLE_MAX_REFS[m]) {
    return null;
  }
  return base + ORACLE_SURCHARGE[m] * refs;
}
