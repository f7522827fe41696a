/** Properties of the quote-spec reader: its shortcuts agree with the schema, and quote prices what it reads (P2, S11). */
import fc from "fast-check";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { safeEcho } from "../../src/echo.js";
import { catalog, quote } from "../../src/index.js";
import { priceQuoteSpec } from "../../src/pricing/quote.js";
import {
  parseQuoteSpec,
  QUOTE_SPEC_FIELDS,
  QuoteSpecSchema,
  readQuoteSpec,
} from "../../src/pricing/quoteSpec.js";
import { toIssue } from "../../src/request/issues.js";
import { padded } from "../arbitraries/text.js";
import { jsonValue, multiplier } from "../arbitraries/values.js";
import { ORACLE_MODEL_IDS } from "../oracle/seed.js";
import { quoteSpec } from "./helpers.js";

const FIELDS: readonly string[] = QUOTE_SPEC_FIELDS;

/** The reading the schema alone gives: every field through QuoteSpecSchema, unknown ones listed. */
function bySchema(spec: Record<string, unknown>, strict: boolean) {
  const known: Record<string, unknown> = {};
  for (const key of FIELDS) {
    if (strict ? Object.hasOwn(spec, key) : key in spec) {
      known[key] = spec[key];
    }
  }
  const unknown = strict ? Object.keys(spec).filter((k) => !FIELDS.includes(k)) : [];
  const result = v.safeParse(QuoteSpecSchema, known);
  return {
    fields: result.output as Record<string, unknown>,
    issues: [
      ...unknown.map((k) => ({ path: safeEcho(k), code: "unknown_field" })),
      ...(result.issues ?? []).map(toIssue),
    ].map((i) => [i.path, i.code]),
  };
}

const ownKnown = (o: object) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => FIELDS.includes(k)));

/** Specs of every kind: canonical, padded, malformed values, extra fields. */
const anySpec = fc
  .tuple(
    quoteSpec,
    fc.dictionary(
      fc.constantFrom(...FIELDS),
      fc.oneof(jsonValue, fc.constantFrom("image", " 2K", "medium", "\u00a0beta2")),
      {
        maxKeys: 2,
      },
    ),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), jsonValue, { maxKeys: 2 }),
    fc.constantFrom(...ORACLE_MODEL_IDS).chain(padded),
  )
  .map(
    ([spec, overrides, extra, modelId]) =>
      ({ ...extra, ...spec, modelId, ...overrides }) as Record<string, unknown>,
  );

describe("readQuoteSpec and quote: properties", () => {
  it("S11: property: reading a spec, shortcut or not, gives the schema's fields and the schema's issues", () => {
    fc.assert(
      fc.property(anySpec, fc.boolean(), (spec, strict) => {
        const read = readQuoteSpec(spec, strict);
        const expected = bySchema(spec, strict);
        expect(ownKnown(read.fields)).toEqual(ownKnown(expected.fields));
        expect(read.issues.map((i) => [i.path, i.code])).toEqual(expected.issues);
      }),
    );
  });

  it("P2/S11: property: quote prices a spec exactly as the schema reads it, and parseQuoteSpec's output the same way", () => {
    fc.assert(
      fc.property(anySpec, fc.option(multiplier, { nil: undefined }), (spec, m) => {
        const account = m === undefined ? undefined : { multiplier: m };
        const quoted = quote(spec as never, { account: account });
        expect(quoted).toEqual(priceQuoteSpec(bySchema(spec, false).fields, account, catalog));
        const parsed = parseQuoteSpec(spec);
        if (parsed.success) {
          expect(quote(parsed.output, { account: account })).toEqual(quoted);
        }
      }),
    );
  });
});
