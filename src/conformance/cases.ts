/**
 * The requests that must be refused (N1-N15, V1-V6), each at the cheapest settings that exercise
 * its
 * rule, built from the catalog so that every model's limits are probed; and the seeded generator of
 * more of them.
 */
import { checkRequest } from "../index.js";
import { ASPECT_RATIOS, BACKGROUNDS, QUALITIES, RESOLUTIONS } from "../models/lists.js";
import { CATALOG } from "./oracle.js";

/** A request body the server must refuse, and the rule it breaks. */
export type RefusalCase = {
  rule: string;
  /** What the case probes, in a few words. */
  what: string;
  /** The body: a JSON value. */
  body: unknown;
  /** Checked in the reference profile only: the interface leaves this open. */
  referenceOnly?: boolean;
  /**
   * How many distinct assets of the caller the case needs (its references must be real to prove the
   * rule).
   */
  needsAssets?: number;
};

/** The cheapest valid body: one image of the cheapest cell. */
export const BASE = { prompt: "a conformance check", modelId: "alpha-img2", resolution: "1K" };

/** `count` asset ids: the caller's own when given, else made-up ones. */
function ids(assets: readonly string[], count: number): string[] {
  return Array.from({ length: count }, (_, i) => assets[i] ?? `asset_conformance_${i + 1}`);
}

/**
 * Every fixed refusal case.
 *
 * @param assets - The caller's asset ids (references that must be real to prove a limit).
 * @returns The cases, in rule order.
 */
