import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeCharge, type QuoteSpec, quote } from "../../src/index.js";
import { jsonValue, multiplier, multiplierText } from "../arbitraries/values.js";
import { bigIntHalfUp, ORACLE_MAX_REFS, ORACLE_PRICES, ORACLE_SURCHARGE } from "../oracle/seed.js";
import { verdict } from "../properties/helpers.js";
import { cell, ids, normalized, one, oracleQuote, quoteSpec, REASONS, specOf } from "./helpers.js";

describe("quote and computeCharge: one property per rule", () => {
  it("P1: property: every cell quotes the table price (P1) at multiplier 1, strings padded", () => {
    fc.assert(
      fc.property(
        cell,
        one,
        fc.tuple(fc.boolean(), fc.boolean()),
        (c, account, [padModel, padCell]) => {
          const ws = (s: string, on: boolean) => (on ? ` ${s}\u3000` : s);
          const spec = {
            kind: "image",
            modelId: ws(c.modelId, padModel),
            resolution: ws(c.resolution, padCell),
            quality: ws(c.quality, padCell),
          } as QuoteSpec;
          const q = quote(spec, { account: account });
          expect(q.credits).toBe(ORACLE_PRICES[c.modelId][c.resolution]?.[c.quality]);
          if (q.credits !== null) {
            expect(q.breakdown).toMatchObject({
              baseCredits: q.credits,
              referenceCount: 0,
              multiplier: "1",
            });
          }
        },
      ),
    );
  });

  it("P2: property: quote never throws on any value; it prices or says null with a reason, never a fallback", () => {
    fc.assert(
      fc.property(jsonValue, fc.option(jsonValue, { nil: undefined }), (spec, account) => {
        // biome-ignore lint/suspicious/noExplicitAny: quote must survive anything a client sends
        const q = quote(spec as any, { account: account as any });
        if (q.credits === null) {
          expect(REASONS).toContain(q.reason);
          expect(q.message).toMatch(/\.$/);
        } else {
          expect(Number.isSafeInteger(q.credits) && q.credits >= 0).toBe(true);
        }
      }),
    );
  });

  it("P2: property: a spec is priced exactly where the oracle prices it (defaults: model resolution, low, 0 references)", () => {
    fc.assert(
      fc.property(quoteSpec, (spec) => {
        const q = quote(spec as QuoteSpec);
        const expected = oracleQuote(spec);
        expect(q.credits).toBe(expected);
        if (q.credits === null) {
          expect(REASONS).toContain(q.reason);
        }
      }),
    );
  });

  it("P3: property: the three quality models add 10 base credits per reference, per output; the others nothing", () => {
    fc.assert(
      fc.property(cell, (c) => {
        const q = quote(specOf(c));
        if (q.credits === null) {
          throw new Error(q.message);
        }
        expect(q.breakdown.referenceSurchargeCredits).toBe(ORACLE_SURCHARGE[c.modelId] * c.refs);
        expect(q.breakdown.subtotalCredits).toBe(
          q.breakdown.baseCredits + ORACLE_SURCHARGE[c.modelId] * c.refs,
        );
      }),
    );
  });
});

describe("laws of prices", () => {
  it("P2: law: quote is null exactly when the same spec as a request would be rejected by the model", () => {
    const asRequest = quoteSpec.filter(
      (s) =>
        s.kind.trim() === "image" &&
        Number.isInteger(s.referenceImageCount ?? 0) &&
        (s.referenceImageCount ?? 0) >= 0,
    );
    fc.assert(
      fc.property(asRequest, (spec) => {
        const refs = spec.referenceImageCount ?? 0;
        const body: Record<string, unknown> = { prompt: "x", modelId: spec.modelId };
        if (spec.resolution !== undefined) {
          body.resolution = spec.resolution;
        }
        if (spec.quality !== undefined) {
          body.quality = spec.quality;
        }
        if (refs > 0) {
          Object.assign(body, { generationType: "image-to-image", inputAssetIds: ids(refs) });
        }
        const rejected = !verdict(body).success;
        expect(quote(spec as QuoteSpec).credits === null).toBe(rejected);
      }),
    );
  });

  it("P3: law: one more reference never costs less; on the surcharge models it adds exactly 10 base credits per output, on the others nothing", () => {
    fc.assert(
      fc.property(
        cell.filter((c) => c.refs < ORACLE_MAX_REFS[c.modelId]),
        multiplier,
        (c, m) => {
          const before = quote(specOf(c), { account: { multiplier: m } });
          const after = quote(specOf({ ...c, refs: c.refs + 1 }), { account: { multiplier: m } });
          if (before.credits === null || after.credits === null) {
            throw new Error("unpriced");
          }
          expect(after.credits).toBeGreaterThanOrEqual(before.credits);
          expect(after.breakdown.subtotalCredits - before.breakdown.subtotalCredits).toBe(
            ORACLE_SURCHARGE[c.modelId],
          );
          expect(after.credits).toBe(
            bigIntHalfUp(
              before.breakdown.subtotalCredits + ORACLE_SURCHARGE[c.modelId],
              multiplierText(m),
            ),
          );
          if (ORACLE_SURCHARGE[c.modelId] === 0) {
            expect(after.credits).toBe(before.credits);
          }
        },
      ),
    );
  });

  it("P4: law: with multiplier 1 the per-output amount is the table price plus the surcharge, exactly", () => {
    fc.assert(
      fc.property(cell, one, (c, account) => {
        const expected =
          (ORACLE_PRICES[c.modelId][c.resolution]?.[c.quality] as number) +
          ORACLE_SURCHARGE[c.modelId] * c.refs;
        expect(quote(specOf(c), { account: account }).credits).toBe(expected);
        const request = normalized({
          prompt: "x",
          modelId: c.modelId,
          resolution: c.resolution,
          quality: c.quality,
          ...(c.refs > 0 && { generationType: "image-to-image", inputAssetIds: ids(c.refs) }),
        });
        expect(
          computeCharge(request, account === undefined ? {} : { account }).perOutputCredits,
        ).toBe(expected);
      }),
    );
  });
});
