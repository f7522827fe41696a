/** Arbitraries and oracles shared by the pricing tests. */
import { Decimal } from "decimal.js";
import fc from "fast-check";
import {
  type AccountPricing,
  type GenerationRequest,
  InvalidRequestError,
  type Multiplier,
  normalizeRequest,
  type Quality,
  type QuoteReason,
  type QuoteSpec,
  type Resolution,
} from "../../src/index.js";
import { padded } from "../arbitraries/text.js";
import {
  HUNDREDTHS,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  type OracleModel,
  oracleDefaultResolution,
  oraclePrice,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";

export const REASONS: QuoteReason[] = [
  "invalid_spec",
  "invalid_kind",
  "unknown_model",
  "resolution_required",
  "unsupported_resolution",
  "unsupported_quality",
  "invalid_reference_count",
  "too_many_references",
  "invalid_multiplier",
  "not_priceable",
];

/** A priceable cell of the oracle: model, resolution, quality and an allowed reference count. */
export const cell = fc.constantFrom(...ORACLE_MODEL_IDS).chain((modelId) =>
  fc.record({
    modelId: fc.constant(modelId),
    resolution: fc.constantFrom(...oracleResolutions(modelId)),
    quality: fc.constantFrom(...oracleQualities(modelId)),
    refs: fc.integer({ min: 0, max: ORACLE_MAX_REFS[modelId] }),
  }),
);

export type Cell = { modelId: OracleModel; resolution: string; quality: string; refs: number };
export const specOf = (c: Cell): QuoteSpec => ({
  kind: "image",
  modelId: c.modelId,
  resolution: c.resolution as Resolution,
  quality: c.quality as Quality,
  referenceImageCount: c.refs,
});

/** Ways to say "multiplier 1". */
export const one = fc.constantFrom<AccountPricing | undefined>(
  undefined,
  {},
  { multiplier: 1 },
  { multiplier: "1" },
  { multiplier: " 1 " },
  { multiplier: "1.000" },
  { multiplier: "001" },
);

/** Quote specs over the public lists and beyond, strings padded: priceable or not. */
export const quoteSpec = fc.record(
  {
    kind: fc.oneof(
      { weight: 12, arbitrary: padded("image") },
      fc.constantFrom("video", "Image", "", "images"),
    ),
    modelId: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...ORACLE_MODEL_IDS).chain(padded) },
      fc.constantFrom("delta", "__proto__", "BETA2", "toString", ""),
    ),
    resolution: fc.constantFrom("1K", "2K", "4K", "8K", "1k").chain(padded),
    quality: fc.constantFrom("low", "medium", "high", "auto", "xhigh", "max", "LOW").chain(padded),
    referenceImageCount: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 16 }) },
      fc.constantFrom(-1, 1.5, 20),
    ),
  },
  { requiredKeys: ["kind", "modelId"] },
);

/** What the oracle says a spec costs at multiplier 1 (`null`: not priceable). */
export function oracleQuote(spec: {
  kind: string;
  modelId: string;
  resolution?: string;
  quality?: string;
  referenceImageCount?: number;
}) {
  if (spec.kind.trim() !== "image") {
    return null;
  }
  const m = spec.modelId.trim();
  if (!(ORACLE_MODEL_IDS as readonly string[]).includes(m)) {
    return null;
  }
  const model = m as OracleModel;
  const resolution =
    spec.resolution === undefined ? oracleDefaultResolution(model) : spec.resolution.trim();
  if (resolution === undefined) {
    return null;
  }
  return oraclePrice(
    model,
    resolution,
    spec.quality?.trim() ?? "low",
    spec.referenceImageCount ?? 0,
  );
}

export const ids = (n: number) => Array.from({ length: n }, (_, i) => `asset_${i}`);

export function normalized(body: unknown): GenerationRequest {
  const r = normalizeRequest(body);
  if (!r.success) {
    throw new Error(JSON.stringify(r.issues));
  }
  return r.output;
}

/** decimal.js with enough precision that no product is rounded before the final whole-credit step. */
export const Exact = Decimal.clone({ precision: 1_000_000_000, rounding: Decimal.ROUND_HALF_UP });

export function byDecimalJs(credits: number, multiplier: Multiplier): number {
  return new Exact(multiplier.text)
    .times(credits)
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
    .toNumber();
}

/** A normalized request from a body with prompt "x". */
export function generation(body: Record<string, unknown>): GenerationRequest {
  const r = normalizeRequest({ prompt: "x", ...body });
  if (!r.success) {
    throw new Error(JSON.stringify(r.issues));
  }
  return r.output;
}

/** Every priceable cell of the oracle. */
export const CELLS = ORACLE_MODEL_IDS.flatMap((modelId) =>
  oracleResolutions(modelId).flatMap((resolution) =>
    oracleQualities(modelId).map((quality) => ({ modelId, resolution, quality })),
  ),
);

/**
 * The multipliers of the P4 grids. The whole suite checks every hundredth from 0.01 to 3.00. Under
 * mutation testing (`STRYKER=1`, set by vitest.stryker.config.ts) every case runs instrumented,
 * once per mutant, so the grids take 0.01 to 0.10 and every tenth up to 3.00: 39 multipliers, a
 * grid about an eighth of the size, still crossing every half-credit boundary of the small prices.
 */
export const GRID_MULTIPLIERS: readonly string[] =
  process.env.STRYKER === "1" ? HUNDREDTHS.filter((_, i) => i < 10 || i % 10 === 9) : HUNDREDTHS;

/**
 * A test's time limit from the number of cases it runs: a bound against a hang, never a speed
 * check, so far above what the cases need (a few µs each) that a busy machine stays inside it:
 * 0.5 ms a case, or 1 ms under mutation testing, where every case runs instrumented; at least the
 * suite's one minute.
 */
export const timeFor = (cases: number): number =>
  Math.max(60_000, Math.ceil(cases * (process.env.STRYKER === "1" ? 1 : 0.5)));

/** A request normalized from a body with a prompt; throws on a body the rules reject. */
export const ok = (body: Record<string, unknown>): GenerationRequest => {
  const r = normalizeRequest({ prompt: "x", ...body });
  if (!r.success) {
    throw new Error(JSON.stringify(r.issues));
  }
  return r.output;
};

/** The InvalidRequestError `f` throws; any other outcome fails the test. */
export const thrown = (f: () => unknown): InvalidRequestError => {
  try {
    f();
  } catch (error) {
    if (error instanceof InvalidRequestError) {
      return error;
    }
    throw error;
  }
  throw new Error("did not throw");
};
