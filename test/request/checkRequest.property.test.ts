/** Properties of checkRequest: every issue of both stages at once (N15), and bounded work on hostile bodies (S15). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeEcho } from "../../src/echo.js";
import { checkRequest, type Issue, normalizeRequest, validateForModel } from "../../src/index.js";
import { BOUNDS } from "../../src/request/bounds.js";
import { BREAKABLE_RULES, type BreakableRule } from "../../src/testing/nearlyValidRequests.js";
import { applyBreaks, BREAKERS, nearlyValid, validCase } from "../arbitraries/requests.js";
import { jsonValue } from "../arbitraries/values.js";
import { ORACLE_FIELDS } from "../oracle/seed.js";
import { expectWellFormed, issuesOf } from "../properties/helpers.js";

/** The field each rule's break touches: rules on different fields never hide one another. */
const FIELD_OF: Partial<Record<BreakableRule, string>> = {
  N2: "(unknown)",
  N4: "prompt",
  N7: "aspectRatio",
  N8: "resolution",
  N9: "quality",
  N10: "background",
  N11: "imageCount",
  N13: "idempotencyKey",
  V1: "aspectRatio",
  V2: "resolution",
  V3: "quality",
  V4: "background",
  V5: "imageCount",
  V6: "inputAssetIds",
};
const MIXABLE = Object.keys(FIELD_OF) as BreakableRule[];

/** The codes of a model's own limits (V1, V3-V6): what checkRequest may add to the shape issues. */
const MODEL_CODES = [
  "unsupported_aspect_ratio",
  "unsupported_resolution",
  "unsupported_quality",
  "unsupported_background",
  "too_many_images",
  "too_many_references",
];

/** Bodies of any kind: valid, or breaking one rule of either stage. */
const anyBody = fc.oneof(
  { weight: 1, arbitrary: validCase().map((c) => c.body as unknown) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...BREAKABLE_RULES)
      .chain((rule) => nearlyValid(rule).map((n) => n.body)),
  },
);

describe("checkRequest: every issue of both stages at once", () => {
  it("N15: property: shape rules and model limits broken on different fields are all reported, each at its own path", () => {
    const several = validCase().chain((c) =>
      fc
        .shuffledSubarray(
          MIXABLE.filter((rule) => BREAKERS[rule].applies(c.model)),
          { minLength: 2 },
        )
        .map((rules) =>
          rules.filter((rule, i) => rules.findIndex((r) => FIELD_OF[r] === FIELD_OF[rule]) === i),
        )
        .filter((rules) => rules.length >= 2)
        .chain((rules) =>
          fc.tuple(fc.constant(c), fc.tuple(...rules.map((rule) => BREAKERS[rule].arb(c)))),
        ),
    );
    fc.assert(
      fc.property(several, ([c, breaks]) => {
        const found = issuesOf(checkRequest(applyBreaks(c.body, breaks)));
        expectWellFormed(found);
        expect([...new Set(found.map((i) => i.path))].sort()).toEqual(
          breaks.map((b) => b.path).sort(),
        );
        for (const issue of found) {
          expect(breaks.find((b) => b.path === issue.path)?.codes).toContain(issue.code);
        }
      }),
    );
  });

  it("N15: law: checkRequest is normalizeRequest then validateForModel when the shape is right, and adds only model issues when not", () => {
    fc.assert(
      fc.property(anyBody, (body) => {
        const normalized = normalizeRequest(body);
        const checked = checkRequest(body);
        if (normalized.success) {
          expect(checked).toEqual(validateForModel(normalized.output));
          return;
        }
        const all = issuesOf(checked);
        expect(all.slice(0, normalized.issues.length)).toEqual(normalized.issues);
        const shapePaths = new Set(normalized.issues.map((i) => i.path.replace(/\[\d+\]$/, "")));
        for (const extra of all.slice(normalized.issues.length)) {
          expect(MODEL_CODES).toContain(extra.code);
          expect(shapePaths.has(extra.path)).toBe(false);
        }
      }),
    );
  });
});

// ---- hostile bodies (S15) ----

/** What a hostile body adds to a valid one, and the issues the reference expects for it. */
type Hostility = { add: (body: Record<string, unknown>) => void; expected: () => Issue[] };

const key = (n: number) => `x_${n}`;
/** The path an unknown field is reported at: its name as any echo shows it. */
const cutName = (name: string) => safeEcho(name);

/** Many unknown fields, with names of any length. */
const unknownKeys = fc
  .tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 20_000 }), fc.boolean())
  .map(([count, length, long]): Hostility => {
    const names = Array.from({ length: count }, (_, i) =>
      long && i === 0 ? `${key(i)}${"k".repeat(length)}` : key(i),
    );
    return {
      add: (body) => {
        for (const name of names) {
          body[name] = 1;
        }
      },
      expected: () =>
        names.map((name) => ({ path: cutName(name), code: "unknown_field", message: "" })),
    };
  });

