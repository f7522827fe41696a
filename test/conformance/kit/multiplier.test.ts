/** The kit's exact arithmetic: the multiplier inferred from quotes, and each rounding rule (P4). */
import { Decimal } from "decimal.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  explainRounding,
  inferMultiplier,
  type Observation,
  ROUNDINGS,
  roundBy,
} from "../../../src/conformance/multiplier.js";
import { cells, subtotalOf } from "../../../src/conformance/quotes.js";
import { quote } from "../../../src/index.js";

/** Every cell of the catalog quoted at `multiplier` by the core, with its subtotal. */
function observe(multiplier: string): Observation[] {
  return cells().map((spec) => ({
    credits: quote(spec, { account: { multiplier } }).credits as number,
    subtotal: subtotalOf(spec) as number,
  }));
}

const DECIMAL_ROUNDING = {
  "half-up": Decimal.ROUND_HALF_UP,
  "half-down": Decimal.ROUND_HALF_DOWN,
  "half-even": Decimal.ROUND_HALF_EVEN,
  floor: Decimal.ROUND_FLOOR,
  ceil: Decimal.ROUND_CEIL,
} as const;

/** A plain decimal string from 0 to 20 with up to 6 decimals. */
const multipliers = fc
  .tuple(
    fc.integer({ min: 0, max: 20 }),
    fc.integer({ min: 0, max: 999_999 }),
    fc.integer({ min: 0, max: 6 }),
  )
  .map(([whole, fraction, digits]) =>
    digits === 0 ? String(whole) : `${whole}.${String(fraction).padStart(6, "0").slice(0, digits)}`,
  );

describe("inferMultiplier", () => {
  it("P4: quotes at 1.15 infer 1.15, the simplest decimal that rounds every cell to its quote", () => {
    expect(inferMultiplier(observe("1.15"))).toEqual({ kind: "consistent", multiplier: "1.15" });
    expect(inferMultiplier(observe("1"))).toEqual({ kind: "consistent", multiplier: "1" });
  });

  it("P4: whatever the multiplier, the inferred one prices every cell as the quotes do", () => {
    fc.assert(
      fc.property(multipliers, (m) => {
        const observations = observe(m);
        const inferred = inferMultiplier(observations);
        expect(inferred.kind).toBe("consistent");
        for (const o of observations) {
          expect(roundBy(o.subtotal, inferred.multiplier as string, "half-up")).toBe(o.credits);
        }
      }),
    );
  });

  it("P4: quotes rounded half to even are named, with a multiplier they fit", () => {
    const observations = cells().map((spec) => {
      const subtotal = subtotalOf(spec) as number;
      return { subtotal, credits: roundBy(subtotal, "1.25", "half-even") };
    });
    const inferred = inferMultiplier(observations);
    expect(inferred).toMatchObject({ kind: "rounding", rounding: "half-even" });
  });

  it("P4: quotes that no one multiplier explains are an empty intersection, with the best fit", () => {
    const observations = [...observe("1.15"), { subtotal: 80, credits: 200 }];
    const inferred = inferMultiplier(observations);
    expect(inferred.kind).toBe("inconsistent");
    expect(inferred).toMatchObject({ agreeing: observations.length - 1, multiplier: "1.15" });
  });
});

describe("roundBy", () => {
  it("P4: each rounding rule is exact, as decimal.js rounds the same product", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        multipliers,
        fc.constantFrom(...ROUNDINGS),
        (s, m, rounding) => {
          const exact = new Decimal(s)
            .mul(m)
            .toDecimalPlaces(0, DECIMAL_ROUNDING[rounding])
            .toNumber();
          expect(roundBy(s, m, rounding)).toBe(exact);
        },
      ),
    );
  });

  it("P4: 50 x 1.15 is 57.5, which half-up makes 58 where a binary float makes 57", () => {
    expect(roundBy(50, "1.15", "half-up")).toBe(58);
    expect(Math.round(50 * 1.15)).toBe(57);
    expect(explainRounding(57, 50, "1.15")).toBe("half-down or floor or in binary floating point");
    expect(explainRounding(59, 50, "1.15")).toBeUndefined();
  });
});
