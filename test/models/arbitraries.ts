/** fast-check arbitraries of catalogs and histories derived from the built-in catalog, for the P8 tests. */
import fc from "fast-check";
import {
  type Catalog,
  catalog,
  type ModelSpec,
  type Quality,
  type Resolution,
} from "../../src/index.js";
import { QUALITIES, RESOLUTIONS } from "../../src/models/lists.js";

const DAY_MS = 86_400_000;

/** A deep copy of a catalog that shares nothing (structuredClone would keep the price grid the quality models share). */
export const copy = (c: Catalog): Catalog => JSON.parse(JSON.stringify(c)) as Catalog;

/** The YYYY-MM-DD of a day counted from 1970-01-01 (an independent formatter: toISOString). */
export const dayVersion = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The priced cells of a model, in a fixed order. */
export function pricedCells(model: ModelSpec): [Resolution, Quality][] {
  return RESOLUTIONS.flatMap((r) =>
    QUALITIES.filter((q) => model.prices[r]?.[q] !== undefined).map(
      (q) => [r, q] as [Resolution, Quality],
    ),
  );
}

/** A copy of the built-in catalog with a new version and some price cells and surcharges changed (still valid). */
export function tweakedCatalog(version: string): fc.Arbitrary<Catalog> {
  const ids = Object.keys(catalog.models);
  const tweak = fc.record({
    model: fc.constantFrom(...ids),
    cell: fc.nat({ max: 8 }),
    credits: fc.integer({ min: 0, max: 2000 }),
    surcharge: fc.option(fc.integer({ min: 0, max: 50 }), { freq: 4 }),
  });
  return fc.array(tweak, { maxLength: 6 }).map((tweaks) => {
    const c = copy({ ...catalog, version });
    const models = c.models as Record<string, { -readonly [K in keyof ModelSpec]: ModelSpec[K] }>;
    for (const t of tweaks) {
      const model = models[t.model];
      if (!model) {
        continue;
      }
      const cells = pricedCells(model);
      const [resolution, quality] = cells[t.cell % cells.length] as [Resolution, Quality];
      (model.prices[resolution] as Record<Quality, number>)[quality] = t.credits;
      if (t.surcharge !== null) {
        model.referenceSurchargeCredits = t.surcharge;
      }
    }
    return c;
  });
}

/** Days from 1970 to about 2100, so versions span before and after any instant drawn. */
export const DAY_RANGE = { min: 0, max: 47_500 } as const;

/** A valid history: 1 to 6 catalogs on strictly increasing random days, each with random price tweaks. */
export const history: fc.Arbitrary<Catalog[]> = fc
  .uniqueArray(fc.integer(DAY_RANGE), { minLength: 1, maxLength: 6 })
  .map((days) => [...days].sort((a, b) => a - b))
  .chain((days) => fc.tuple(...days.map((day) => tweakedCatalog(dayVersion(day)))));

/**
 * An instant for a history: anywhere in the range, or within a millisecond of one of its version
 * boundaries (the interesting instants).
 */
export function instantFor(h: readonly Catalog[]): fc.Arbitrary<number> {
  const boundaries = h.map((c) => Date.parse(`${c.version}T00:00:00.000Z`));
  return fc.oneof(
    fc.integer({ min: DAY_RANGE.min * DAY_MS - DAY_MS, max: (DAY_RANGE.max + 1) * DAY_MS }),
    fc
      .tuple(fc.constantFrom(...boundaries), fc.integer({ min: -1, max: 1 }))
      .map(([b, d]) => b + d),
  );
}

/** The oracle of P8, by brute force: the last entry whose version date (00:00 UTC) is not after `ms`. */
export function inForce(h: readonly Catalog[], ms: number): Catalog | undefined {
  return h.filter((c) => Date.parse(`${c.version}T00:00:00.000Z`) <= ms).at(-1);
}