export function refusalCases(assets: readonly string[]): RefusalCase[] {
  const cases: RefusalCase[] = [
    { rule: "N1", what: "an array", body: [BASE] },
    { rule: "N1", what: "a string", body: "a conformance check" },
    { rule: "N1", what: "a number", body: 1 },
    { rule: "N1", what: "null", body: null },
    { rule: "N2", what: "an unknown field", body: { ...BASE, colour: "red" } },
    { rule: "N2", what: "a client-reported cost", body: { ...BASE, cost: 0 } },
    { rule: "N2", what: "a client-reported total", body: { ...BASE, totalCreditCost: 1 } },
    { rule: "N3", what: "case: auto is not Auto", body: { ...BASE, aspectRatio: "auto" } },
    { rule: "N3", what: "case: 1k is not 1K", body: { ...BASE, resolution: "1k" } },
    { rule: "N3", what: "case: Beta2 is not beta2", body: { ...BASE, modelId: "Beta2" } },
    { rule: "N4", what: "no prompt", body: { modelId: "alpha-img2", resolution: "1K" } },
    { rule: "N4", what: "an empty prompt", body: { ...BASE, prompt: "" } },
    { rule: "N4", what: "a whitespace prompt", body: { ...BASE, prompt: " \t\n " } },
    { rule: "N4", what: "12001 characters", body: { ...BASE, prompt: "a".repeat(12_001) } },
    { rule: "N4", what: "12001 emoji", body: { ...BASE, prompt: "🦊".repeat(12_001) } },
    { rule: "N5", what: "an unknown model", body: { ...BASE, modelId: "no-such-model" } },
    { rule: "N6", what: "an unknown type", body: { ...BASE, generationType: "video" } },
    { rule: "N7", what: "an unknown ratio", body: { ...BASE, aspectRatio: "7:5" } },
    { rule: "N8", what: "8K", body: { ...BASE, resolution: "8K" } },
    { rule: "N9", what: "quality auto", body: { ...BASE, quality: "auto" } },
    {
      rule: "N9",
      what: "quality xhigh",
      body: { ...BASE, modelId: "alpha-img2-5-flare", resolution: "1K", quality: "xhigh" },
    },
    {
      rule: "N9",
      what: "quality max",
      body: { ...BASE, modelId: "alpha-img2-5-sunburst", resolution: "1K", quality: "max" },
    },
    { rule: "N10", what: "an unknown background", body: { ...BASE, background: "none" } },
    { rule: "N11", what: "0 images", body: { ...BASE, imageCount: 0 } },
    { rule: "N11", what: "-1 images", body: { ...BASE, imageCount: -1 } },
    { rule: "N11", what: "1.5 images", body: { ...BASE, imageCount: 1.5 } },
    { rule: "N11", what: 'the string "2"', body: { ...BASE, imageCount: "2" } },
    {
      rule: "N12",
      what: "a string for the list",
      body: { ...BASE, generationType: "image-to-image", inputAssetIds: "asset_1" },
    },
    {
      rule: "N12",
      what: "image-to-image without references",
      body: { ...BASE, generationType: "image-to-image" },
    },
    {
      rule: "N12",
      what: "image-to-image with an empty list",
      body: { ...BASE, generationType: "image-to-image", inputAssetIds: [] },
    },
    {
      rule: "N12",
      what: "an empty id",
      body: { ...BASE, generationType: "image-to-image", inputAssetIds: [...ids(assets, 1), "  "] },
    },
    {
      rule: "N12",
      what: "15 distinct references",
      body: {
        ...BASE,
        modelId: "alpha-img2-official",
        resolution: "1K",
        generationType: "image-to-image",
        inputAssetIds: ids(assets, 15),
      },
      needsAssets: 15,
    },
    {
      rule: "N12",
      what: "references on text-to-image",
      body: { ...BASE, inputAssetIds: ids(assets, 1) },
      referenceOnly: true,
    },
    {
      rule: "N13",
      what: "a 129-character key",
      body: { ...BASE, idempotencyKey: "k".repeat(129) },
    },
    {
      rule: "N13",
      what: "an empty key",
      body: { ...BASE, idempotencyKey: "   " },
      referenceOnly: true,
    },
    { rule: "N14", what: "a number for prompt", body: { ...BASE, prompt: 42 } },
    { rule: "N14", what: "a number for modelId", body: { ...BASE, modelId: 7 } },
    { rule: "N14", what: "an object for quality", body: { ...BASE, quality: { level: "low" } } },
    {
      rule: "N14",
      what: "null for quality",
      body: { ...BASE, quality: null },
      referenceOnly: true,
    },
    { rule: "N14", what: "null for prompt", body: { ...BASE, prompt: null } },
    {
      rule: "N15",
      what: "three issues at once",
      body: { prompt: "", modelId: "alpha-img2", resolution: "4K", imageCount: 20 },
      referenceOnly: true,
    },
  ];
  for (const model of Object.values(CATALOG.models)) {
    const body = { prompt: BASE.prompt, modelId: model.id, resolution: model.resolutions[0] };
    for (const ratio of ASPECT_RATIOS.filter((r) => !model.aspectRatios.includes(r))) {
      cases.push({
        rule: "V1",
        what: `${ratio} on ${model.id}`,
        body: { ...body, aspectRatio: ratio },
      });
    }
    for (const resolution of RESOLUTIONS.filter((r) => !model.resolutions.includes(r))) {
      cases.push({
        rule: "V2",
        what: `${resolution} on ${model.id}`,
        body: { ...body, resolution },
      });
    }
    if (model.defaultResolution === null) {
      const { resolution: _omitted, ...rest } = body;
      cases.push({ rule: "V2", what: `no resolution on ${model.id}`, body: rest });
    }
    for (const quality of QUALITIES.filter((q) => !model.qualities.includes(q))) {
      cases.push({
        rule: "V3",
        what: `${quality} on ${model.id}`,
        body: { ...body, quality },
        referenceOnly: true,
      });
    }
    for (const background of BACKGROUNDS.filter((b) => !model.backgrounds.includes(b))) {
      cases.push({
        rule: "V4",
        what: `${background} on ${model.id}`,
        body: { ...body, background },
      });
    }
    cases.push({
      rule: "V5",
      what: `${model.maxImageCount + 1} images on ${model.id}`,
      body: { ...body, imageCount: model.maxImageCount + 1 },
    });
    if (model.maxReferenceImages < 14) {
      cases.push({
        rule: "V6",
        what: `${model.maxReferenceImages + 1} references on ${model.id}`,
        body: {
          ...body,
          generationType: "image-to-image",
          inputAssetIds: ids(assets, model.maxReferenceImages + 1),
        },
        needsAssets: model.maxReferenceImages + 1,
      });
    }
  }
  return cases;
}

/** The issues the oracle finds in a body, as `path code` pairs, sorted. */
export function oracleIssues(body: unknown): string[] {
  const checked = checkRequest(body);
  return checked.success ? [] : checked.issues.map((i) => `${i.path} ${i.code}`).sort();
}

/** A seeded generator of 32-bit numbers (mulberry32): the same seed, the same cases. */
export function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** One way to break a valid body, and the rule it breaks. */
type Mutation = {
  rule: string;
  path: string;
  apply: (body: Record<string, unknown>, pick: <T>(list: readonly T[]) => T) => void;
};

