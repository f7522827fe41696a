import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AccountPricing,
  computeCharge,
  type GenerationRequest,
  InvalidRequestError,
  normalizeRequest,
  type QuoteReason,
  type QuoteSpec,
  quote,
} from "../../src/index.js";
import { setOwn, validCase } from "../arbitraries/requests.js";
import { padded } from "../arbitraries/text.js";
import {
  invalidMultiplier,
  jsonValue,
  multiplier,
  multiplierNumber,
  multiplierString,
  multiplierText,
} from "../arbitraries/values.js";
import {
  bigIntHalfUp,
  ORACLE_FIELDS,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PRICES,
  ORACLE_SURCHARGE,
  type OracleModel,
  oracleDefaultResolution,
  oraclePrice,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { verdict } from "./helpers.js";

const REASONS: QuoteReason[] = [
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
const cell = fc.constantFrom(...ORACLE_MODEL_IDS).chain((modelId) =>
  fc.record({
    modelId: fc.constant(modelId),
    resolution: fc.constantFrom(...oracleResolutions(modelId)),
    quality: fc.constantFrom(...oracleQualities(modelId)),
    refs: fc.integer({ min: 0, max: ORACLE_MAX_REFS[modelId] }),
  }),
);

type Cell = { modelId: OracleModel; resolution: string; quality: string; refs: number };
const specOf = (c: Cell): QuoteSpec => ({
  kind: "image",
  modelId: c.modelId,
  resolution: c.resolution,
  quality: c.quality,
  referenceImageCount: c.refs,
});

/** Ways to say "multiplier 1". */
const one = fc.constantFrom<AccountPricing | undefined>(
  undefined,
  {},
  { multiplier: 1 },
  { multiplier: "1" },
  { multiplier: " 1 " },
  { multiplier: "1.000" },
  { multiplier: "001" },
);

/** Quote specs over the public lists and beyond, strings padded: priceable or not. */
const quoteSpec = fc.record(
  {
    kind: fc.oneof({ weight: 12, arbitrary: padded("image") }, fc.constantFrom("video", "Image", "", "images")),
    modelId: fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...ORACLE_MODEL_IDS).chain(padded) },
      fc.constantFrom("delta", "__proto__", "BETA2", "toString", ""),
    ),
    resolution: fc.constantFrom("1K", "2K", "4K", "8K", "1k").chain(padded),
    quality: fc.constantFrom("low", "medium", "high", "auto", "xhigh", "max", "LOW").chain(padded),
    referenceImageCount: fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 16 }) }, fc.constantFrom(-1, 1.5, 20)),
  },
  { requiredKeys: ["kind", "modelId"] },
);

/** What the oracle says a spec costs at multiplier 1 (`null`: not priceable). */
function oracleQuote(spec: {
  kind: string;
  modelId: string;
  resolution?: string;
  quality?: string;
  referenceImageCount?: number;
}) {
  if (spec.kind.trim() !== "image") return null;
  const m = spec.modelId.trim();
  if (!(ORACLE_MODEL_IDS as readonly string[]).includes(m)) return null;
  const model = m as OracleModel;
  const resolution = spec.resolution === undefined ? oracleDefaultResolution(model) : spec.resolution.trim();
  if (resolution === undefined) return null;
  return oraclePrice(model, resolution, spec.quality?.trim() ?? "low", spec.referenceImageCount ?? 0);
}

const ids = (n: number) => Array.from({ length: n }, (_, i) => `asset_${i}`);

function normalized(body: unknown): GenerationRequest {
  const r = normalizeRequest(body);
  if (!r.success) throw new Error(JSON.stringify(r.issues));
  return r.output;
}