/** A list of references, short or far too long, of bad entries (numbers, blanks, nulls, nested arrays). */
const badReferences = fc
  .tuple(
    fc.integer({ min: 1, max: 3000 }),
    fc.constantFrom<unknown>(0, "", " ", null, [[["a"]]], { a: 1 }),
  )
  .map(
    ([count, entry]): Hostility => ({
      add: (body) => {
        body.generationType = "image-to-image";
        body.inputAssetIds = Array(count).fill(entry);
      },
      expected: () =>
        count > BOUNDS.maxReferenceEntries
          ? [{ path: "inputAssetIds", code: "too_many_references", message: "" }]
          : Array.from({ length: count }, (_, i) => ({
              path: `inputAssetIds[${i}]`,
              code: typeof entry === "string" ? "too_short" : "invalid_type",
              message: "",
            })),
    }),
  );

/** A huge or deeply nested value in a string field. */
const hugeValue = fc
  .tuple(
    fc.constantFrom("aspectRatio", "resolution", "quality", "background"),
    fc.integer({ min: 41, max: 200_000 }),
    fc.boolean(),
  )
  .map(
    ([field, size, nested]): Hostility => ({
      add: (body) => {
        let deep: unknown = "x";
        for (let i = 0; i < size && nested; i++) {
          deep = [deep];
        }
        body[field] = nested ? deep : "z".repeat(size);
      },
      expected: () => [
        { path: field, code: nested ? "invalid_type" : "invalid_option", message: "" },
      ],
    }),
  );

/** The reference verdict: unknown fields first, then the fields in order, at most 50 and a count. */
function reference(hostilities: Hostility[]): { path: string; code: string }[] {
  const all = hostilities.flatMap((h) => h.expected());
  const order = (i: Issue) =>
    i.code === "unknown_field" ? -1 : ORACLE_FIELDS.indexOf(i.path.replace(/\[\d+\]$/, ""));
  const sorted = all
    .map((i, n) => [i, n] as const)
    .sort(([a, m], [b, n]) => order(a) - order(b) || m - n);
  const list = sorted.map(([i]) => ({ path: i.path, code: i.code }));
  return list.length > BOUNDS.maxIssues
    ? [...list.slice(0, BOUNDS.maxIssues), { path: "", code: "too_many_issues" }]
    : list;
}

/**
 * Any code point, a lone surrogate too: the values of fast-check's `binary` unit, whose first use in
 * a property builds a reverse table of all 1,114,112 of them (about a second) that nothing here needs.
 */
const anyCodePoint = fc
  .integer({ min: 0, max: 0x10ffff })
  .map((point) => String.fromCodePoint(point));

describe("checkRequest and normalizeRequest on hostile bodies", () => {
  it("S15: property: many bad ids, many unknown keys, huge keys, huge and deep values: at most 51 short issues, the reference's verdict", () => {
    fc.assert(
      fc.property(
        validCase(),
        fc.uniqueArray(fc.constantFrom(0, 1, 2), { minLength: 1, maxLength: 3 }),
        unknownKeys,
        badReferences,
        hugeValue,
        (c, kinds, keys, refs, value) => {
          const hostilities = kinds.map((k) => [keys, refs, value][k] as Hostility);
          const body: Record<string, unknown> = { ...c.body };
          // a text-to-image body cannot list references; the references hostility makes it image-to-image
          for (const h of hostilities) {
            h.add(body);
          }
          const expected = reference(hostilities);
          for (const result of [normalizeRequest(body), checkRequest(body)]) {
            const found = issuesOf(result);
            expect(found.length).toBeLessThanOrEqual(BOUNDS.maxIssues + 1);
            expect(found.map((i) => ({ path: i.path, code: i.code }))).toEqual(expected);
            for (const issue of found) {
              expect(issue.path.length).toBeLessThanOrEqual(64);
              expect(issue.message.length).toBeLessThanOrEqual(400);
            }
            expect(JSON.stringify(found).length).toBeLessThanOrEqual(51 * 500);
          }
        },
      ),
      { numRuns: Math.min(fc.readConfigureGlobal().numRuns ?? 100, 60) },
    );
  });

  it("S15: property: an unknown field's name or value, whatever its size, never comes back longer than 40 code points", () => {
    fc.assert(
      fc.property(
        validCase(),
        fc.string({ minLength: 1, maxLength: 2000, unit: anyCodePoint }),
        jsonValue,
        (c, name, value) => {
          fc.pre(!ORACLE_FIELDS.includes(name));
          const found = issuesOf(checkRequest({ ...c.body, [name]: value }));
          const issue = found.find((i) => i.code === "unknown_field");
          expect(issue?.path).toBe(cutName(name));
          expect(issue?.message.length).toBeLessThanOrEqual(300);
        },
      ),
    );
  });
});
