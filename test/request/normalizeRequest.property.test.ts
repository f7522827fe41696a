import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { safeEcho } from "../../src/echo.js";
import { computeCharge, normalizeRequest } from "../../src/index.js";
import { BREAKABLE_RULES } from "../../src/testing/nearlyValidRequests.js";
import {
  applyBreak,
  applyBreaks,
  BREAKERS,
  COMBINABLE,
  distinctIds,
  nearlyValid,
  padAll,
  validCase,
  withDuplicates,
} from "../arbitraries/requests.js";
import { blank, lengthAround, textOfLength } from "../arbitraries/text.js";
import { isPlainObject, jsonValue, notAnObject } from "../arbitraries/values.js";
import {
  ORACLE_FIELDS,
  ORACLE_KEY_MAX,
  ORACLE_PROMPT_MAX,
  ORACLE_PUBLIC_MAX_REFS,
} from "../oracle/seed.js";
import { expectOnly, expectWellFormed, issuesOf, verdict } from "../properties/helpers.js";

/** Valid bodies and bodies that break one rule, the domain of the laws below. */
const anyBody = fc.oneof(
  { weight: 2, arbitrary: validCase().map((c) => c.body as unknown) },
  {
    weight: 3,
    arbitrary: fc
      .constantFrom(...BREAKABLE_RULES)
      .chain((rule) => nearlyValid(rule).map((n) => n.body)),
  },
);

describe("normalizeRequest: one property per rule", () => {
  it("N1: property: any value that is not a plain object is exactly one issue at path ''", () => {
    fc.assert(
      fc.property(notAnObject, (value) => {
        const r = normalizeRequest(value);
        expect(issuesOf(r)).toEqual([
          { path: "", code: "invalid_type", message: expect.stringContaining("JSON object") },
        ]);
      }),
    );
  });

  it("N2: property: each unknown field, whatever its value, is its own unknown_field issue, and the rest is still checked", () => {
    const unknownKey = fc
      .string({ minLength: 1, maxLength: 12 })
      .filter((k) => !ORACLE_FIELDS.includes(k));
    fc.assert(
      fc.property(
        validCase(),
        fc.uniqueArray(fc.tuple(unknownKey, jsonValue), {
          minLength: 1,
          maxLength: 3,
          selector: ([k]) => k,
        }),
        fc.option(blank, { nil: undefined }),
        ({ body }, extras, badPrompt) => {
          const set = {
            ...Object.fromEntries(extras),
            ...(badPrompt !== undefined && { prompt: badPrompt }),
          };
          const b = applyBreak(body, { set, path: "", codes: [] });
          const found = issuesOf(normalizeRequest(b));
          const unknown = found.filter((i) => i.code === "unknown_field").map((i) => i.path);
          expect(unknown.sort()).toEqual(extras.map(([k]) => safeEcho(k)).sort());
          const rest = found.filter((i) => i.code !== "unknown_field");
          expect(rest.map((i) => i.path)).toEqual(badPrompt === undefined ? [] : ["prompt"]);
        },
      ),
    );
  });

  it("N3: property: padding every string field and asset id with whitespace never changes the verdict or the output", () => {
    fc.assert(
      fc.property(
        anyBody.chain((body) =>
          isPlainObject(body)
            ? padAll(body as Record<string, unknown>).map((p) => [body, p] as const)
            : fc.constant([body, body] as const),
        ),
        ([body, paddedBody]) => {
          expect(normalizeRequest(paddedBody)).toEqual(normalizeRequest(body));
          expect(verdict(paddedBody)).toEqual(verdict(body));
        },
      ),
    );
  });

  it("N4: property: a prompt is accepted exactly when it has 1 to 12000 code points after trimming", () => {
    fc.assert(
      fc.property(
        fc
          .oneof(fc.constant(0), lengthAround(ORACLE_PROMPT_MAX))
          .chain((n) => textOfLength(n).map((t) => [n, t] as const)),
        fc.tuple(blank, blank),
        ([n, text], [before, after]) => {
          const r = normalizeRequest({ prompt: `${before}${text}${after}` });
          if (n >= 1 && n <= ORACLE_PROMPT_MAX) {
            expect(r.success && r.output.prompt).toBe(text);
          } else {
            expect(issuesOf(r)).toEqual([
              {
                path: "prompt",
                code: n === 0 ? "too_short" : "too_long",
                message: expect.stringContaining("prompt"),
              },
            ]);
          }
        },
      ),
    );
  });

  it("N5-N13: property: a valid request of each model normalizes to exactly the output the rules give (trimmed, defaults, de-duplicated)", () => {
    fc.assert(
      fc.property(validCase(), ({ body, expected }) => {
        const r = normalizeRequest(body);
        expect(r).toEqual({ success: true, output: expected });
        if (r.success) {
          expect("idempotencyKey" in r.output).toBe("idempotencyKey" in expected);
        }
        expect(verdict(body)).toEqual({ success: true, output: expected });
      }),
    );
  });

  it("N11: property: imageCount passes the shape rules exactly when it is a JSON integer >= 1", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: -20, max: 1e6 }),
          fc.double({ noNaN: true, noDefaultInfinity: true }),
        ),
        (n) => {
          const r = normalizeRequest({ prompt: "x", imageCount: n });
          if (Number.isInteger(n) && n >= 1) {
            expect(r.success && r.output.imageCount).toBe(n);
          } else {
            expectOnly({ prompt: "x", imageCount: n }, "imageCount", ["not_integer", "too_small"]);
          }
        },
      ),
    );
  });

  it("N12: property: asset ids are trimmed and de-duplicated (first occurrence, order kept); more than 14 distinct is rejected", () => {
    const ids = fc
      .tuple(distinctIds(1, 20), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }))
      .chain(([distinct, copies]) =>
        padAll({ inputAssetIds: withDuplicates(distinct, copies) }).map(
          (b) => [distinct, b.inputAssetIds] as const,
        ),
      );
    fc.assert(
      fc.property(ids, ([distinct, list]) => {
        const r = normalizeRequest({
          prompt: "x",
          modelId: "beta",
          generationType: "image-to-image",
          inputAssetIds: list,
        });
        if (distinct.length <= ORACLE_PUBLIC_MAX_REFS) {
          expect(r.success && r.output.inputAssetIds).toEqual(distinct);
        } else {
          expect(issuesOf(r)).toEqual([
            {
              path: "inputAssetIds",
              code: "too_many_references",
              message: expect.stringContaining(String(distinct.length)),
            },
          ]);
        }
      }),
    );
  });

  it("N13: property: idempotencyKey is accepted exactly when it has 1 to 128 code points after trimming; absent stays absent", () => {
    fc.assert(
      fc.property(
        fc
          .oneof(fc.constant(0), lengthAround(ORACLE_KEY_MAX))
          .chain((n) => textOfLength(n).map((t) => [n, t] as const)),
        fc.boolean(),
        ([n, key], send) => {
          const body = send ? { prompt: "x", idempotencyKey: ` ${key}\n` } : { prompt: "x" };
          const r = normalizeRequest(body);
          if (!send) {
            expect(r.success && "idempotencyKey" in r.output).toBe(false);
          } else if (n >= 1 && n <= ORACLE_KEY_MAX) {
            expect(r.success && r.output.idempotencyKey).toBe(key);
          } else {
            expectOnly(body, "idempotencyKey", [n === 0 ? "too_short" : "too_long"]);
          }
        },
      ),
    );
  });

  it("N14: property: null (never absent) or any other wrong type is an invalid_type issue at that field", () => {
    fc.assert(
      fc.property(validCase(), fc.constantFrom(...ORACLE_FIELDS), (c, field) => {
        expectOnly(applyBreak(c.body, { set: { [field]: null }, path: field, codes: [] }), field, [
          "invalid_type",
        ]);
      }),
    );
  });

  it("N15: property: breaking several rules at once reports each of them at its own path, every issue well formed", () => {
    const several = fc
      .tuple(
        validCase(),
        fc.uniqueArray(fc.constantFrom(...COMBINABLE), {
          minLength: 2,
          maxLength: COMBINABLE.length,
        }),
      )
      .chain(([c, rules]) =>
        fc.tuple(fc.constant(c), fc.tuple(...rules.map((rule) => BREAKERS[rule].arb(c)))),
      );
    fc.assert(
      fc.property(several, ([c, breaks]) => {
        const body = applyBreaks(c.body, breaks);
        const found = issuesOf(verdict(body));
        expectWellFormed(found);
        expect([...new Set(found.map((i) => i.path))].sort()).toEqual(
          breaks.map((b) => b.path).sort(),
        );
        for (const issue of found) {
          const b = breaks.find((x) => x.path === issue.path);
          expect(b?.codes).toContain(issue.code);
        }
      }),
    );
  });
});