describe("quote and computeCharge: one property per rule", () => {
  it("P1: property: every cell quotes the seed's table price at multiplier 1, strings padded", () => {
    fc.assert(
      fc.property(cell, one, fc.tuple(fc.boolean(), fc.boolean()), (c, account, [padModel, padCell]) => {
        const ws = (s: string, on: boolean) => (on ? ` ${s}\u3000` : s);
        const spec = {
          kind: "image",
          modelId: ws(c.modelId, padModel),
          resolution: ws(c.resolution, padCell),
          quality: ws(c.quality, padCell),
        } as QuoteSpec;
        const q = quote(spec, account);
        expect(q.credits).toBe(ORACLE_PRICES[c.modelId][c.resolution]?.[c.quality]);
        if (q.credits !== null) expect(q.breakdown).toMatchObject({ baseCredits: q.credits, referenceCount: 0, multiplier: "1" });
      }),
    );
  });

  it("P2: property: quote never throws on any value; it prices or says null with a reason, never a fallback", () => {
    fc.assert(
      fc.property(jsonValue, fc.option(jsonValue, { nil: undefined }), (spec, account) => {
        // biome-ignore lint/suspicious/noExplicitAny: quote must survive anything a client sends
        const q = quote(spec as any, account as any);
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
        if (q.credits === null) expect(REASONS).toContain(q.reason);
      }),
    );
  });

  it("P3: property: the three quality models add 10 base credits per reference, per output; the others nothing", () => {
    fc.assert(
      fc.property(cell, (c) => {
        const q = quote(specOf(c));
        if (q.credits === null) throw new Error(q.message);
        expect(q.breakdown.referenceSurchargeCredits).toBe(ORACLE_SURCHARGE[c.modelId] * c.refs);
        expect(q.breakdown.subtotalCredits).toBe(q.breakdown.baseCredits + ORACLE_SURCHARGE[c.modelId] * c.refs);
      }),
    );
  });

  it("P4: property: every string multiplier gives exactly the BigInt half-up rounding of (base + surcharge) x multiplier", () => {
    fc.assert(
      fc.property(cell, multiplierString, (c, m) => {
        const subtotal = oraclePrice(c.modelId, c.resolution, c.quality, c.refs) as number;
        expect(quote(specOf(c), { multiplier: m }).credits).toBe(bigIntHalfUp(subtotal, multiplierText(m)));
      }),
    );
  });

  it("P4: property: every number multiplier is read as its shortest decimal form (2.3 is exactly 2.3), then rounded half-up exactly", () => {
    fc.assert(
      fc.property(cell, multiplierNumber, (c, m) => {
        const subtotal = oraclePrice(c.modelId, c.resolution, c.quality, c.refs) as number;
        const q = quote(specOf(c), { multiplier: m });
        expect(q.credits).toBe(bigIntHalfUp(subtotal, multiplierText(m)));
        expect(quote(specOf(c), { multiplier: multiplierText(m) }).credits).toBe(q.credits);
      }),
    );
  });

  it("P4: property: an invalid multiplier (sign, exponent, bare point, above 1000, not finite, not a string or number) is never priced", () => {
    fc.assert(
      fc.property(cell, invalidMultiplier, (c, m) => {
        // biome-ignore lint/suspicious/noExplicitAny: invalid on purpose
        const account = { multiplier: m as any };
        expect(quote(specOf(c), account)).toMatchObject({ credits: null, reason: "invalid_multiplier" });
        const request = normalized({ prompt: "x", modelId: c.modelId, resolution: c.resolution, quality: c.quality });
        expect(() => computeCharge(request, { account })).toThrow(InvalidRequestError);
      }),
    );
  });

  it("P5: property: a total charge is the sum of its rounded lines and equals imageCount x quote", () => {
    fc.assert(
      fc.property(validCase(), multiplier, (c, m) => {
        const request = normalized(c.body);
        const charge = computeCharge(request, { account: { multiplier: m } });
        expect(charge.lines).toHaveLength(request.imageCount);
        expect(charge.lines.map((l) => l.index)).toEqual([...Array(request.imageCount).keys()]);
        expect(charge.totalCreditCost).toBe(charge.lines.reduce((sum, l) => sum + l.credits, 0));
        for (const line of charge.lines) expect(line.credits).toBe(charge.perOutputCredits);
        const q = quote(
          {
            kind: "image",
            modelId: request.modelId,
            resolution: request.resolution,
            quality: request.quality,
            referenceImageCount: request.inputAssetIds.length,
          },
          { multiplier: m },
        );
        expect(charge.totalCreditCost).toBe(request.imageCount * (q.credits as number));
        const subtotal = oraclePrice(c.model, c.expected.resolution, c.expected.quality, c.expected.inputAssetIds.length);
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
          const charge = computeCharge(request, { account: { multiplier: m }, referenceCount: authorized });
          const subtotal = oraclePrice(c.model, c.expected.resolution, c.expected.quality, authorized) as number;
          expect(charge.perOutputCredits).toBe(bigIntHalfUp(subtotal, multiplierText(m)));
          expect(charge.breakdown.referenceCount).toBe(authorized);
          for (const bad of [listed + 1 + (k % 5), -1 - (k % 3), authorized + 0.5]) {
            expect(() => computeCharge(request, { referenceCount: bad })).toThrow(InvalidRequestError);
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
        const spec = { kind: "image", modelId: request.modelId, resolution: request.resolution, quality: request.quality };
        const q = quote({ ...spec, referenceImageCount: refs } as QuoteSpec, { multiplier: m });
        expect(q.credits).toBe(charge.perOutputCredits);
        if (q.credits !== null) expect(q.breakdown).toMatchObject(charge.breakdown);
      }),
    );
  });
});

describe("laws of prices", () => {
  it("P2: law: quote is null exactly when the same spec as a request would be rejected by the model", () => {
    const asRequest = quoteSpec.filter(
      (s) => s.kind.trim() === "image" && Number.isInteger(s.referenceImageCount ?? 0) && (s.referenceImageCount ?? 0) >= 0,
    );
    fc.assert(
      fc.property(asRequest, (spec) => {
        const refs = spec.referenceImageCount ?? 0;
        const body: Record<string, unknown> = { prompt: "x", modelId: spec.modelId };
        if (spec.resolution !== undefined) body.resolution = spec.resolution;
        if (spec.quality !== undefined) body.quality = spec.quality;
        if (refs > 0) Object.assign(body, { generationType: "image-to-image", inputAssetIds: ids(refs) });
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
          const before = quote(specOf(c), { multiplier: m });
          const after = quote(specOf({ ...c, refs: c.refs + 1 }), { multiplier: m });
          if (before.credits === null || after.credits === null) throw new Error("unpriced");
          expect(after.credits).toBeGreaterThanOrEqual(before.credits);
          expect(after.breakdown.subtotalCredits - before.breakdown.subtotalCredits).toBe(ORACLE_SURCHARGE[c.modelId]);
          expect(after.credits).toBe(
            bigIntHalfUp(before.breakdown.subtotalCredits + ORACLE_SURCHARGE[c.modelId], multiplierText(m)),
          );
          if (ORACLE_SURCHARGE[c.modelId] === 0) expect(after.credits).toBe(before.credits);
        },
      ),
    );
  });

  it("P4: law: with multiplier 1 the per-output amount is the table price plus the surcharge, exactly", () => {
    fc.assert(
      fc.property(cell, one, (c, account) => {
        const expected = (ORACLE_PRICES[c.modelId][c.resolution]?.[c.quality] as number) + ORACLE_SURCHARGE[c.modelId] * c.refs;
        expect(quote(specOf(c), account).credits).toBe(expected);
        const request = normalized({
          prompt: "x",
          modelId: c.modelId,
          resolution: c.resolution,
          quality: c.quality,
          ...(c.refs > 0 && { generationType: "image-to-image", inputAssetIds: ids(c.refs) }),
        });
        expect(computeCharge(request, account === undefined ? {} : { account }).perOutputCredits).toBe(expected);
      }),
    );
  });

  it("P6: law: computeCharge never trusts a client number: extra fields are rejected by normalizing and ignored by a charge", () => {
    const extraKey = fc
      .oneof(
        fc.constantFrom("cost", "credits", "totalCreditCost", "perOutputCredits", "price", "referenceCount", "multiplier"),
        fc.string({ minLength: 1, maxLength: 10 }),
      )
      .filter((k) => !ORACLE_FIELDS.includes(k));
    fc.assert(
      fc.property(
        validCase(),
        fc.uniqueArray(fc.tuple(extraKey, jsonValue), { minLength: 1, maxLength: 3, selector: ([k]) => k }),
        multiplier,
        (c, extras, m) => {
          const body = { ...c.body };
          for (const [k, v] of extras) setOwn(body, k, v);
          const r = normalizeRequest(body);
          const byPath = (a: string[], b: string[]) => (a[0] as string).localeCompare(b[0] as string);
          expect((r.success ? [] : r.issues.map((i) => [i.path, i.code])).sort(byPath)).toEqual(
            extras.map(([k]) => [k, "unknown_field"]).sort(byPath),
          );

          const request = normalized(c.body);
          const withExtras = { ...request } as Record<string, unknown>;
          for (const [k, v] of extras) setOwn(withExtras, k, v);
          const account = { multiplier: m };
          expect(computeCharge(withExtras as GenerationRequest, { account })).toEqual(computeCharge(request, { account }));
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
