import { describe, expect, it } from "vitest";
import {
  type Catalog,
  catalog,
  computeCharge,
  defineCatalog,
  InvalidRequestError,
  Multiplier,
  parseMultiplier,
  quote,
} from "../../src/index.js";
import { multiplyAndRound, multiplyAndRoundExact } from "../../src/pricing/multiplier.js";
import { bigIntHalfUp } from "../oracle/seed.js";
import { byDecimalJs, GRID_MULTIPLIERS, generation, ok, timeFor } from "./helpers.js";

describe("parseMultiplier and multiplyAndRound", () => {
  it("P4: the multiplier is a plain decimal string (trimmed) or a finite number, from 0 to 1000", () => {
    const valid: [unknown, string][] = [
      [undefined, "1"],
      ["1", "1"],
      [" 1.15 ", "1.15"],
      ["0", "0"],
      ["1000", "1000"],
      ["1000.000", "1000"],
      ["007.50", "7.5"],
      [2.3, "2.3"],
      [0.1, "0.1"],
      [1e-7, "0.0000001"],
      [-0, "0"],
      [1000, "1000"],
    ];
    for (const [input, text] of valid) {
      expect(parseMultiplier(input)?.text, String(input)).toBe(text);
    }
    const invalid = [
      "",
      " ",
      "-1",
      "+1",
      "1e3",
      "1E-2",
      ".5",
      "1.",
      "1,5",
      "0x10",
      "NaN",
      "Infinity",
      "1000.0001",
      "١",
      -0.5,
      1000.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      true,
      {},
      [],
      10n,
    ];
    for (const input of invalid) {
      expect(parseMultiplier(input), String(input)).toBeUndefined();
    }
    for (const input of invalid) {
      const account = {
        // biome-ignore lint/suspicious/noExplicitAny: invalid on purpose
        multiplier: input as any,
      };
      expect(quote({ kind: "image", modelId: "beta" }, { account })).toMatchObject({
        credits: null,
        reason: "invalid_multiplier",
      });
    }
  });

  it("P4: a multiplier read once with parseMultiplier prices like its text; a look-alike object is invalid", () => {
    const spec = { kind: "image", modelId: "beta2", resolution: "4K" } as const;
    const multiplier = parseMultiplier(" 1.150 ");
    if (!multiplier) {
      throw new Error("1.150 is valid");
    }
    expect(multiplier.text).toBe("1.15");
    expect(Multiplier.is(multiplier)).toBe(true);
    expect(parseMultiplier(multiplier)).toBe(multiplier);
    expect(quote(spec, { account: { multiplier } }).credits).toBe(138);
    expect(Object.isFrozen(multiplier)).toBe(true);
    const lookAlike = { ...multiplier, text: "0.01" };
    expect(Multiplier.is(lookAlike)).toBe(false);
    // biome-ignore lint/suspicious/noExplicitAny: a forged multiplier on purpose
    expect(quote(spec, { account: { multiplier: lookAlike as any } })).toMatchObject({
      credits: null,
      reason: "invalid_multiplier",
    });
    expect(() => new Multiplier(Symbol("forged"), "0", 0n, 1n, undefined)).toThrow(TypeError);
    const request = generation({ modelId: "beta2", resolution: "4K", imageCount: 2 });
    expect(computeCharge(request, { account: { multiplier } }).totalCreditCost).toBe(276);
  });

  it("P4: a multiplier with many digits is exact, with no rounding before the last step", () => {
    // 25 x 0.01999999999999999999999999999 = 0.49999999999999999999999999975 -> 0 (20-digit precision would say 1)
    expect(
      quote(
        { kind: "image", modelId: "beta" },
        { account: { multiplier: "0.01999999999999999999999999999" } },
      ).credits,
    ).toBe(0);
    expect(
      quote(
        { kind: "image", modelId: "beta" },
        { account: { multiplier: "0.02000000000000000000000000001" } },
      ).credits,
    ).toBe(1);
    expect(
      quote(
        { kind: "image", modelId: "beta" },
        { account: { multiplier: "2.29999999999999999999999" } },
      ).credits,
    ).toBe(57);
  });

  it("P4: a multiplier has at most 32 characters, as written and as a plain decimal; a longer one is invalid", () => {
    const beta = { kind: "image", modelId: "beta" } as const;
    const at32 = `0.${"1".repeat(30)}`;
    expect(parseMultiplier(at32)?.text).toBe(at32);
    expect(parseMultiplier(`  ${at32}  `)?.text).toBe(at32); // trimmed first (N3)
    for (const long of [`${at32}1`, `1.${"0".repeat(31)}`, `0.${"1".repeat(300_000)}`]) {
      expect(parseMultiplier(long), long.slice(0, 40)).toBeUndefined();
      expect(quote(beta, { account: { multiplier: long } })).toMatchObject({
        credits: null,
        reason: "invalid_multiplier",
      });
    }
    // A number is judged by its plain decimal form: 1e-30 has 32 characters, 1e-31 has 33.
    expect(parseMultiplier(1e-30)?.text).toBe(`0.${"0".repeat(29)}1`);
    expect(parseMultiplier(1e-31)).toBeUndefined();
    expect(parseMultiplier(5e-324)).toBeUndefined();
    expect(() =>
      computeCharge(generation({ modelId: "beta" }), { account: { multiplier: `${at32}1` } }),
    ).toThrow(InvalidRequestError);
  });

  const gridCases = GRID_MULTIPLIERS.length * 891;
  it(
    "P4: the integer fast path equals decimal.js over the full grid (every subtotal 0..890 x 0.01..3.00)",
    () => {
      for (const m of GRID_MULTIPLIERS) {
        const multiplier = parseMultiplier(m);
        if (!multiplier) {
          throw new Error(m);
        }
        for (let credits = 0; credits <= 890; credits++) {
          const fast = multiplyAndRound(credits, multiplier);
          if (fast !== byDecimalJs(credits, multiplier)) {
            expect(fast, `${credits} x ${m}`).toBe(byDecimalJs(credits, multiplier));
          }
          if (multiplyAndRoundExact(credits, multiplier) !== fast) {
            expect(multiplyAndRoundExact(credits, multiplier)).toBe(fast);
          }
        }
      }
      const six = parseMultiplier("999.999999");
      if (!six) {
        throw new Error("six");
      }
      expect(multiplyAndRound(890, six)).toBe(byDecimalJs(890, six));
      expect(multiplyAndRound(Number.MAX_SAFE_INTEGER, six)).toBe(
        byDecimalJs(Number.MAX_SAFE_INTEGER, six),
      );
    },
    timeFor(gridCases),
  );

  it("P4: a number multiplier printed with a positive exponent (1e21) is far above 1000, never read as 1", () => {
    for (const m of [1e21, 2e21, 1.5e300, Number.MAX_VALUE]) {
      expect(
        quote({ kind: "image", modelId: "beta" }, { account: { multiplier: m } }),
      ).toMatchObject({
        credits: null,
        reason: "invalid_multiplier",
      });
    }
  });

  it("P4: parseMultiplier gives a frozen Multiplier that quote and computeCharge accept as the account's multiplier", () => {
    const m = parseMultiplier("1.15");
    if (!m) {
      throw new Error("valid");
    }
    expect(Multiplier.is(m)).toBe(true);
    expect(Object.isFrozen(m)).toBe(true);
    expect(Object.isFrozen(m.fraction)).toBe(true);
    expect(m.text).toBe("1.15");
    expect(parseMultiplier(m)).toBe(m);
    expect(
      quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { account: { multiplier: m } })
        .credits,
    ).toBe(138);
    const request = ok({ modelId: "beta2", resolution: "4K", imageCount: 2 });
    expect(computeCharge(request, { account: { multiplier: m } }).totalCreditCost).toBe(276);
    for (const text of ["0", "0.000", "1e-7", "1000", "0.1234567", "999.99999999"]) {
      const read = parseMultiplier(text === "1e-7" ? 1e-7 : text);
      expect(read && Object.isFrozen(read) && Multiplier.is(read), text).toBe(true);
    }
    expect(parseMultiplier("0")?.text).toBe("0");
    expect(parseMultiplier(0.5)?.text).toBe("0.5");
  });

  it("P4: only parseMultiplier makes a Multiplier; a look-alike object is an invalid multiplier", () => {
    expect(() => new Multiplier(Symbol("Multiplier"), "1", 1n, 1n, undefined)).toThrow(
      new TypeError("Make a Multiplier with parseMultiplier()."),
    );
    const lookAlike = { text: "0.01", num: 1n, den: 100n, fraction: { num: 1, den: 100 } };
    expect(Multiplier.is(lookAlike)).toBe(false);
    expect(Multiplier.is(null)).toBe(false);
    expect(Multiplier.is("1")).toBe(false);
    expect(
      quote({ kind: "image", modelId: "beta2" }, { account: { multiplier: lookAlike as never } }),
    ).toMatchObject({
      credits: null,
      reason: "invalid_multiplier",
    });
    expect(() => computeCharge(ok({}), { account: { multiplier: lookAlike as never } })).toThrow(
      InvalidRequestError,
    );
  });

  it("P4: a price far above the built-in ones is still multiplied exactly (no double rounding past 2^53)", () => {
    // Prices and multipliers for which floor(double(2 x price x num + den) / (2 x den)) is off by one.
    const cases: [number, string][] = [
      [9007199254733072, "0.5"],
      [9007199254733072, "0.7"],
      [9007199254590530, "0.333"],
      [2 ** 52 + 1, "1.5"],
    ];
    for (const [price, multiplier] of cases) {
      const huge: Catalog = defineCatalog({
        ...catalog,
        models: {
          ...catalog.models,
          beta: {
            ...catalog.models.beta,
            prices: { "1K": { low: price }, "2K": { low: price }, "4K": { low: price } },
          },
        },
      });
      expect(
        quote({ kind: "image", modelId: "beta" }, { account: { multiplier }, catalog: huge })
          .credits,
        `${price} x ${multiplier}`,
      ).toBe(bigIntHalfUp(price, multiplier));
    }
  });
});