const MUTATIONS: readonly Mutation[] = [
  {
    rule: "N2",
    path: "extra",
    apply: (b) => {
      b.extra = true;
    },
  },
  {
    rule: "N4",
    path: "prompt",
    apply: (b, pick) => {
      b.prompt = pick(["", "   ", "x".repeat(12_001)]);
    },
  },
  {
    rule: "N5",
    path: "modelId",
    apply: (b, pick) => {
      b.modelId = pick(["gamma", "beta3", "ALPHA-IMG2"]);
    },
  },
  {
    rule: "N6",
    path: "generationType",
    apply: (b, pick) => {
      b.generationType = pick(["edit", "Text-To-Image"]);
    },
  },
  {
    rule: "N7",
    path: "aspectRatio",
    apply: (b, pick) => {
      b.aspectRatio = pick(["1:4", "auto", "16:10"]);
    },
  },
  {
    rule: "N8",
    path: "resolution",
    apply: (b, pick) => {
      b.resolution = pick(["8K", "2k", "HD"]);
    },
  },
  {
    rule: "N9",
    path: "quality",
    apply: (b, pick) => {
      b.quality = pick(["auto", "xhigh", "max", "Low"]);
    },
  },
  {
    rule: "N10",
    path: "background",
    apply: (b, pick) => {
      b.background = pick(["white", "Auto"]);
    },
  },
  {
    rule: "N11",
    path: "imageCount",
    apply: (b, pick) => {
      b.imageCount = pick([0, -2, 2.5, "1"]);
    },
  },
  {
    rule: "N13",
    path: "idempotencyKey",
    apply: (b) => {
      b.idempotencyKey = "z".repeat(129);
    },
  },
  {
    rule: "N14",
    path: "prompt",
    apply: (b, pick) => {
      b.prompt = pick([1, true, ["a"], { text: "a" }]);
    },
  },
  {
    rule: "V5",
    path: "imageCount",
    apply: (b) => {
      const model = CATALOG.models[String(b.modelId)];
      b.imageCount = (model?.maxImageCount ?? 4) + 1;
    },
  },
];

/** A generated refusal case: the body, its rule, and the path whose issue shows it. */
export type GeneratedCase = RefusalCase & { path: string };

/**
 * Generates `runs` refusal cases from a seed: a random valid body of a random model, with random
 * optional fields, broken by one random mutation. Each is refused by the oracle.
 *
 * @param seed - Where the generator starts: the same one, the same cases.
 * @param runs - How many.
 * @returns The cases.
 */
export function generatedCases(seed: number, runs: number): GeneratedCase[] {
  const next = generator(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const models = Object.values(CATALOG.models);
  const cases: GeneratedCase[] = [];
  for (let attempt = 0; cases.length < runs && attempt < runs * 10; attempt += 1) {
    const model = pick(models);
    const body: Record<string, unknown> = {
      prompt: pick(["a fox", "  a red fox  ", "🦊 in snow"]),
      modelId: model.id,
    };
    if (model.defaultResolution === null || next() < 0.5) {
      body.resolution = pick(model.resolutions);
    }
    if (next() < 0.5) {
      body.aspectRatio = pick(model.aspectRatios);
    }
    if (next() < 0.4) {
      body.quality = pick(model.qualities);
    }
    if (next() < 0.3) {
      body.background = pick(model.backgrounds);
    }
    if (next() < 0.4) {
      body.imageCount = 1 + Math.floor(next() * model.maxImageCount);
    }
    if (next() < 0.3) {
      body.idempotencyKey = `generated-${Math.floor(next() * 1e9)}`;
    }
    const mutation = pick(MUTATIONS);
    mutation.apply(body, pick);
    const issues = oracleIssues(body);
    if (issues.some((issue) => issue.startsWith(`${mutation.path} `))) {
      cases.push({
        rule: mutation.rule,
        what: `generated case ${cases.length + 1} (seed ${seed})`,
        body,
        path: mutation.path,
      });
    }
  }
  return cases;
}

/**
 * Shrinks a body to the smallest that the oracle still refuses with the same issue at `path` and
 * no other (offline, on the core): drops each other field, then trims padded strings. A limit of a
 * model (a V rule) keeps its `modelId`: under another model it would be another limit.
 *
 * @param body - A body the oracle refuses with an issue at `path`.
 * @param path - The path of the issue to keep.
 * @param keep - Fields never dropped.
 * @returns The smallest body found.
 */
export function shrink(
  body: Record<string, unknown>,
  path: string,
  keep: readonly string[] = [],
): Record<string, unknown> {
  const target = oracleIssues(body)
    .filter((issue) => issue.startsWith(`${path} `))
    .join("\n");
  const shows = (candidate: Record<string, unknown>) =>
    oracleIssues(candidate).join("\n") === target;
  let current = { ...body };
  let changed = true;
  while (changed) {
    changed = false;
    for (const key of Object.keys(current)) {
      if (key === path || keep.includes(key)) {
        continue;
      }
      const { [key]: _dropped, ...rest } = current;
      if (shows(rest)) {
        current = rest;
        changed = true;
      }
    }
    for (const [key, value] of Object.entries(current)) {
      if (key !== path && typeof value === "string" && value !== value.trim()) {
        const candidate = { ...current, [key]: value.trim() };
        if (shows(candidate)) {
          current = candidate;
          changed = true;
        }
      }
    }
  }
  return current;
}
