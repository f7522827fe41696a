/** The rule book by id, as the conformance report names it, and the `rules` filter. */

/** Every rule id with its title, in the rule book's order. */
export const RULES: readonly (readonly [id: string, title: string])[] = [
  ["N1", "the body is a JSON object"],
  ["N2", "unknown fields are refused"],
  ["N3", "strings are trimmed, matched case-sensitively"],
  ["N4", "prompt: 1 to 12000 characters"],
  ["N5", "modelId: one of the models"],
  ["N6", "generationType: text-to-image or image-to-image"],
  ["N7", "aspectRatio: Auto or one of the 15 ratios"],
  ["N8", "resolution: 1K, 2K or 4K"],
  ["N9", "quality: low, medium or high"],
  ["N10", "background: auto, opaque or transparent"],
  ["N11", "imageCount: a whole number of at least 1"],
  ["N12", "inputAssetIds: strings, de-duplicated, at most 14"],
  ["N13", "idempotencyKey: 1 to 128 characters"],
  ["N14", "a wrong type is refused; null is not absent"],
  ["N15", "every issue is reported at once"],
  ["V1", "the model's aspect ratios"],
  ["V2", "the model's resolutions; alpha-img2 needs 1K"],
  ["V3", "the model's quality levels"],
  ["V4", "the model's backgrounds"],
  ["V5", "the model's most images"],
  ["V6", "the model's most references"],
  ["V7", "limits come from the model table"],
  ["V8", "output formats"],
  ["P1", "base price of every cell"],
  ["P2", "what cannot be priced quotes credits: null"],
  ["P3", "10 credits per reference, per image, on the three quality models"],
  ["P4", "multiplier applied, rounded half-up, exactly"],
  ["P5", "total = the sum of the rounded per-image amounts"],
  ["P6", "references de-duplicated, only authorized ones charged"],
  ["P7", "a quote equals the per-image charge"],
  ["P8", "prices over time"],
  ["S1", "every endpoint needs the API key"],
  ["S2", "a key reaches only its own user's assets"],
  ["S3", "the 202 body"],
  ["S4", "the charge is debited on acceptance, never below zero"],
  ["S5", "a replay with the same key charges nothing"],
  ["S6", "a failed job is refunded once"],
  ["S7", "nothing is charged retroactively"],
  ["S8", "a task stores its request"],
  ["S9", "GET /api/ping"],
  ["S10", "GET /api/query/credits"],
  ["S11", "POST /api/pricing/quote"],
  ["S12", "error bodies, statuses and the order of checks"],
  ["S13", "the ledger adds up"],
  ["S14", "several instances are one service"],
  ["S15", "bounded work, no secret echoed"],
  ["S16", "the database is called within a time bound"],
  ["S17", "test-double controls"],
];

const IDS = new Set(RULES.map(([id]) => id));

/**
 * The rule ids a `rules` filter selects: each entry is an id (`N2`) or a family (`P`).
 *
 * @param filter - Ids and families; absent or empty selects every rule.
 * @returns The selected ids.
 * @throws RangeError naming an entry that is neither an id nor a family.
 */
export function selectRules(filter: readonly string[] | undefined): Set<string> {
  if (filter === undefined || filter.length === 0) {
    return new Set(IDS);
  }
  const selected = new Set<string>();
  for (const raw of filter) {
    const entry = raw.trim().toUpperCase();
    if (IDS.has(entry)) {
      selected.add(entry);
    } else if (/^[NVPS]$/.test(entry)) {
      for (const id of IDS) {
        if (id.startsWith(entry) && /^\d+$/.test(id.slice(1))) {
          selected.add(id);
        }
      }
    } else {
      throw new RangeError(
        `"${raw}" is not a rule id (N1-N15, V1-V8, P1-P8, S1-S17) or a family (N, V, P, S).`,
      );
    }
  }
  return selected;
}
