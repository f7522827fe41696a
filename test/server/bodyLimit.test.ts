/**
 * The default body limit (S12, S15): what the largest valid generation request can need, well
 * below a mebibyte, so that no body costs more to read and parse than a valid request can.
 */
import { describe, expect, it } from "vitest";
import { BOUNDS } from "../../src/request/bounds.js";
import { DEFAULT_MAX_BODY_BYTES, largestValidRequestBytes } from "../../src/server/body.js";
import { BASE, errorOf, makeServer } from "./helpers.js";

// One key per test: on PostgreSQL the tests of a file share one schema.
const KEY = "ck_test_body_limit_key_0000000000";
const OTHER_KEY = "ck_test_body_limit_key_1111111111";

/** A JSON string with every UTF-16 unit escaped as `\uXXXX`: the longest way to write it. */
function escaped(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    out += `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** `n` astral code points (a fox), each 12 bytes once escaped. */
const astral = (n: number) => "\u{1F98A}".repeat(n);

describe("the default body limit (S12, S15)", () => {
  it("S12: the default limit is below 1 MiB and covers what the largest valid request can need", () => {
    expect(DEFAULT_MAX_BODY_BYTES).toBeLessThan(1024 * 1024);
    expect(DEFAULT_MAX_BODY_BYTES).toBeLessThan((1024 * 1024) / 3); // as DEFAULT_MAX_BODY_BYTES says of itself
    expect(DEFAULT_MAX_BODY_BYTES).toBeGreaterThanOrEqual(largestValidRequestBytes());
    expect(DEFAULT_MAX_BODY_BYTES).toBe(304 * 1024); // the figure the docs state
  });

  it("S12: the largest valid request, every character escaped, fits the default limit and is accepted", async () => {
    // 13 distinct asset ids of 128 astral code points, and one short id repeated to fill the 1,000
    // entries a list may hold: 14 distinct references, the most any model takes.
    const longIds = Array.from(
      { length: 13 },
      (_, i) => `${String.fromCharCode(0x41 + i)}${astral(127)}`,
    );
    const shortId = "ast_0123456789abcdef";
    const server = await makeServer({
      fixtures: {
        users: [
          { id: "usr_big", credits: 1_000_000, apiKeys: [KEY], assets: [...longIds, shortId] },
        ],
      },
    });
    const ids = [
      ...longIds,
      ...Array.from({ length: BOUNDS.maxReferenceEntries - longIds.length }, () => shortId),
    ];
    const fields: [string, string][] = [
      ["prompt", escaped(astral(12_000))],
      ["modelId", escaped("alpha-img2-5-sunburst")],
      ["generationType", escaped("image-to-image")],
      ["aspectRatio", escaped("21:9")],
      ["resolution", escaped("4K")],
      ["quality", escaped("medium")],
      ["background", escaped("transparent")],
      ["imageCount", "4"],
      ["inputAssetIds", `[${ids.map(escaped).join(",")}]`],
      ["idempotencyKey", escaped(astral(128))],
    ];
    const body = `{${fields.map(([name, value]) => `"${name}":${value}`).join(",")}}`;
    const bytes = new TextEncoder().encode(body).byteLength;
    expect(bytes).toBeGreaterThan(180_000);
    expect(bytes).toBeLessThanOrEqual(largestValidRequestBytes());
    expect(bytes).toBeLessThanOrEqual(DEFAULT_MAX_BODY_BYTES);

    const res = await server.fetch(
      new Request(`${BASE}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
        body,
      }),
    );
    expect(res.status, await res.clone().text()).toBe(202);
  }, 30_000);

  it("S12: one byte over the default limit is 413 payload_too_large naming the limit", async () => {
    const server = await makeServer({
      fixtures: { users: [{ credits: 10, apiKeys: [OTHER_KEY] }] },
    });
    const res = await server.fetch(
      new Request(`${BASE}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${OTHER_KEY}`, "content-type": "application/json" },
        body: `"${"x".repeat(DEFAULT_MAX_BODY_BYTES - 1)}"`,
      }),
    );
    expect(res.status).toBe(413);
    const error = await errorOf(res);
    expect(error.code).toBe("payload_too_large");
    expect(error.message).toContain(String(DEFAULT_MAX_BODY_BYTES));
  });
});
