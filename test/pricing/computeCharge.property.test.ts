/** Properties of computeCharge (P5-P7): a total is its lines, references are the authorized ones. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeEcho } from "../../src/echo.js";
import {
  computeCharge,
  type GenerationRequest,
  InvalidRequestError,
  normalizeRequest,
  type QuoteSpec,
  quote,
} from "../../src/index.js";
import { setOwn, validCase } from "../arbitraries/requests.js";
import { jsonValue, multiplier, multiplierText } from "../arbitraries/values.js";
import { bigIntHalfUp, ORACLE_FIELDS, oraclePrice } from "../oracle/seed.js";
import { normalized } from "./helpers.js";

describe("computeCharge: properties", () => {
  it("P5: property: a total charge is the sum of its rounded lines and equals imageCount x quote", () => {
    fc.assert(
      fc.property(validCase(), multiplier, (c, m) => {
        const request = normalized(c.body);
        const charge = computeCharge(request, { account: { multiplier: m } });
        expect(charge.lines).toHaveLength(request.imageCount);
        expect(charge.lines.map((l) => l.index)).toEqual([...Array(request.imageCount).keys()]);
        expect(charge.totalCreditCost).toBe(charge.lines.reduce((sum, l) => sum + l.credits, 0));
        for (const line of charge.lines) {
          expect(line.credits).toBe(charge.perOutputCredits);
        }
        const q = quote(
          {
            kind: "image",
            modelId: request.modelId,
            resolution: request.resolution,
            quality: request.quality,
            referenceImageCount: request.inputAssetIds.length,
          },
          { account: { multiplier: m } },
        );
        expect(charge.totalCreditCost).toBe(request.imageCount * (q.credits as number));
        const subtotal = oraclePrice(
          c.model,
          c.expected.resolution,
          c.expected.quality,
          c.expected.inputAssetIds.length,
        );
        expect(charge.perOutputCredits).toBe(bigIntHalfUp(subtotal as number, multiplierText(m)));
      }),
    );
  });

  it("P6: property: the references charged are the authorized ones (referenceCount), at most the distinct listed ones", () => {
    fc.assert(
      fc.property(
        validCase().filter((c) => c.expected.inputAssetIds.length > 0),
        fc.nat(),
        multiplier,
        (c, k, m) => {
          const request = normalized(c.body);
          const listed = c.expected.inputAssetIds.length;
          const authorized = k % (listed + 1);
          const charge = computeCharge(request, {
            account: { multiplier: m },
            referenceCount: authorized,
          });
          const subtotal = oraclePrice(
            c.model,
            c.expected.resolution,
            c.expected.quality,
            authorized,
          ) as number;
          expect(charge.perOutputCredits).toBe(bigIntHalfUp(subtotal, multiplierText(m)));
          expect(charge.breakdown.referenceCount).toBe(authorized);
          for (const bad of [listed + 1 + (k % 5), -1 - (k % 3), authorized + 0.5]) {
            expect(() => computeCharge(request, { referenceCount: bad })).toThrow(
              InvalidRequestError,
            );
          }
        },
      ),
    );
  });

  it("P7: property: quote(spec).credits equals computeCharge's per-output amount for the same inputs and account", () => {
    fc.assert(
      fc.property(validCase(), multiplier, fc.nat(), (c, m, k) => {
        const request = normalized(c.body);
        const refs = k % (request.inputAssetIds.length + 1);
        const charge = computeCharge(request, { account: { multiplier: m }, referenceCount: refs });
        const spec = {
          kind: "image",
          modelId: request.modelId,
          resolution: request.resolution,
          quality: request.quality,
        };
        const q = quote({ ...spec, referenceImageCount: refs } as QuoteSpec, {
          account: { multiplier: m },
        });
        expect(q.credits).toBe(charge.perOutputCredits);
        if (q.credits !== null) {
          expect(q.breakdown).toMatchObject(charge.breakdown);
        }
      }),
    );
  });

  it("P6: law: computeCharge never trusts a client number: extra fields are rejected by normalizing and ignored by a charge", () => {
    const extraKey = fc
      .oneof(
        fc.constantFrom(
          "cost",
          "credits",
          "totalCreditCost",
          "perOutputCredits",
          "price",
          "referenceCount",
          "multiplier",
        ),
        fc.string({ minLength: 1, maxLength: 10 }),
      )
      .filter((k) => !ORACLE_FIELDS.includes(k));
    fc.assert(
      fc.property(
        validCase(),
        fc.uniqueArray(fc.tuple(extraKey, jsonValue), {
          minLength: 1,
          maxLength: 3,
          selector: ([k]) => k,
        }),
        multiplier,
        (c, extras, m) => {
          const body = { ...c.body };
          for (const [k, v] of extras) {
            setOwn(body, k, v);
          }
          const r = normalizeRequest(body);
          const byPath = (a: string[], b: string[]) =>
            (a[0] as string).localeCompare(b[0] as string);
          expect((r.success ? [] : r.issues.map((i) => [i.path, i.code])).sort(byPath)).toEqual(
            extras.map(([k]) => [safeEcho(k), "unknown_field"]).sort(byPath),
          );

          const request = normalized(c.body);
          const withExtras = { ...request } as Record<string, unknown>;
          for (const [k, v] of extras) {
            setOwn(withExtras, k, v);
          }
          const account = { multiplier: m };
          expect(computeCharge(withExtras as GenerationRequest, { account })).toEqual(
            computeCharge(request, { account }),
          );
        },
      ),
    );
  });

  it("P5: law: a hand-built request with an imageCount that is not a whole number from 1 to the model's limit is never charged", () => {
    fc.assert(
      fc.property(
        validCase(),
        fc.oneof(
          fc.double({ noNaN: false }).filter((n) => !Number.isInteger(n)),
          fc.integer({ max: 0 }),
          fc.constantFrom("2", null, [2], true),
        ),
        (c, n) => {
          const request = { ...normalized(c.body), imageCount: n } as unknown as GenerationRequest;
          expect(() => computeCharge(request)).toThrow(InvalidRequestError);
        },
      ),
    );
  });
});
