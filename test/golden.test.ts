import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  buildGolden,
  type Golden,
  JSON_PATH,
  MD_PATH,
  renderJson,
  renderMarkdown,
} from "../scripts/golden.js";
import {
  ORACLE_MODEL_IDS,
  ORACLE_QUALITIES,
  ORACLE_RESOLUTIONS,
  oraclePrice,
} from "./oracle/seed.js";

const committedJson = readFileSync(JSON_PATH, "utf8");
const committed = JSON.parse(committedJson) as Golden;

describe("the golden price table (npm run golden regenerates it)", () => {
  it("P1/P3: golden: the live catalog quotes exactly test/fixtures/prices.json (every model x resolution x quality x 0..14 references)", () => {
    const live = buildGolden();
    expect(live).toEqual(committed);
    expect(renderJson(live)).toBe(committedJson);
  });

  it("P1/P3: golden: docs/prices.md is current", () => {
    expect(renderMarkdown()).toBe(readFileSync(MD_PATH, "utf8"));
  });

  it("P1/P3/V6: golden: the committed fixture agrees with the hand-typed oracle, cell by cell", () => {
    expect(Object.keys(committed.prices).sort()).toEqual([...ORACLE_MODEL_IDS].sort());
    expect(committed.multiplier).toBe("1");
    let priced = 0;
    for (const modelId of ORACLE_MODEL_IDS) {
      for (const resolution of ORACLE_RESOLUTIONS) {
        for (const quality of ORACLE_QUALITIES) {
          const row = committed.prices[modelId]?.[resolution]?.[quality];
          const expected = Array.from({ length: 15 }, (_, refs) =>
            oraclePrice(modelId, resolution, quality, refs),
          );
          expect(row, `${modelId} ${resolution} ${quality}`).toEqual(
            expected.every((c) => c === null) ? null : expected,
          );
          priced += expected.filter((c) => c !== null).length;
        }
      }
    }
    // alpha-img2 1 cell x 15, quality models 3 x 9 x 15, beta family 3 x 3 x 15, gamma 3 x 2
    expect(priced).toBe(15 + 405 + 135 + 6);
  });
});
