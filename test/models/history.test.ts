import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type Catalog,
  CatalogHistoryError,
  catalog,
  catalogAt,
  catalogHistory,
  computeCharge,
  defineCatalogHistory,
  NoCatalogInForceError,
  nextCatalogChange,
  normalizeRequest,
  type Quality,
  quote,
  type Resolution,
} from "../../src/index.js";
import { toEpochMs } from "../../src/models/history.js";
import { copy, dayVersion, history, inForce, instantFor, pricedCells } from "./arbitraries.js";

/** The built-in catalog, then the same with beta2 4K at 144 credits from 2026-12-01. */
function twoVersions(): [Catalog, Catalog] {
  const next = copy({ ...catalog, version: "2026-12-01" }) as Catalog & {
    models: Record<string, { prices: object }>;
  };
  (next.models.beta2 as { prices: Record<string, Record<string, number>> }).prices["4K"] = {
    low: 144,
  };
  return [catalog, next];
}

const problemOf = (f: () => unknown): CatalogHistoryError => {
  try {
    f();
  } catch (error) {
    if (error instanceof CatalogHistoryError) {
      return error;
    }
    throw error;
  }
  throw new Error("no CatalogHistoryError");
};

describe("catalogHistory: the catalogs the package ships", () => {
  it("P8: oldest first, the last is `catalog`, checked by defineCatalogHistory, and frozen", () => {
    expect(catalogHistory.length).toBeGreaterThanOrEqual(1);
    expect(catalogHistory.at(-1)).toBe(catalog);
    expect(defineCatalogHistory(catalogHistory)).toBe(catalogHistory);
    const starts = catalogHistory.map((c) => Date.parse(`${c.version}T00:00:00Z`));
    for (const [i, start] of starts.entries()) {
      if (i > 0) {
        expect(start).toBeGreaterThan(starts[i - 1] as number);
      }
    }
    expect(Object.isFrozen(catalogHistory)).toBe(true);
    expect(() => (catalogHistory as Catalog[]).push(catalog)).toThrow(TypeError);
  });

  it("P8: today one entry, version 2026-11-20, in force from that day on", () => {
    expect(catalogHistory.map((c) => c.version)).toEqual(["2026-11-20"]);
    expect(catalogAt(catalogHistory, "2026-11-20")).toBe(catalog);
    expect(catalogAt(catalogHistory, "2099-12-31T23:59:59.999Z")).toBe(catalog);
    expect(nextCatalogChange(catalogHistory, "2026-11-20")).toBeUndefined();
  });
});

