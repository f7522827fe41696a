/**
 * In-process benchmarks of the core, each case beside its hand-written baseline, interleaved in
 * rounds (the order alternates) so that drift in a shared machine hits both alike.
 */
import { isDeepStrictEqual } from "node:util";
import { Bench } from "tinybench";
import { computeCharge } from "../src/pricing/computeCharge.js";
import {
  multiplyAndRound,
  multiplyAndRoundExact,
  parseMultiplier,
  readMultiplier,
} from "../src/pricing/multiplier.js";
import { quote } from "../src/pricing/quote.js";
import { BOUNDS } from "../src/request/bounds.js";
import { checkRequest } from "../src/request/checkRequest.js";
import { normalizeRequest } from "../src/request/normalizeRequest.js";
import { validateForModel } from "../src/request/validateForModel.js";
import type { GenerationRequest, Result } from "../src/types.js";
import { handNormalize } from "./baseline/normalize.js";
import { type Fraction, integerCharge, integerQuote } from "./baseline/price.js";
import { median } from "./stats.js";

/** A typical valid body: every field named, two references, a client key. */
export const VALID_BODY = {
  prompt: "  a watercolor fox in the snow at dawn, soft light, wide shot  ",
  modelId: "alpha-img2-5-flare",
  generationType: "image-to-image",
  aspectRatio: "16:9",
  resolution: "2K",
  quality: "medium",
  background: "auto",
  imageCount: 2,
  inputAssetIds: ["ast_5f1c2a9e0b7d4c31", " ast_77aa01c3e9f04b12", "ast_5f1c2a9e0b7d4c31"],
  idempotencyKey: "order-2026-11-20-000123",
};

/** An invalid body with four problems: an unknown field, a blank prompt, a bad quality, 1.5 images. */
export const INVALID_BODY = {
  prompt: "   ",
  modelId: "beta2",
  quality: "ultra",
  imageCount: 1.5,
  cost: 10,
};

const library = (body: unknown): Result<GenerationRequest> => {
  const normalized = normalizeRequest(body);
  return normalized.success ? validateForModel(normalized.output) : normalized;
};

const issueKey = (r: Result<GenerationRequest>) =>
  r.success ? r : [...r.issues].sort((a, b) => (a.path + a.code < b.path + b.code ? -1 : 1));

