/** The building blocks of request and quote-spec fields. */
import { describe, expect, it } from "vitest";
import { charLength } from "../../src/request/fields.js";

describe("charLength", () => {
  it("N4: charLength counts a pair once and every lone surrogate once, like [...s]", () => {
    const cases = [
      "",
      "a",
      "😀",
      "a😀b",
      "\ud800",
      "\ud800a",
      "a\ud800",
      "\udc00",
      "\udc00\ud800",
      "\ud800\ud800",
      "\udc00\udc00",
      "A\udc00",
      "\ud800\udc00",
      "\ud800\udfff",
      "\udbff\udc00",
      "\udbff\udfff",
      "\ud7ff\udc00",
      "\ud800\ue000",
      "\ud800\udbff",
      "\ue000\udc00",
    ];
    for (const s of cases) {
      expect(charLength(s), JSON.stringify(s)).toBe([...s].length);
    }
  });
});