describe("catalogAt: the catalog in force at an instant", () => {
  const [first, second] = twoVersions();
  // Checked inside a test, not here: code run while the file is collected counts as run at load.
  const h: readonly Catalog[] = [first, second];

  it("P8: switches at the exact millisecond: 2026-12-01T00:00:00.000Z is the new one, .999 before is the old", () => {
    expect(defineCatalogHistory(h)).toBe(h);
    const boundary = Date.UTC(2026, 11, 1);
    for (const at of [
      "2026-12-01T00:00:00.000Z",
      "2026-12-01",
      boundary,
      new Date(boundary),
      "2026-12-01T01:00:00+01:00",
    ]) {
      expect(catalogAt(h, at), String(at)).toBe(second);
    }
    for (const at of [
      "2026-11-30T23:59:59.999Z",
      boundary - 1,
      new Date(boundary - 1),
      "2026-11-30T23:59:59.9999999Z", // digits past the millisecond never cross a boundary
      "2026-12-01T00:59:59.999+01:00",
      "2026-11-30T19:00:00-04:59",
    ]) {
      expect(catalogAt(h, at), String(at)).toBe(first);
    }
    expect(catalogAt(h, "2026-11-20T00:00:00Z")).toBe(first);
  });

  it("P8: pricing at an instant: beta2 4K is 120 credits until 2026-11-30T23:59:59.999Z and 144 from 2026-12-01", () => {
    const spec = { kind: "image", modelId: "beta2", resolution: "4K" } as const;
    expect(quote(spec, { catalog: catalogAt(h, "2026-11-30T23:59:59.999Z") })).toMatchObject({
      credits: 120,
      catalogVersion: "2026-11-20",
    });
    expect(
      quote(spec, {
        account: { multiplier: "1.15" },
        catalog: catalogAt(h, "2026-12-01T00:00:00.000Z"),
      }),
    ).toMatchObject({
      credits: 166, // 144 x 1.15 = 165.6
      catalogVersion: "2026-12-01",
    });
    const request = normalizeRequest({
      prompt: "fox",
      modelId: "beta2",
      resolution: "4K",
      imageCount: 2,
    });
    if (!request.success) {
      throw new Error("fixture");
    }
    expect(
      computeCharge(request.output, { catalog: catalogAt(h, Date.UTC(2026, 11, 1)) })
        .totalCreditCost,
    ).toBe(288);
  });

  it("P8: before the first entry there is no price: NoCatalogInForceError (a RangeError) naming the instant and the first version", () => {
    const f = () => catalogAt(h, "2026-11-19T23:59:59.999Z");
    expect(f).toThrow(NoCatalogInForceError);
    expect(f).toThrow(RangeError);
    expect(f).toThrow(
      "No catalog is in force at 2026-11-19T23:59:59.999Z: the first one takes effect at 2026-11-20T00:00:00.000Z.",
    );
    try {
      f();
    } catch (error) {
      expect(error).toMatchObject({
        instant: "2026-11-19T23:59:59.999Z",
        firstVersion: "2026-11-20",
      });
    }
  });

  it("P8: an instant that is not one is a RangeError naming the value", () => {
    const bad: [unknown, string][] = [
      ["2027-01-15T10:00", '"2027-01-15T10:00"'], // no offset: local time would depend on the machine
      ["2027-02-30", '"2027-02-30"'],
      ["2027-13-01", '"2027-13-01"'],
      ["2027-01-15T24:00:00Z", '"2027-01-15T24:00:00Z"'],
      ["Jan 15 2027", '"Jan 15 2027"'],
      ["", '""'],
      ["1700000000000", '"1700000000000"'],
      [Number.NaN, "NaN"],
      [Number.POSITIVE_INFINITY, "Infinity"],
      [8.64e15 + 1, "8640000000000001"],
      [new Date("nope"), "an invalid Date"],
      [null, "null"],
      [undefined, "undefined"],
      [{}, "an object"],
    ];
    for (const [when, shown] of bad) {
      const f = () => catalogAt(h, when as string);
      expect(f, String(when)).toThrow(RangeError);
      expect(f, String(when)).not.toThrow(NoCatalogInForceError);
      expect(f, String(when)).toThrow(`received ${shown}.`);
      expect(() => nextCatalogChange(h, when as string), String(when)).toThrow(RangeError);
    }
  });

  it("P8: nextCatalogChange names the next version and its instant, and nothing after the last", () => {
    expect(nextCatalogChange(h, "2026-11-30T23:59:59.999Z")).toEqual({
      version: "2026-12-01",
      effectiveAt: "2026-12-01T00:00:00.000Z",
      effectiveAtMs: Date.UTC(2026, 11, 1),
      catalog: second,
    });
    expect(nextCatalogChange(h, "2020-01-01")?.version).toBe("2026-11-20");
    expect(nextCatalogChange(h, "2026-12-01T00:00:00.000Z")).toBeUndefined();
  });

  it("P8: catalogAt refuses a history whose versions are not increasing dates, naming the entry", () => {
    expect(() => catalogAt([second, first], "2027-01-01")).toThrow(
      "entry 1 (version 2026-11-20): versions must be strictly increasing, oldest first, and entry 0 has version 2026-12-01",
    );
    expect(() => catalogAt([], "2027-01-01")).toThrow(CatalogHistoryError);
  });
});