describe("law: a request that breaks exactly one rule is rejected at that rule's path, and only for that reason", () => {
  for (const rule of BREAKABLE_RULES) {
    it(`${rule}: property: a request breaking only ${rule} is rejected with an issue at its path, and no other`, () => {
      fc.assert(
        fc.property(nearlyValid(rule), (n) => {
          expectOnly(n.body, n.path, n.codes);
          expectWellFormed(issuesOf(verdict(n.body)));
        }),
      );
    });
  }
});

describe("laws of normalizing", () => {
  it("N3: law: normalizing is idempotent (normalizing the output again gives the same output)", () => {
    fc.assert(
      fc.property(validCase(), ({ body }) => {
        const once = normalizeRequest(body);
        if (!once.success) {
          throw new Error(JSON.stringify(once.issues));
        }
        expect(normalizeRequest(once.output)).toEqual(once);
        expect(normalizeRequest(structuredClone(once.output))).toEqual(once);
      }),
    );
  });

  it("N12: law: duplicating reference ids (padded or not) never changes the verdict, the output or the price", () => {
    const withIds = anyBody.filter(
      (b): b is Record<string, unknown> & { inputAssetIds: string[] } =>
        typeof b === "object" &&
        b !== null &&
        Array.isArray((b as { inputAssetIds?: unknown }).inputAssetIds) &&
        (b as { inputAssetIds: unknown[] }).inputAssetIds.length > 0 &&
        (b as { inputAssetIds: unknown[] }).inputAssetIds.every(
          (id) => typeof id === "string" && id.trim() !== "",
        ),
    );
    fc.assert(
      fc.property(
        withIds,
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.boolean()), { minLength: 1, maxLength: 5 }),
        (body, copies) => {
          const ids = body.inputAssetIds;
          const more = [...ids];
          for (const [which, where, pad] of copies) {
            // a copy goes after the first occurrence: the first occurrence is what the order keeps
            const id = ids[which % ids.length] as string;
            const first = more.findIndex((x) => x.trim() === id.trim());
            more.splice(first + 1 + (where % (more.length - first)), 0, pad ? ` ${id}\t` : id);
          }
          const dup = { ...body, inputAssetIds: more };
          const before = verdict(body);
          expect(verdict(dup)).toEqual(before);
          if (before.success) {
            const after = verdict(dup);
            if (!after.success) {
              throw new Error("unreachable");
            }
            expect(computeCharge(after.output)).toEqual(computeCharge(before.output));
            // a hand-built request that keeps the duplicates is charged the same too (P6)
            expect(computeCharge({ ...before.output, inputAssetIds: more })).toEqual(
              computeCharge(before.output),
            );
          }
        },
      ),
    );
  });
});