/** Checks that each baseline does the same work (equal results) before anything is timed. */
function checkBaselines(): void {
  for (const body of [VALID_BODY, INVALID_BODY]) {
    const a = library(body);
    const b = handNormalize(body);
    if (!isDeepStrictEqual(issueKey(a), issueKey(b))) {
      throw new Error(`baseline normalizer disagrees:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
    }
  }
  if (!INVALID_BODY || (library(INVALID_BODY) as { issues: unknown[] }).issues.length !== 4) {
    throw new Error("the invalid body must have exactly four issues");
  }
  for (const [m, f] of [
    [undefined, ONE],
    ["1.15", M115],
  ] as const) {
    const q = quote(SPEC, m === undefined ? undefined : { account: { multiplier: m } });
    if (
      q.credits !==
      integerQuote(SPEC.modelId, SPEC.resolution, SPEC.quality, SPEC.referenceImageCount, f)
    ) {
      throw new Error("integer baseline disagrees with quote");
    }
  }
  const charge = computeCharge(CHARGE_REQUEST, { account: { multiplier: "1.15" } });
  const base = integerCharge("alpha-img2-official", "2K", "medium", 1, 3, M115);
  if (charge.totalCreditCost !== base?.totalCreditCost) {
    throw new Error("integer baseline disagrees with computeCharge");
  }
}

const SPEC = {
  kind: "image",
  modelId: "alpha-img2-official",
  resolution: "2K",
  quality: "medium",
  referenceImageCount: 1,
} as const;
const ONE: Fraction = { num: 1, den: 1 };
const M115: Fraction = { num: 115, den: 100 };
const CHARGE_REQUEST: GenerationRequest = {
  prompt: "a watercolor fox",
  modelId: "alpha-img2-official",
  generationType: "image-to-image",
  aspectRatio: "9:16",
  resolution: "2K",
  quality: "medium",
  background: "auto",
  imageCount: 3,
  inputAssetIds: ["ast_1"],
};

/** One case and its baseline, measured side by side. */
export type PairResult = {
  name: string;
  baseline: string;
  /** Median ops/s of the case and of the baseline over the rounds. */
  ops: number;
  baselineOps: number;
  /** Median over rounds of (case ops/s / baseline ops/s) in the same round. */
  ratio: number;
  rounds: number;
};

let sink: unknown;
/** Keeps results alive so the JIT cannot drop the work. */
export const consumed = () => sink;

const BATCH = 64;

const MiB = 1024 * 1024;

/** JSON text of at most 1 MiB: `head`, then as many `item(i)` joined by commas as fit, then `tail`. */
function fill(head: string, item: (i: number) => string, tail: string): string {
  const parts: string[] = [];
  let size = head.length + tail.length;
  for (let i = 0; ; i++) {
    const next = item(i);
    if (size + next.length + 1 > MiB) {
      break;
    }
    parts.push(next);
    size += next.length + 1;
  }
  return head + parts.join(",") + tail;
}

/**
 * A valid body of 1 MiB: the longest prompt and 14 distinct references of about 74 KiB each (asset
 * ids have no length limit), the baseline of the hostile bodies below.
 */
export const VALID_MIB = JSON.stringify({
  prompt: "a".repeat(12_000),
  modelId: "alpha-img2-official",
  generationType: "image-to-image",
  inputAssetIds: Array.from(
    { length: 14 },
    (_, i) => `ast_${i}_${"x".repeat(Math.floor((MiB - 13_000) / 14) - 20)}`,
  ),
});

/** Bodies of 1 MiB made to cost as much as possible (S15), as JSON text. */
export const HOSTILE_MIB: Record<string, string> = {
  "500k bad references": fill(
    '{"prompt":"x","generationType":"image-to-image","inputAssetIds":[',
    () => "0",
    "]}",
  ),
  [`${BOUNDS.maxReferenceEntries} bad references (all read)`]: JSON.stringify({
    prompt: "x",
    generationType: "image-to-image",
    inputAssetIds: Array(BOUNDS.maxReferenceEntries).fill(null),
    idempotencyKey: "k".repeat(MiB - 6_000),
  }),
  "100k unknown fields": fill('{"prompt":"x",', (i) => `"k${i}":0`, "}"),
  "one 1 MiB unknown field name": JSON.stringify({ prompt: "x", ["k".repeat(MiB - 40)]: 1 }),
  "a 1 MiB prompt": JSON.stringify({ prompt: "p".repeat(MiB - 20) }),
  "a 1 MiB aspect ratio": JSON.stringify({ prompt: "x", aspectRatio: "r".repeat(MiB - 40) }),
  "a prompt nested 500k arrays deep": `{"prompt":${"[".repeat(MiB / 2 - 10)}${"]".repeat(MiB / 2 - 10)}}`,
};

/** What a server does with a body: parse it, then check it. */
const parseAndCheck = (text: string) => checkRequest(JSON.parse(text));

async function pair(
  name: string,
  baseline: string,
  fn: () => unknown,
  base: () => unknown,
  rounds: number,
  time: number,
  calls = BATCH,
): Promise<PairResult> {
  const batch = (f: () => unknown) => () => {
    for (let i = 0; i < calls; i++) {
      sink = f();
    }
  };
  const a: number[] = [];
  const b: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const bench = new Bench({
      time,
      warmupTime: Math.min(200, time),
      throws: true,
      iterations: 3,
      warmupIterations: 2,
    });
    const tasks = [
      ["case", batch(fn)],
      ["baseline", batch(base)],
    ] as const;
    for (const [label, f] of round % 2 === 0 ? tasks : [...tasks].reverse()) {
      bench.add(label, f);
    }
    await bench.run();
    const ops = (label: string) => {
      const result = bench.getTask(label)?.result;
      if (result?.state !== "completed") {
        throw new Error(`${name}: ${label} did not complete`);
      }
      return result.throughput.p50 * calls;
    };
    a.push(ops("case"));
    b.push(ops("baseline"));
    ratios.push(ops("case") / ops("baseline"));
  }
  return { name, baseline, ops: median(a), baselineOps: median(b), ratio: median(ratios), rounds };
}

/** Runs every core case; `rounds` x `time` ms per case and per baseline. */
export async function runCore(rounds: number, time: number): Promise<PairResult[]> {
  checkBaselines();
  const out: PairResult[] = [];
  const hand = "hand-written normalizer";
  out.push(
    await pair(
      "normalize + validate, valid body",
      hand,
      () => library(VALID_BODY),
      () => handNormalize(VALID_BODY),
      rounds,
      time,
    ),
  );
  out.push(
    await pair(
      "normalize + validate, invalid body (4 issues)",
      hand,
      () => library(INVALID_BODY),
      () => handNormalize(INVALID_BODY),
      rounds,
      time,
    ),
  );
  const { modelId, resolution, quality, referenceImageCount } = SPEC;
  const integer = "integer formula";
  out.push(
    await pair(
      "quote, multiplier 1",
      integer,
      () => quote(SPEC),
      () => integerQuote(modelId, resolution, quality, referenceImageCount, ONE),
      rounds,
      time,
    ),
  );
  const account = { multiplier: "1.15" };
  out.push(
    await pair(
      'quote, multiplier "1.15"',
      integer,
      () => quote(SPEC, { account }),
      () => integerQuote(modelId, resolution, quality, referenceImageCount, M115),
      rounds,
      time,
    ),
  );
  // The account's multiplier read once (as a backend keeps it per account), then reused.
  const m115 = parseMultiplier("1.15");
  if (!m115) {
    throw new Error("1.15 is a valid multiplier");
  }
  const parsedAccount = { multiplier: m115 };
  out.push(
    await pair(
      'quote, multiplier "1.15" read once',
      integer,
      () => quote(SPEC, { account: parsedAccount }),
      () => integerQuote(modelId, resolution, quality, referenceImageCount, M115),
      rounds,
      time,
    ),
  );
  out.push(
    await pair(
      'computeCharge, 3 images, "1.15"',
      integer,
      () => computeCharge(CHARGE_REQUEST, { account }),
      () => integerCharge(modelId, resolution, quality, 1, 3, M115),
      rounds,
      time,
    ),
  );
  out.push(
    await pair(
      "checkRequest, valid body",
      hand,
      () => checkRequest(VALID_BODY),
      () => handNormalize(VALID_BODY),
      rounds,
      time,
    ),
  );

  // The memo of read multipliers and the double-precision path of multiplyAndRound, each beside
  // the work it saves: they are kept only while they pay.
  out.push(
    await pair(
      'parseMultiplier("1.15"), memo',
      "readMultiplier, no memo",
      () => parseMultiplier("1.15"),
      () => readMultiplier("1.15"),
      rounds,
      time,
    ),
  );
  const m = parseMultiplier("1.15") as NonNullable<ReturnType<typeof parseMultiplier>>;
  let credits = 0;
  out.push(
    await pair(
      "multiplyAndRound, double path",
      "multiplyAndRoundExact, bigint",
      () => multiplyAndRound(180 + (credits++ & 255), m),
      () => multiplyAndRoundExact(180 + (credits++ & 255), m),
      rounds,
      time,
    ),
  );

  // Hostile bodies of 1 MiB against a valid one of 1 MiB, parsed and checked as a server would (S15).
  const valid = "parse + checkRequest, valid 1 MiB body";
  if (!checkRequest(JSON.parse(VALID_MIB)).success) {
    throw new Error("the valid 1 MiB body must be valid");
  }
  for (const [label, text] of Object.entries(HOSTILE_MIB)) {
    if (text.length > MiB) {
      throw new Error(`${label} is over 1 MiB`);
    }
    out.push(
      await pair(
        `parse + checkRequest, ${label}`,
        valid,
        () => parseAndCheck(text),
        () => parseAndCheck(VALID_MIB),
        rounds,
        time,
        1,
      ),
    );
  }
  return out;
}
