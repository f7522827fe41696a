/** Properties of the price multiplier (P4): every reading and every product equals decimal.js. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeCharge, InvalidRequestError, parseMultiplier, quote } from "../../src/index.js";
import { multiplyAndRound, multiplyAndRoundExact } from "../../src/pricing/multiplier.js";
import {
  invalidMultiplier,
  multiplierNumber,
  multiplierString,
  multiplierText,
} from "../arbitraries/values.js";
import { bigIntHalfUp, oraclePrice } from "../oracle/seed.js";
import { byDecimalJs, cell, Exact, normalized, specOf } from "./helpers.js";

describe("parseMultiplier and multiplyAndRound: properties", () => {
  it("P4: reading and multiplying equal decimal.js for any multiplier, any digits, any credits", () => {
    // decimal.js, configured to never round before the last step, is the authority the exact
    // fraction arithmetic of src/pricing/decimal.ts is proven against (docs/decisions.md, P4).
    const digits = (max: number) =>
      fc.string({ unit: fc.constantFrom(..."0123456789"), minLength: 1, maxLength: max });
    const asString = fc
      .tuple(digits(4), fc.option(digits(40), { nil: undefined }))
      .map(([w, f]) => (f === undefined ? w : `${w}.${f}`));
    const asNumber = fc.oneof(
      fc.double({ min: 0, max: 1000, noNaN: true }),
      fc.integer({ min: 0, max: 1000 }),
    );
    const credits = fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.maxSafeNat());
    fc.assert(
      fc.property(fc.oneof(asString, asNumber), credits, (input, c) => {
        const text = typeof input === "number" ? String(input) : input;
        const exact = new Exact(text);
        const parsed = parseMultiplier(input);
        // P4: at most 1000, and at most 32 characters as written and as a plain decimal.
        if (
          exact.greaterThan(1000) ||
          text.trim().length > 32 ||
          exact.abs().toFixed().length > 32
        ) {
          return parsed === undefined;
        }
        if (!parsed) {
          return false;
        }
        expect(parsed.text).toBe(exact.abs().toFixed());
        expect(multiplyAndRound(c, parsed)).toBe(byDecimalJs(c, parsed));
        expect(multiplyAndRoundExact(c, parsed)).toBe(byDecimalJs(c, parsed));
        return true;
      }),
    );
  });

  it("P4: property: every string multiplier gives exactly the BigInt half-up rounding of (base + surcharge) x multiplier", () => {
    fc.assert(
      fc.property(cell, multiplierString, (c, m) => {
        const subtotal = oraclePrice(c.modelId, c.resolution, c.quality, c.refs) as number;
        expect(quote(specOf(c), { account: { multiplier: m } }).credits).toBe(
          bigIntHalfUp(subtotal, multiplierText(m)),
        );
      }),
    );
  });

  it("P4: property: every number multiplier is read as its shortest decimal form (2.3 is exactly 2.3), then rounded half-up exactly", () => {
    fc.assert(
      fc.property(cell, multiplierNumber, (c, m) => {
        const subtotal = oraclePrice(c.modelId, c.resolution, c.quality, c.refs) as number;
        const q = quote(specOf(c), { account: { multiplier: m } });
        expect(q.credits).toBe(bigIntHalfUp(subtotal, multiplierText(m)));
        expect(quote(specOf(c), { account: { multiplier: multiplierText(m) } }).credits).toBe(
          q.credits,
        );
      }),
    );
  });

  it("P4: property: an invalid multiplier (sign, exponent, bare point, above 1000, not finite, not a string or number) is never priced", () => {
    fc.assert(
      fc.property(cell, invalidMultiplier, (c, m) => {
        // biome-ignore lint/suspicious/noExplicitAny: invalid on purpose
        const account = { multiplier: m as any };
        expect(quote(specOf(c), { account: account })).toMatchObject({
          credits: null,
          reason: "invalid_multiplier",
        });
        const request = normalized({
          prompt: "x",
          modelId: c.modelId,
          resolution: c.resolution,
          quality: c.quality,
        });
        expect(() => computeCharge(request, { account })).toThrow(InvalidRequestError);
      }),
    );
  });
});