describe("defineCatalogHistory: a history is checked when defined", () => {
  const [first, second] = twoVersions();

  it("P8: accepts a valid history and returns the same list", () => {
    const list = [first, second] as const;
    expect(defineCatalogHistory(list)).toBe(list);
  });

  it("P8: refuses an empty list or a value that is not a list", () => {
    for (const bad of [[], undefined, catalog, "2026-11-20"]) {
      const error = problemOf(() => defineCatalogHistory(bad as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.problems).toEqual([
        { index: null, version: null, message: expect.stringContaining("non-empty array") },
      ]);
    }
  });

  it("P8: refuses versions not strictly increasing, naming the entry by index and version", () => {
    const same = problemOf(() =>
      defineCatalogHistory([first, { ...second, version: first.version }]),
    );
    expect(same.problems).toEqual([
      { index: 1, version: "2026-11-20", message: expect.stringContaining("strictly increasing") },
    ]);
    expect(same.message).toBe(
      "Invalid catalog history: entry 1 (version 2026-11-20): versions must be strictly increasing, oldest first, and entry 0 has version 2026-11-20.",
    );
    const backwards = problemOf(() => defineCatalogHistory([second, first]));
    expect(backwards.problems.map((p) => [p.index, p.version])).toEqual([[1, "2026-11-20"]]);
  });

  it("P8: refuses a version that is not a calendar date, and an invalid catalog, naming the entry and the field", () => {
    const leap = problemOf(() =>
      defineCatalogHistory([first, { ...second, version: "2027-02-29" }]),
    );
    expect(leap.problems).toEqual([
      { index: 1, version: "2027-02-29", message: expect.stringContaining("calendar date") },
    ]);
    expect(defineCatalogHistory([first, { ...second, version: "2028-02-29" }])).toHaveLength(2);

    const beta2 = second.models.beta2 as NonNullable<Catalog["models"][string]>;
    const broken = {
      ...second,
      models: {
        ...second.models,
        beta2: { ...beta2, prices: { ...beta2.prices, "4K": { low: "144" } } },
      },
    };
    const error = problemOf(() =>
      defineCatalogHistory([first, broken as never, { ...second, version: "bad" }]),
    );
    expect(error.problems.map((p) => [p.index, p.version])).toEqual([
      [1, "2026-12-01"],
      [2, "bad"],
    ]);
    expect(error.message).toContain("entry 1 (version 2026-12-01): models.beta2.prices.4K.low:");
    expect(error.message).toContain("entry 2 (version bad): version:");
    expect(error.problems.filter((p) => p.index === 2)).toHaveLength(1); // the version is named once
  });

  it("P8: refuses an entry that is not a catalog, naming its index", () => {
    const error = problemOf(() => defineCatalogHistory([first, null as never]));
    expect(error.problems.every((p) => p.index === 1)).toBe(true);
    expect(error.message).toContain("entry 1 (version undefined)");
  });
});

describe("P8 properties over generated histories", () => {
  it("P8: property: catalogAt returns the last entry whose date is not after the instant (brute-force oracle), whatever the form of the instant", () => {
    fc.assert(
      fc.property(
        history.chain((h) => fc.tuple(fc.constant(h), instantFor(h))),
        ([h, ms]) => {
          expect(defineCatalogHistory(h)).toBe(h);
          const expected = inForce(h, ms);
          for (const when of [ms, new Date(ms), new Date(ms).toISOString()]) {
            if (expected === undefined) {
              expect(() => catalogAt(h, when)).toThrow(NoCatalogInForceError);
            } else {
              expect(catalogAt(h, when)).toBe(expected);
            }
          }
          const next = h.find((c) => Date.parse(`${c.version}T00:00:00.000Z`) > ms);
          expect(nextCatalogChange(h, ms)?.catalog).toBe(next);
        },
      ),
    );
  });

  it("P8: property: a quote at an instant equals a quote with the catalog in force then, and its price is that catalog's cell", () => {
    const ids = Object.keys(catalog.models);
    fc.assert(
      fc.property(
        history.chain((h) =>
          fc.tuple(
            fc.constant(h),
            instantFor(h),
            fc.constantFrom(...ids),
            fc.nat({ max: 8 }),
            fc.nat({ max: 14 }),
            fc.constantFrom("1", "1.15", "2.3", "0.5"),
          ),
        ),
        ([h, ms, modelId, cellIndex, refs, multiplier]) => {
          const expected = inForce(h, ms);
          fc.pre(expected !== undefined);
          const inForceThen = expected as Catalog;
          const model = inForceThen.models[modelId] as NonNullable<Catalog["models"][string]>;
          const cells = pricedCells(model);
          const [resolution, quality] = cells[cellIndex % cells.length] as [Resolution, Quality];
          const spec = {
            kind: "image" as const,
            modelId,
            resolution,
            quality,
            referenceImageCount: refs,
          };
          const atInstant = quote(spec, { account: { multiplier }, catalog: catalogAt(h, ms) });
          expect(atInstant).toEqual(quote(spec, { account: { multiplier }, catalog: inForceThen }));
          expect(atInstant.catalogVersion).toBe(inForceThen.version);
          // At multiplier 1 the price is the cell plus the surcharge, read straight from the data.
          const plain = quote(spec, { catalog: catalogAt(h, ms) });
          if (refs > model.maxReferenceImages) {
            expect(plain.credits).toBeNull();
          } else {
            const cell = (model.prices as Record<string, Record<string, number>>)[resolution]?.[
              quality
            ] as number;
            expect(plain.credits).toBe(cell + refs * model.referenceSurchargeCredits);
          }
        },
      ),
    );
  });

  it("P8: property: a history with two entries on the same day, or out of order, is refused naming the later entry", () => {
    fc.assert(
      fc.property(
        history.filter((h) => h.length >= 2),
        fc.nat(),
        (h, k) => {
          const i = 1 + (k % (h.length - 1));
          const broken = h.map((c, j) =>
            j === i ? { ...c, version: (h[i - 1] as Catalog).version } : c,
          );
          const error = problemOf(() => defineCatalogHistory(broken));
          expect(error.problems.map((p) => p.index)).toContain(i);
          expect(error.message).toContain(`entry ${i} (version ${(h[i - 1] as Catalog).version})`);
        },
      ),
    );
  });

  it("P8: property: every day's version date is read as 00:00 UTC of that day (against toISOString)", () => {
    fc.assert(
      fc.property(fc.integer({ min: -700_000, max: 2_900_000 }), (day) => {
        const version = dayVersion(day);
        fc.pre(/^\d{4}-\d{2}-\d{2}$/.test(version));
        const h = [{ ...catalog, version }];
        const start = day * 86_400_000;
        expect(catalogAt(h, start)).toBe(h[0]);
        expect(() => catalogAt(h, start - 1)).toThrow(NoCatalogInForceError);
        expect(nextCatalogChange(h, start - 1)?.effectiveAtMs).toBe(start);
      }),
    );
  });
});

describe("toEpochMs: reading an instant (P8)", () => {
  it("P8: offsets move the instant by exactly their hours and minutes, in the right direction", () => {
    const utc = Date.UTC(2027, 0, 15, 9, 30);
    expect(toEpochMs("2027-01-15T09:30:00Z")).toBe(utc);
    expect(toEpochMs("2027-01-15T10:45:00+01:15")).toBe(utc);
    expect(toEpochMs("2027-01-15T08:15:00-01:15")).toBe(utc);
    expect(toEpochMs("2027-01-15T09:30+00:00")).toBe(utc);
    expect(toEpochMs("2027-01-15t09:30:00.5z")).toBe(utc + 500);
    expect(toEpochMs("2027-01-15T09:30:00.1239Z")).toBe(utc + 123);
    expect(toEpochMs(" 2027-01-15T09:30:07Z ")).toBe(utc + 7000);
  });

  it("P8: hours, minutes, seconds and offsets out of range are not instants", () => {
    for (const bad of [
      "2027-01-15T23:60:00Z",
      "2027-01-15T23:59:60Z",
      "2027-01-15T24:00:00Z",
      "2027-01-15T09:30:00+24:00",
      "2027-01-15T09:30:00+23:60",
      "2027-01-15T09:30:00",
      "27-01-15",
      "2027-1-15",
      "2027-01-5",
      "2027-01-15T9:30Z",
      "2027-00-10",
      "2027-01-00",
      "2027-04-31",
      "2027-12-32",
      // The whole string is the instant: nothing before the date, nothing after the offset.
      "12027-01-15",
      "x2027-01-15",
      "12027-01-15T09:30:00Z",
      "2027-01-15T09:30:00Zjunk",
      "2027-01-15T09:30:00+01:00:00",
    ]) {
      expect(() => toEpochMs(bad), bad).toThrow(RangeError);
    }
    expect(toEpochMs("2027-01-15T23:59:59+23:59")).toBe(
      Date.UTC(2027, 0, 15, 23, 59, 59) - (23 * 60 + 59) * 60_000,
    );
    expect(toEpochMs("2027-12-31")).toBe(Date.UTC(2027, 11, 31));
    expect(toEpochMs("2027-04-30")).toBe(Date.UTC(2027, 3, 30));
  });

  it("P8: leap years: February 29 exists every 4 years, not every 100, but every 400", () => {
    expect(toEpochMs("2024-02-29")).toBe(Date.UTC(2024, 1, 29));
    expect(toEpochMs("2000-02-29")).toBe(Date.UTC(2000, 1, 29));
    expect(() => toEpochMs("2100-02-29")).toThrow(RangeError);
    expect(() => toEpochMs("2027-02-29")).toThrow(RangeError);
    expect(toEpochMs("2027-02-28")).toBe(Date.UTC(2027, 1, 28));
  });

  it("P8: the Date range is the bound: 8.64e15 ms either way is an instant, one more is not", () => {
    expect(toEpochMs(8.64e15)).toBe(8.64e15);
    expect(toEpochMs(-8.64e15)).toBe(-8.64e15);
    expect(() => toEpochMs(8.64e15 + 1)).toThrow(RangeError);
    expect(() => toEpochMs(Number.NaN)).toThrow(RangeError);
    expect(() => toEpochMs(new Date(Number.NaN))).toThrow(/an invalid Date/);
  });

  it("P8: catalogAt and nextCatalogChange at the edges of a two-entry history", () => {
    const [a, b] = [
      { ...copy(catalog), version: "2027-01-01" },
      { ...copy(catalog), version: "2027-02-01" },
    ];
    const h = defineCatalogHistory([a, b]);
    expect(() => catalogAt(h, "2026-12-31T23:59:59.999Z")).toThrow(NoCatalogInForceError);
    expect(nextCatalogChange(h, "2026-12-31T23:59:59.999Z")?.version).toBe("2027-01-01");
    expect(nextCatalogChange(h, "2027-01-31T23:59:59.999Z")).toMatchObject({
      version: "2027-02-01",
      effectiveAt: "2027-02-01T00:00:00.000Z",
      effectiveAtMs: Date.UTC(2027, 1, 1),
    });
    expect(nextCatalogChange(h, "2027-02-01")).toBeUndefined();
    expect(catalogAt(h, "2027-02-01").version).toBe("2027-02-01");
  });
});

describe("CatalogHistoryError: every problem, in entry order, each named (P8)", () => {
  const at = (version: unknown) => ({ ...copy(catalog), version }) as unknown as Catalog;

  it("P8: the message names each entry by index and version, and the error says what it is", () => {
    const error = problemOf(() =>
      defineCatalogHistory([at("2027-02-01"), at("2027-01-01"), at(20270301)]),
    );
    expect(error.name).toBe("CatalogHistoryError");
    expect(error).toBeInstanceOf(TypeError);
    expect(error.problems.map((p) => [p.index, p.version])).toEqual([
      [1, "2027-01-01"],
      [2, 20270301], // refused by the schema, and named once
    ]);
    expect(error.problems[0]?.message).toBe(
      "versions must be strictly increasing, oldest first, and entry 0 has version 2027-02-01",
    );
    expect(error.message).toMatch(
      /^Invalid catalog history: entry 1 \(version 2027-01-01\): versions must be strictly/,
    );
    expect(error.message).toContain("entry 2 (version 20270301): version:");
    expect(error.message.endsWith(".")).toBe(true);
    expect(error.message).not.toContain("..");
  });

  it("P8: a version the schema refuses is named once, and a list's own problem comes first", () => {
    const error = problemOf(() => defineCatalogHistory([at("2027-02-01"), at("2027-02-30")]));
    expect(error.problems).toHaveLength(1);
    expect(error.problems[0]).toMatchObject({ index: 1, version: "2027-02-30" });
    const empty = problemOf(() => defineCatalogHistory([] as unknown as readonly Catalog[]));
    expect(empty.problems).toEqual([
      {
        index: null,
        version: null,
        message: "a catalog history must be a non-empty array of catalogs, oldest first",
      },
    ]);
    expect(empty.message).toBe(
      "Invalid catalog history: a catalog history must be a non-empty array of catalogs, oldest first.",
    );
    const notList = problemOf(() => defineCatalogHistory("x" as unknown as readonly Catalog[]));
    expect(notList.problems.map((p) => p.index)).toEqual([null]);
  });

  it("P8: catalogAt's message lists each problem, separated by semicolons, a version that is no string shown by its type", () => {
    const calendar =
      "version must be a calendar date written YYYY-MM-DD (the UTC day it takes effect)";
    // The schema is not consulted here: 2027-02-30 is an ISO date to it, but no calendar date.
    expect(() => catalogAt([at("2027-02-30"), at({ year: 2027 })], "2027-03-01")).toThrow(
      `Invalid catalog history: entry 0 (version 2027-02-30): ${calendar}; entry 1 (version an object): ${calendar}.`,
    );
    // A list whose only entry would read as a date once turned into a string is still no version.
    for (const f of [
      () => catalogAt([at(["2026-11-20"])], "2027-01-01"),
      () => nextCatalogChange([at(["2026-11-20"])], 0),
    ]) {
      expect(f).toThrow(`Invalid catalog history: entry 0 (version an array): ${calendar}.`);
    }
  });

  it("P8: an entry that is null or missing is named with both of its problems, never a crash", () => {
    const calendar =
      "version must be a calendar date written YYYY-MM-DD (the UTC day it takes effect).";
    for (const [entry, got] of [
      [null, "null"],
      [undefined, "undefined"],
    ] as const) {
      const error = problemOf(() =>
        defineCatalogHistory([at("2027-01-01"), entry as unknown as Catalog]),
      );
      expect(error.problems).toEqual([
        {
          index: 1,
          version: undefined,
          message: `(catalog): Invalid type: Expected Object but received ${got}`,
        },
        { index: 1, version: undefined, message: calendar },
      ]);
      expect(() =>
        catalogAt([at("2027-01-01"), entry as unknown as Catalog], "2027-03-01"),
      ).toThrow(`Invalid catalog history: entry 1 (version undefined): ${calendar}`);
    }
  });

  it("P8: catalogAt before the first entry names the first version; a history out of order is refused there too", () => {
    const h = defineCatalogHistory([at("2027-01-01"), at("2027-02-01")]);
    const error = (() => {
      try {
        catalogAt(h, "2026-06-01");
      } catch (e) {
        return e as NoCatalogInForceError;
      }
      throw new Error("no error");
    })();
    expect(error.name).toBe("NoCatalogInForceError");
    expect(error.firstVersion).toBe("2027-01-01");
    expect(error.message).toContain("2027-01-01");
    expect(() => catalogAt([at("2027-02-01"), at("2027-01-01")], "2027-03-01")).toThrow(
      CatalogHistoryError,
    );
    expect(() => nextCatalogChange([], "2027-03-01")).toThrow(CatalogHistoryError);
  });
});
