/**
 * The free checks of prices: every cell and reference count quoted (P1-P4, S11), the multiplier
 * inferred.
 */
import { type Quality, quote, type Resolution } from "../index.js";
import { QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { type Answer, errorCode, field, isRefusal, pool } from "./http.js";
import { explainRounding, inferMultiplier, type Observation, roundBy } from "./multiplier.js";
import { CATALOG } from "./oracle.js";
import type { Run } from "./run.js";

/** A quote request the kit sends. */
export type Spec = {
  kind: "image";
  modelId: string;
  resolution?: Resolution;
  quality?: Quality;
  referenceImageCount?: number;
};

/** A spec with what the server quoted. */
type Quoted = { spec: Spec; answer: Answer; credits: number | null | undefined };

/** The three quality models: the ones with a reference surcharge (P3). */
const surcharged = (modelId: string) =>
  (CATALOG.models[modelId]?.referenceSurchargeCredits ?? 0) > 0;

/** Every priced cell of the catalog, without references. */
export function cells(): Spec[] {
  const specs: Spec[] = [];
  for (const model of Object.values(CATALOG.models)) {
    for (const resolution of RESOLUTIONS) {
      for (const quality of QUALITIES) {
        if (model.prices[resolution]?.[quality] !== undefined) {
          specs.push({ kind: "image", modelId: model.id, resolution, quality });
        }
      }
    }
  }
  return specs;
}

/**
 * The subtotal of a spec before the multiplier (base + surcharge), or `undefined` when unpriceable.
 */
export function subtotalOf(spec: Spec): number | undefined {
  const priced = quote(spec);
  return priced.credits === null ? undefined : priced.breakdown.subtotalCredits;
}

/** The correct quote of a spec at a multiplier. */
export function expectedCredits(spec: Spec, multiplier: string): number | null {
  return quote(spec, { account: { multiplier } }).credits;
}

/** A stable key of a spec, to find its quote again. */
export const specKey = (spec: Spec) =>
  `${spec.modelId}|${spec.resolution ?? ""}|${spec.quality ?? ""}|${spec.referenceImageCount ?? 0}`;

/** What the quotes of a run found: each spec's credits as quoted. */
export type QuoteBook = Map<string, number | null>;

/**
 * Quotes every cell, with and without references, and the specs that cannot be priced; infers the
 * multiplier unless it was given; checks each quote against the oracle.
 *
 * @param run - The run.
 * @returns The quotes, by {@link specKey}.
 */
export async function checkQuotes(run: Run): Promise<QuoteBook> {
  const book: QuoteBook = new Map();
  const base = cells();
  const withReferences: Spec[] = [];
  for (const spec of base) {
    const model = CATALOG.models[spec.modelId];
    if (!model) {
      continue;
    }
    // The interface sends referenceImageCount only to the three quality models.
    if (!surcharged(spec.modelId) && !run.reference) {
      continue;
    }
    const counts = new Set(
      [1, 2, model.maxReferenceImages].filter((n) => n >= 1 && n <= model.maxReferenceImages),
    );
    for (const n of counts) {
      withReferences.push({ ...spec, referenceImageCount: n });
    }
  }
  const unpriceable: Spec[] = [
    { kind: "image", modelId: "alpha-img2", resolution: "2K", quality: "low" },
    { kind: "image", modelId: "alpha-img2", resolution: "4K", quality: "low" },
  ];
  if (run.reference) {
    unpriceable.push(
      { kind: "image", modelId: "alpha-img2", quality: "low" },
      { kind: "image", modelId: "beta2", resolution: "2K", quality: "medium" },
      { kind: "image", modelId: "gamma-image-1.5", resolution: "1K", referenceImageCount: 2 },
      { kind: "image", modelId: "no-such-model", resolution: "1K" },
    );
  }
  const before = await run.balance();
  const all = [...base, ...withReferences, ...unpriceable];
  const quoted: Quoted[] = await pool(all, run.settings.concurrency, async (spec) => {
    const answer = await run.send({ method: "POST", path: "/api/pricing/quote", body: spec });
    const credits = field(answer.json, "credits");
    const value =
      answer.status === 200 &&
      (credits === null || (typeof credits === "number" && Number.isSafeInteger(credits)))
        ? (credits as number | null)
        : undefined;
    return { spec, answer, credits: value };
  });
  // S11: every quote is a 200 with credits.
  let answered = 0;
  for (const q of quoted) {
    if (q.credits === undefined) {
      run.fail("S11", {
        message:
          `POST /api/pricing/quote answered ${q.answer.status || q.answer.lost} without a ` +
          "whole number or null in credits.",
        expected: "200 { credits: <whole number or null>, ... }",
        actual:
          q.answer.status === 0
            ? q.answer.lost
            : { status: q.answer.status, body: q.answer.json ?? q.answer.text.slice(0, 200) },
        answer: q.answer,
      });
    } else {
      answered += 1;
      book.set(specKey(q.spec), q.credits);
    }
  }
  run.pass("S11", answered);
  const after = await run.balance();
  if (before !== undefined && after !== undefined && before !== after) {
    run.fail("S11", {
      message: `Quotes moved the balance from ${before} to ${after}.`,
      expected: "quotes are free",
      actual: { before, after },
      request: null,
    });
    run.stop("quotes moved the balance (S11)");
  }
  if (after !== undefined) {
    run.lastBalance = after;
  }

  const other = settleMultiplier(run, quoted.slice(0, base.length));
  const m = run.multiplier;
  if (m === null) {
    return book;
  }
  // P1, P4: each cell without references (none, when every quote fits another multiplier: P4 said
  // so).
  for (const q of quoted.slice(0, base.length)) {
    if (other === undefined) {
      judgeCell(run, q, m);
    }
  }
  // P3: references on every model.
  for (const q of quoted.slice(base.length, base.length + withReferences.length)) {
    if (q.credits === undefined) {
      continue;
    }
    const expected = expectedCredits(q.spec, m);
    const plain = book.get(specKey({ ...q.spec, referenceImageCount: 0 }));
    const plainRight = plain === expectedCredits({ ...q.spec, referenceImageCount: 0 }, m);
    if (q.credits === expected) {
      run.pass("P3");
    } else if (plainRight) {
      run.fail("P3", {
        message:
          `${describe(q.spec)} quotes ${q.credits}; with ${q.spec.referenceImageCount} ` +
          `reference(s) it is ${expected} (${
            surcharged(q.spec.modelId)
              ? "10 base credits per reference, per image"
              : "no surcharge on this model"
          }).`,
        expected,
        actual: q.credits,
        answer: q.answer,
      });
    }
  }
  // P2: what cannot be priced quotes null.
  for (const q of quoted.slice(base.length + withReferences.length)) {
    if (q.credits === null) {
      run.pass("P2");
    } else if (q.credits !== undefined || (run.reference && q.answer.status === 400)) {
      if (q.credits === undefined) {
        continue;
      }
      run.fail("P2", {
        message: `${describe(q.spec)} cannot be priced, yet the quote gives ${q.credits} credits.`,
        expected: "credits: null",
        actual: q.credits,
        answer: q.answer,
      });
    }
  }
  if (run.reference) {
    await malformedQuotes(run);
  }
  return book;
}

/** A spec in words. */
export const describe = (spec: Spec) =>
  `${spec.modelId} ${spec.resolution ?? "(default resolution)"} ${spec.quality ?? "low"}`;

/**
 * Sets the run's multiplier: the option, or inferred from the cells. Quotes that no multiplier
 * rounded half-up explains fail P4; quotes that all fit another multiplier than the option's fail
 * P4 once (the multiplier is not the account's), and those cells are not blamed again.
 *
 * @returns A multiplier the quotes fit when it is not the run's own (their cells are explained by
 * it).
 */
function settleMultiplier(run: Run, quoted: readonly Quoted[]): string | undefined {
  const observations: Observation[] = [];
  for (const q of quoted) {
    const subtotal = subtotalOf(q.spec);
    if (typeof q.credits === "number" && subtotal !== undefined) {
      observations.push({ credits: q.credits, subtotal });
    }
  }
  const inference = observations.length > 0 ? inferMultiplier(observations) : undefined;
  if (run.settings.multiplier !== undefined) {
    run.multiplier = run.settings.multiplier;
    run.multiplierSource = "option";
    const m = run.multiplier;
    const fitsOption = observations.every((o) => roundBy(o.subtotal, m, "half-up") === o.credits);
    if (inference?.kind === "consistent" && !fitsOption) {
      run.fail("P4", {
        message:
          `Every quote fits multiplier ${inference.multiplier} rounded half-up, not the ` +
          `account's ${m}.`,
        expected: m,
        actual: inference.multiplier,
        request: null,
      });
      return inference.multiplier;
    }
    return undefined;
  }
  run.multiplierSource = "inferred";
  if (!inference) {
    return undefined;
  }
  run.multiplier = inference.multiplier;
  if (inference.kind === "rounding") {
    run.fail("P4", {
      message:
        `Every quote fits multiplier ${inference.multiplier} rounded ` +
        `${inference.rounding}, and none fits a multiplier rounded half-up.`,
      expected: "round(subtotal x multiplier), half-up",
      actual: `rounded ${inference.rounding}`,
      request: null,
    });
  } else if (inference.kind === "inconsistent" && inference.agreeing * 2 <= observations.length) {
    run.fail("P4", {
      message:
        "No multiplier rounds every subtotal half-up to its quote; the best, " +
        `${inference.multiplier}, fits ${inference.agreeing} of ${observations.length} ` +
        "cells.",
      expected: "one multiplier for every cell, each (c - 0.5)/s <= m < (c + 0.5)/s",
      actual: "an empty intersection",
      request: null,
    });
  }
  return undefined;
}

/** Judges one cell's quote: P1 or P4. */
function judgeCell(run: Run, q: Quoted, m: string): void {
  if (q.credits === undefined) {
    return;
  }
  const expected = expectedCredits(q.spec, m);
  if (q.credits === expected) {
    run.pass("P1");
    run.pass("P4");
    return;
  }
  const subtotal = subtotalOf(q.spec) ?? 0;
  const rounding =
    typeof q.credits === "number" ? explainRounding(q.credits, subtotal, m) : undefined;
  if (rounding) {
    run.fail("P4", {
      message:
        `${describe(q.spec)}: ${subtotal} x ${m} = ${expected} rounded half-up; the quote ` +
        `${q.credits} is rounded ${rounding}.`,
      expected,
      actual: q.credits,
      answer: q.answer,
    });
  } else {
    run.fail("P1", {
      message:
        `${describe(q.spec)}: the base price is ${subtotal}, so ${expected} credits at ` +
        `multiplier ${m}; the quote says ${q.credits}.`,
      expected,
      actual: q.credits,
      answer: q.answer,
    });
  }
}

/** S11 (reference profile): a malformed quote body is 400 `invalid_request`. */
async function malformedQuotes(run: Run): Promise<void> {
  const bodies: unknown[] = [
    { kind: "image", modelId: "beta2", resolution: "2K", color: "red" },
    { modelId: "beta2", resolution: "2K" },
    { kind: "image", modelId: "beta2", resolution: 2 },
    [],
  ];
  for (const body of bodies) {
    const answer = await run.send({ method: "POST", path: "/api/pricing/quote", body });
    if (answer.status === 400 && errorCode(answer) === "invalid_request" && isRefusal(answer)) {
      run.pass("S11");
    } else {
      run.fail("S11", {
        message: "A malformed quote body is refused with 400 invalid_request.",
        expected: { status: 400, code: "invalid_request" },
        actual: { status: answer.status, code: errorCode(answer) },
        answer,
      });
    }
  }
}
