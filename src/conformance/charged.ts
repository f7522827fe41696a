/**
 * The charged checks, each sent only when the budget holds its correct price: the 202 body (S3),
 * cost = the oracle = quote x images = balance drop (P4, P5, P7, S4), trimming and the limits'
 * accepted ends (N3, N4, N13, V1-V6), references (P3, P6), replays (S5).
 */
import { checkRequest, computeCharge, type GenerationRequest } from "../index.js";
import { QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { distinctReferences } from "../request/validateForModel.js";
import { BASE } from "./cases.js";
import { type Answer, errorCode, field, isRefusal } from "./http.js";
import { roundBy } from "./multiplier.js";
import { CATALOG } from "./oracle.js";
import { type QuoteBook, specKey } from "./quotes.js";
import type { Run } from "./run.js";

/** A create the server accepted, as the kit saw it. */
export type Created = {
  answer: Answer;
  body: Record<string, unknown>;
  request: GenerationRequest;
  /** The correct total. */
  expected: number;
  /** Credits per image, as the oracle prices them. */
  perOutput: number;
  /** The job ids of the 202, in order. */
  jobIds: string[];
  /** The total the 202 gave. */
  total: number | undefined;
};

/** What the run learned in its charged checks, for the admin checks. */
export type ChargedState = {
  /** A create with two or more jobs, for the refund checks. */
  multiJob?: Created;
  /** Every accepted create. */
  created: Created[];
};

/**
 * The correct charge of a body for this run, or `undefined` when it is not valid or the multiplier
 * is unknown.
 */
function priceOf(run: Run, body: Record<string, unknown>, authorized: number) {
  const checked = checkRequest(body);
  if (!checked.success || run.multiplier === null) {
    return undefined;
  }
  const charge = computeCharge(checked.output, {
    account: { multiplier: run.multiplier },
    referenceCount: authorized,
  });
  return {
    request: checked.output,
    total: charge.totalCreditCost,
    perOutput: charge.perOutputCredits,
    subtotal: charge.breakdown.subtotalCredits,
  };
}

/** How many of a body's distinct references the caller owns. */
function authorizedCount(run: Run, request: GenerationRequest): number {
  const own = new Set(run.settings.assets);
  return new Set(request.inputAssetIds.filter((id) => own.has(id))).size;
}

/**
 * Sends a create with its key, retrying on a lost answer with the same key (at most twice more);
 * reads the balance after and holds it to the money the answers confirm (S4).
 *
 * @returns The answer, or `undefined` when every try lost its answer or the balance is unreadable.
 */
async function send(
  run: Run,
  body: Record<string, unknown>,
  price: number,
): Promise<Answer | undefined> {
  let answer = await run.send({ method: "POST", path: "/api/generations", body });
  for (let retry = 0; retry < 2 && answer.status === 0; retry += 1) {
    answer = await run.send({ method: "POST", path: "/api/generations", body });
  }
  const before = run.lastBalance;
  const after = await run.balance();
  if (after === undefined) {
    run.fail("S10", {
      message: "GET /api/query/credits gave no balance after a create.",
      expected: "200 with creditBalance",
      actual: "no creditBalance",
      request: null,
    });
    run.stop("the balance could not be read (S10)");
    return undefined;
  }
  run.lastBalance = after;
  const total = field(field(answer.json, "billing"), "totalCreditCost");
  if (answer.status === 0) {
    run.uncertain += price;
  } else if (answer.status >= 200 && answer.status < 300) {
    run.confirmed += typeof total === "number" ? total : before - after;
  } else {
    // A refused create: what it charged (if anything) is the caller's to blame; the money is gone.
    run.confirmed += before - after;
  }
  checkBound(run, answer);
  return answer.status === 0 ? undefined : answer;
}

/**
 * S4 and Jepsen's counter bound: the balance lies between the start minus every charge not known
 * to have failed, and the start minus the confirmed charges. A balance outside stops the charging:
 * a run that cannot read what it spent cannot keep its budget.
 */
function checkBound(run: Run, answer: Answer): void {
  const spent = run.startBalance - run.lastBalance;
  if (spent >= run.confirmed && spent <= run.confirmed + run.uncertain) {
    return;
  }
  run.fail("S4", {
    message:
      `The balance says ${spent} credits were spent; the accepted creates charged ` +
      `${run.confirmed}${run.uncertain > 0 ? `, and lost answers may add ${run.uncertain}` : ""}.`,
    expected: { balance: run.startBalance - run.confirmed },
    actual: { balance: run.lastBalance },
    answer,
  });
  run.stop("the balance does not follow the charges (S4)");
}

/**
 * Sends one create the server must accept and judges it (S3, S4, the price rules); `rules` are the
 * rules its acceptance shows.
 *
 * @returns The create, or `undefined` when it was not sent, lost, or refused.
 */
async function accept(
  run: Run,
  rules: readonly string[],
  what: string,
  body: Record<string, unknown>,
  book: QuoteBook,
): Promise<Created | undefined> {
  const wanted = rules.filter((rule) => run.wants(rule));
  if (wanted.length === 0) {
    return undefined;
  }
  const checked = checkRequest(body);
  if (!checked.success) {
    throw new Error(`the kit's own case "${what}" is not valid: ${JSON.stringify(checked.issues)}`);
  }
  const authorized = authorizedCount(run, checked.output);
  const price = priceOf(run, body, authorized);
  const why =
    price === undefined
      ? "no multiplier: the prices could not be inferred"
      : run.whyNotCharge(price.total);
  if (price === undefined || why !== undefined) {
    for (const rule of wanted) {
      run.skip(rule, `${what}: ${why ?? "not priced"}`);
    }
    return undefined;
  }
  const confirmedBefore = run.confirmed;
  const answer = await send(run, body, price.total);
  if (!answer) {
    return undefined;
  }
  if (answer.status < 200 || answer.status >= 300) {
    run.fail(wanted[0] as string, {
      message: `${what}: a valid request was not accepted.`,
      expected: "202",
      actual: { status: answer.status, error: field(answer.json, "error") },
      answer,
    });
    return undefined;
  }
  const total = field(field(answer.json, "billing"), "totalCreditCost");
  const created: Created = {
    answer,
    body,
    request: price.request,
    expected: price.total,
    perOutput: price.perOutput,
    jobIds: jobIds(answer),
    total: typeof total === "number" ? total : undefined,
  };
  const balanceAfter = run.startBalance - confirmedBefore - (created.total ?? 0);
  const shape = judgeShape(
    run,
    answer,
    price.request,
    run.uncertain === 0 ? balanceAfter : undefined,
  );
  const money = judgeMoney(run, created, book, price.subtotal, authorized);
  if (shape && money && !run.stopped) {
    for (const rule of wanted) {
      run.pass(rule);
    }
  }
  return created;
}

/** The job ids of a 202 body. */
function jobIds(answer: Answer): string[] {
  const results = field(field(answer.json, "batch"), "results");
  return Array.isArray(results) ? results.map((r) => String(field(field(r, "job"), "id"))) : [];
}

/**
 * S3: the 202 body agrees with the request and with itself, and its balance after is the balance
 * before less its own total.
 *
 * @returns Whether it held.
 */
function judgeShape(
  run: Run,
  answer: Answer,
  request: GenerationRequest,
  balanceAfter: number | undefined,
): boolean {
  const body = answer.json;
  const batch = field(body, "batch");
  const billing = field(body, "billing");
  const echo = field(batch, "request");
  const results = field(batch, "results");
  const problems: string[] = [];
  if (answer.status !== 202) {
    problems.push(`status ${answer.status}, not 202`);
  }
  if (field(echo, "imageCount") !== request.imageCount) {
    problems.push("batch.request.imageCount is not the request's");
  }
  if (field(echo, "modelId") !== request.modelId) {
    problems.push("batch.request.modelId is not the request's (trimmed)");
  }
  for (const name of ["aspectRatio", "resolution"] as const) {
    const value = field(echo, name);
    if (value !== request[name] && (run.reference || value !== undefined)) {
      problems.push(
        `batch.request.${name} is ${JSON.stringify(value)}, not ${JSON.stringify(request[name])}`,
      );
    }
  }
  const prompt = field(echo, "prompt");
  if (typeof prompt !== "string" || (run.reference && prompt !== request.prompt)) {
    problems.push("batch.request.prompt is not the request's prompt");
  }
  if (!Array.isArray(results) || results.length !== request.imageCount) {
    problems.push(
      `batch.results has ${Array.isArray(results) ? results.length : "no"} entries for ` +
        `${request.imageCount} images`,
    );
  } else {
    const ids = new Set<string>();
    for (const [i, r] of results.entries()) {
      const id = field(field(r, "job"), "id");
      if (typeof id !== "string" || !/^job_./.test(id)) {
        problems.push(`batch.results[${i}].job.id is not job_<id>`);
      } else {
        ids.add(id);
      }
      if (field(field(r, "job"), "status") !== "queued") {
        problems.push(`batch.results[${i}].job.status is not "queued"`);
      }
      const assets = field(r, "assets");
      if (!Array.isArray(assets) || assets.length !== 0) {
        problems.push(`batch.results[${i}].assets is not []`);
      }
    }
    if (ids.size !== results.length && problems.length === 0) {
      problems.push("two results share a job id");
    }
  }
  for (const name of ["totalCreditCost", "balanceAfterCredits"]) {
    const a = field(batch, name);
    const b = field(billing, name);
    if (typeof b !== "number" || a !== b) {
      problems.push(
        `batch.${name} (${JSON.stringify(a)}) and billing.${name} (${JSON.stringify(b)}) ` +
          "differ or are missing",
      );
    }
  }
  const after = field(billing, "balanceAfterCredits");
  if (balanceAfter !== undefined && typeof after === "number" && after !== balanceAfter) {
    problems.push(
      `billing.balanceAfterCredits is ${after}; the balance before less this total is ` +
        `${balanceAfter}`,
    );
  }
  if (problems.length === 0) {
    return true;
  }
  run.fail("S3", {
    message: `The 202 body: ${problems.join("; ")}.`,
    expected:
      "batch.request echoing the request, one queued job per image, batch and billing totals equal",
    actual: body ?? answer.text.slice(0, 300),
    answer,
  });
  return false;
}

/**
 * The price of an accepted create against the oracle and against its own quote (P7).
 *
 * @returns Whether it held.
 */
function judgeMoney(
  run: Run,
  c: Created,
  book: QuoteBook,
  subtotal: number,
  authorized: number,
): boolean {
  const { request } = c;
  const total = c.total;
  const m = run.multiplier ?? "1";
  if (total === undefined) {
    return false; // S3 has failed already
  }
  const spec = {
    kind: "image" as const,
    modelId: request.modelId,
    resolution: request.resolution,
    quality: request.quality,
    ...(authorized > 0 ? { referenceImageCount: authorized } : {}),
  };
  const quoted = book.get(specKey(spec));
  const quoteRight = quoted === c.perOutput;
  if (typeof quoted === "number" && total === quoted * request.imageCount) {
    run.pass("P7");
  }
  if (total === c.expected) {
    if (typeof quoted === "number" && !quoteRight) {
      run.fail("P7", {
        message:
          `The quote of the same spec is ${quoted} per image; the charge is ${total} for ` +
          `${request.imageCount}, as the oracle prices it.`,
        expected: quoted * request.imageCount,
        actual: total,
        answer: c.answer,
      });
      return false;
    }
    return true;
  }
  const rule =
    blamePrice(c, total, subtotal, authorized, m) ??
    (quoteRight || quoted === undefined ? "P7" : undefined);
  if (rule === undefined) {
    // The quote is as wrong as the charge: the free checks have blamed that already.
    return false;
  }
  const references =
    request.inputAssetIds.length > 0
      ? ` with references ${JSON.stringify(request.inputAssetIds)}`
      : "";
  const quote = typeof quoted === "number" ? `, the quote ${quoted} per image` : "";
  run.fail(rule, {
    message:
      `${request.modelId} ${request.resolution} ${request.quality} x ${request.imageCount}` +
      `${references}: charged ${total}; the oracle says ${c.expected} ` +
      `(${request.imageCount} x ${c.perOutput} at multiplier ${m})${quote}.`,
    expected: c.expected,
    actual: total,
    answer: c.answer,
  });
  return false;
}

/** Which rule a wrong total breaks, from what it fits; `undefined` when it fits none of them. */
function blamePrice(
  c: Created,
  total: number,
  subtotal: number,
  authorized: number,
  m: string,
): string | undefined {
  const { request } = c;
  const n = request.imageCount;
  const model = CATALOG.models[request.modelId];
  const surcharge = model?.referenceSurchargeCredits ?? 0;
  const base = subtotal - authorized * surcharge;
  const perImage = (refs: number, per: number) => n * roundBy(base + refs * per, m, "half-up");
  if (n > 1 && total === roundBy(subtotal * n, m, "half-up")) {
    return "P5";
  }
  const listed = request.inputAssetIds.length;
  if (listed === 0) {
    return undefined;
  }
  const raw = (c.body as { inputAssetIds?: unknown }).inputAssetIds;
  const sent = Array.isArray(raw) ? raw : request.inputAssetIds;
  const counts = [sent.length, new Set(sent).size, distinctReferences(request.inputAssetIds)];
  for (const per of surcharge === 0 ? [10] : [surcharge]) {
    if (counts.some((refs) => refs !== authorized && total === perImage(refs, per))) {
      // A surcharge on a model without one; or duplicates, or others' assets, charged.
      return surcharge === 0 ? "P3" : "P6";
    }
  }
  if (surcharge > 0) {
    for (let per = 0; per <= 30; per += 1) {
      if (per !== surcharge && total === perImage(authorized, per)) {
        return "P3"; // another surcharge per reference
      }
    }
  }
  return undefined;
}

/**
 * The cheapest (cell, count) whose total differs when the product is rounded (P5), or `undefined`.
 */
function roundingCase(m: string): Record<string, unknown> | undefined {
  let best: { cost: number; body: Record<string, unknown> } | undefined;
  for (const model of Object.values(CATALOG.models)) {
    for (const resolution of RESOLUTIONS) {
      for (const quality of QUALITIES) {
        const price = model.prices[resolution]?.[quality];
        if (price === undefined) {
          continue;
        }
        for (let n = 2; n <= model.maxImageCount; n += 1) {
          const right = n * roundBy(price, m, "half-up");
          if (right !== roundBy(price * n, m, "half-up") && (!best || right < best.cost)) {
            best = {
              cost: right,
              body: { prompt: BASE.prompt, modelId: model.id, resolution, quality, imageCount: n },
            };
          }
        }
      }
    }
  }
  return best?.body;
}

/**
 * Runs the charged checks, cheapest and most telling first, each only within the budget.
 *
 * @param run - The run.
 * @param book - The quotes of the free checks.
 * @returns What the admin checks need.
 */
export async function checkCharged(run: Run, book: QuoteBook): Promise<ChargedState> {
  const state: ChargedState = { created: [] };
  const keep = (c: Created | undefined) => {
    if (c) {
      state.created.push(c);
    }
    return c;
  };
  const m = run.multiplier ?? "1";
  // The first create: the 202 body, the charge, the balance.
  const first = keep(
    await accept(
      run,
      ["S3", "S4", "P4", "P7", "V2"],
      "one image of the cheapest cell",
      { ...BASE, idempotencyKey: run.newKey() },
      book,
    ),
  );
  if (first) {
    await replay(run, first);
  }
  // P5: a count whose total differs from the rounded product; on the reference profile its key is
  // first used by a refused body.
  const multi = roundingCase(m) ?? { ...BASE, imageCount: 2 };
  const multiKey = run.newKey();
  if (run.reference && run.wants("S5") && !run.stopped) {
    const refused = await run.send({
      method: "POST",
      path: "/api/generations",
      body: { ...multi, imageCount: 0, idempotencyKey: multiKey },
    });
    await run.expectFree("S5", refused);
  }
  const multiple = keep(
    await accept(
      run,
      ["P5", "S3", "S5"],
      "several images (P5)",
      { ...multi, idempotencyKey: multiKey },
      book,
    ),
  );
  if (multiple) {
    state.multiJob = multiple;
  }
  await concurrent(run);
  keep(
    await accept(
      run,
      ["N3"],
      "trimmed strings",
      {
        prompt: `  ${BASE.prompt}  `,
        modelId: " alpha-img2 ",
        resolution: " 1K ",
        idempotencyKey: `  ${run.newKey()}  `,
      },
      book,
    ),
  );
  await references(run, book, keep);
  keep(
    await accept(
      run,
      ["N4"],
      "a 12000-emoji prompt",
      { ...BASE, prompt: "🦊".repeat(12_000) },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["N13"],
      "a 128-character key",
      { ...BASE, idempotencyKey: `${run.newKey()}-`.padEnd(128, "k") },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["V1"],
      "21:9 on a 2.5 model",
      { ...BASE, modelId: "alpha-img2-5-flare", aspectRatio: "21:9" },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["V4"],
      "a transparent background",
      { ...BASE, modelId: "alpha-img2-official", background: "transparent" },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["V3"],
      "medium quality on a quality model",
      { ...BASE, modelId: "alpha-img2-official", quality: "medium" },
      book,
    ),
  );
  // V5: the most images of each limit, on its cheapest model.
  const limits = new Map<number, Record<string, unknown>>();
  for (const model of Object.values(CATALOG.models)) {
    const cheapest = Math.min(
      ...RESOLUTIONS.map((r) => model.prices[r]?.low ?? Number.POSITIVE_INFINITY),
    );
    const resolution = RESOLUTIONS.find((r) => model.prices[r]?.low === cheapest);
    const seen = limits.get(model.maxImageCount);
    const cost = cheapest * model.maxImageCount;
    if (resolution && (!seen || cost < (seen.cost as number))) {
      limits.set(model.maxImageCount, {
        cost,
        body: {
          prompt: BASE.prompt,
          modelId: model.id,
          resolution,
          imageCount: model.maxImageCount,
        },
      });
    }
  }
  for (const [count, { body: b }] of [...limits.entries()].sort(
    (a, b2) => (a[1].cost as number) - (b2[1].cost as number),
  )) {
    keep(
      await accept(
        run,
        ["V5"],
        `${count} images, the model's most`,
        b as Record<string, unknown>,
        book,
      ),
    );
  }
  if (run.reference) {
    await tooFewCredits(run);
  }
  return state;
}

/**
 * S5: the same key and body again returns the same task and charges nothing; a different body is
 * 409 (reference).
 */
async function replay(run: Run, first: Created): Promise<void> {
  if (!run.wants("S5") || run.stopped) {
    return;
  }
  const again = await run.send({ method: "POST", path: "/api/generations", body: first.body });
  const free = await run.expectFree("S5", again);
  const sameJobs = JSON.stringify(jobIds(again)) === JSON.stringify(first.jobIds);
  const sameCost = field(field(again.json, "billing"), "totalCreditCost") === first.total;
  const header = again.headers.get("idempotent-replayed");
  const right =
    again.status >= 200 &&
    again.status < 300 &&
    sameJobs &&
    sameCost &&
    (!run.reference || (again.status === 202 && header === "true"));
  if (right && free) {
    run.pass("S5");
  } else if (!right) {
    run.fail("S5", {
      message:
        "A retry with the same key and body returns the original task (same jobs, same cost).",
      expected: {
        status: 202,
        jobIds: first.jobIds,
        totalCreditCost: first.total,
        ...(run.reference ? { "Idempotent-Replayed": "true" } : {}),
      },
      actual: {
        status: again.status,
        jobIds: jobIds(again),
        totalCreditCost: field(field(again.json, "billing"), "totalCreditCost"),
        "Idempotent-Replayed": header,
      },
      answer: again,
    });
  }
  if (run.reference && !run.stopped) {
    const other = await run.send({
      method: "POST",
      path: "/api/generations",
      body: { ...first.body, prompt: `${BASE.prompt}, again` },
    });
    const freeOther = await run.expectFree("S5", other);
    if (other.status === 409 && errorCode(other) === "idempotency_key_reused" && isRefusal(other)) {
      if (freeOther) {
        run.pass("S5");
      }
    } else {
      if (other.status >= 200 && other.status < 300) {
        run.stop("a reused key with another body was accepted (S5)");
      }
      run.fail("S5", {
        message: "The same key with a different body is refused with 409 idempotency_key_reused.",
        expected: { status: 409, code: "idempotency_key_reused" },
        actual: { status: other.status, code: errorCode(other) },
        answer: other,
      });
    }
  }
}

/**
 * P3, P6, V6: references de-duplicated, surcharged on the three quality models only, only the
 * caller's charged.
 */
async function references(
  run: Run,
  book: QuoteBook,
  keep: (c: Created | undefined) => Created | undefined,
): Promise<void> {
  const [a, b] = run.settings.assets;
  if (a === undefined) {
    for (const rule of ["P6", "V6"]) {
      run.skip(rule, "needs an asset id of the caller (--assets)");
    }
    return;
  }
  const edit = { prompt: BASE.prompt, resolution: "1K", generationType: "image-to-image" };
  keep(
    await accept(
      run,
      ["P6", "P3"],
      "one reference listed three times",
      { ...edit, modelId: "alpha-img2-official", inputAssetIds: [a, a, ` ${a} `] },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["P3"],
      "a reference on a model without surcharge",
      { ...edit, modelId: "alpha-img2", inputAssetIds: [a] },
      book,
    ),
  );
  keep(
    await accept(
      run,
      ["V6"],
      "one reference on gamma-image-1.5",
      { ...edit, modelId: "gamma-image-1.5", inputAssetIds: [a] },
      book,
    ),
  );
  if (b !== undefined) {
    keep(
      await accept(
        run,
        ["P3"],
        "two references on a quality model",
        { ...edit, modelId: "alpha-img2-official", inputAssetIds: [a, b] },
        book,
      ),
    );
  }
  // An asset the caller does not have: refused, or (interface) accepted and charged for the
  // caller's only.
  if (!run.wants("P6") || run.stopped) {
    return;
  }
  const unknown = {
    ...edit,
    modelId: "alpha-img2-official",
    inputAssetIds: [a, "asset_conformance_not_yours"],
    idempotencyKey: run.newKey(),
  };
  const price = priceOf(run, unknown, 1);
  const why = price === undefined ? "no multiplier" : run.whyNotCharge(price.total);
  if (why !== undefined || price === undefined) {
    run.skip("P6", `an asset the caller does not have: ${why}`);
    return;
  }
  const before = run.lastBalance;
  const answer = await send(run, unknown, price.total);
  if (!answer) {
    return;
  }
  const drop = before - run.lastBalance;
  const refusedRight = run.reference
    ? answer.status === 400 &&
      errorCode(answer) === "asset_not_found" &&
      field(field(answer.json, "error"), "param") === "inputAssetIds[1]"
    : isRefusal(answer);
  if (refusedRight && drop === 0) {
    run.pass("P6");
    return;
  }
  const total = field(field(answer.json, "billing"), "totalCreditCost");
  if (
    !run.reference &&
    answer.status >= 200 &&
    answer.status < 300 &&
    total === price.total &&
    drop === price.total
  ) {
    run.pass("P6");
    return;
  }
  if (answer.status < 200 || answer.status >= 300) {
    run.stop("a refused create charged (P6)");
  }
  const owed = run.reference
    ? "refused with 400 asset_not_found at inputAssetIds[1]"
    : "refused, or left uncharged";
  run.fail("P6", {
    message:
      `An asset the caller does not have is ${owed}; ` +
      `the server charged ${before - run.lastBalance}.`,
    expected: run.reference
      ? { status: 400, code: "asset_not_found", param: "inputAssetIds[1]" }
      : { refusedOrCharged: price.total },
    actual: {
      status: answer.status,
      code: errorCode(answer),
      totalCreditCost: total,
      balanceChange: -drop,
    },
    answer,
  });
}

/** S5: four creates at once with one key charge once and name one task. */
async function concurrent(run: Run): Promise<void> {
  if (!run.wants("S5")) {
    return;
  }
  const n = 4;
  const body = { ...BASE, idempotencyKey: run.newKey() };
  const price = priceOf(run, body, 0);
  const why = price === undefined ? "no multiplier" : run.whyNotCharge(price.total * n);
  if (why !== undefined || price === undefined) {
    run.skip("S5", `${n} creates at once with one key: ${why}`);
    return;
  }
  const before = run.lastBalance;
  const answers = await Promise.all(
    Array.from({ length: n }, () => run.send({ method: "POST", path: "/api/generations", body })),
  );
  const after = await run.balance();
  if (after === undefined) {
    return;
  }
  run.lastBalance = after;
  const accepted = answers.filter((a) => a.status >= 200 && a.status < 300);
  const tasks = new Set(accepted.map((a) => JSON.stringify(jobIds(a))));
  const drop = before - after;
  run.confirmed += drop;
  const refusedOk = answers.every(
    (a) => (a.status >= 200 && a.status < 300) || isRefusal(a) || a.status === 0,
  );
  if (drop === price.total && tasks.size === 1 && refusedOk) {
    run.pass("S5");
  } else {
    run.fail("S5", {
      message:
        `${n} creates at once with one key: charged ${drop} (once is ${price.total}), ` +
        `${tasks.size} distinct task(s) in ${accepted.length} acceptance(s).`,
      expected: { charged: price.total, tasks: 1 },
      actual: { charged: drop, tasks: tasks.size, statuses: answers.map((a) => a.status) },
      answer: answers[0],
    });
  }
}

/**
 * S4 (reference): a create above the balance is 402 and charges nothing; only when the balance is
 * low enough for one.
 */
async function tooFewCredits(run: Run): Promise<void> {
  if (!run.wants("S4") || run.stopped || run.multiplier === null) {
    return;
  }
  const balance = run.lastBalance;
  const per = roundBy(750, run.multiplier, "half-up");
  const count = per > 0 ? Math.floor(balance / per) + 1 : 5;
  if (count > 4) {
    run.skip(
      "S4",
      "too few credits: the balance is above the dearest request, so 402 cannot be shown",
    );
    return;
  }
  const body = {
    prompt: BASE.prompt,
    modelId: "alpha-img2-official",
    resolution: "4K",
    quality: "high",
    imageCount: count,
  };
  const answer = await run.send({ method: "POST", path: "/api/generations", body });
  const free = await run.expectFree("S4", answer);
  if (answer.status === 402 && errorCode(answer) === "insufficient_credits") {
    if (free) {
      run.pass("S4");
    }
  } else {
    if (answer.status >= 200 && answer.status < 300) {
      run.stop("a create above the balance was accepted (S4)");
    }
    run.fail("S4", {
      message:
        `A create of ${count * per} credits on a balance of ${balance} is refused with 402 ` +
        "insufficient_credits.",
      expected: { status: 402, code: "insufficient_credits" },
      actual: { status: answer.status, code: errorCode(answer) },
      answer,
    });
  }
}
