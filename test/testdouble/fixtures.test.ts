import { describe, expect, it } from "vitest";
import { checkFixtures, duplicateKeyIssues, FixturesError } from "../../src/server/fixtures.js";

let next = 0;
const newUserId = () => `usr_generated${next++}`;

const ALICE_KEY = "ck_test_alice_000000000000001";
const ALICE_LIVE = "ck_live_alice_000000000000002";

describe("checkFixtures", () => {
  it("S2: accepts users with verbatim keys (mode from the prefix), assets and exact multipliers", () => {
    const result = checkFixtures(
      {
        users: [
          {
            id: "usr_alice",
            credits: 1000,
            multiplier: "1.150",
            apiKeys: [ALICE_KEY, { key: ALICE_LIVE }],
            assets: ["ast_a", "ast_b"],
          },
          { credits: 0 },
        ],
      },
      newUserId,
    );
    expect(result.success).toBe(true);
    if (!result.success) {
      return;
    }
    const [alice, other] = result.output.users;
    expect(alice).toEqual({
      id: "usr_alice",
      credits: 1000,
      multiplier: "1.15",
      apiKeys: [
        { key: ALICE_KEY, mode: "test" },
        { key: ALICE_LIVE, mode: "live" },
      ],
      assets: ["ast_a", "ast_b"],
    });
    expect(other?.id).toMatch(/^usr_generated\d+$/);
    expect(other?.multiplier).toBe("1");
    expect(other?.apiKeys).toEqual([]);
  });

  it("S1: refuses the whole file and names every problem at its path", () => {
    const result = checkFixtures(
      {
        users: [
          {
            id: "usr_a",
            credits: -1,
            multiplier: "abc",
            apiKeys: ["ck_test_short", "sk_test_0000000000000000"],
            assets: [" x", ""],
          },
          {
            id: "usr_a",
            credits: 1.5,
            apiKeys: [ALICE_KEY, ALICE_KEY],
            assets: ["dup", "dup"],
            extra: true,
          },
          { id: "alice", credits: 2 ** 53 },
        ],
        more: 1,
      },
      newUserId,
    );
    expect(result.success).toBe(false);
    if (result.success) {
      return;
    }
    expect(result.issues.map((i) => `${i.path} ${i.code}`).sort()).toEqual(
      [
        "more unknown_field",
        "users[0].credits invalid_credits",
        "users[0].multiplier invalid_multiplier",
        "users[0].apiKeys[0] invalid_api_key",
        "users[0].apiKeys[1] invalid_api_key",
        "users[0].assets[0] invalid_asset_id",
        "users[0].assets[1] invalid_asset_id",
        "users[1].id duplicate",
        "users[1].credits invalid_credits",
        "users[1].apiKeys[1] duplicate",
        "users[1].assets[1] duplicate",
        "users[1].extra unknown_field",
        "users[2].id invalid_id",
        "users[2].credits invalid_credits",
      ].sort(),
    );
  });

  it("S1: a key given under two users is refused, and no message echoes a key", () => {
    const result = checkFixtures(
      {
        users: [
          { credits: 1, apiKeys: [ALICE_KEY] },
          { credits: 1, apiKeys: [ALICE_KEY] },
        ],
      },
      newUserId,
    );
    expect(result.success).toBe(false);
    if (result.success) {
      return;
    }
    expect(result.issues).toEqual([
      {
        path: "users[1].apiKeys[0]",
        code: "duplicate",
        message: "This API key is also given at users[0].apiKeys[0].",
      },
    ]);
    const bad = checkFixtures(
      { users: [{ credits: 1, apiKeys: ["ck_test_tiny"], assets: ["ck_test_0000000000000000"] }] },
      newUserId,
    );
    expect(JSON.stringify(bad)).not.toContain("ck_test_tiny");
    expect(JSON.stringify(bad)).not.toContain("0000000000000000");
  });

  it("S1: anything but an object of users is one issue at the root or at users", () => {
    for (const input of [null, [], "x", 1]) {
      const result = checkFixtures(input, newUserId);
      expect(result).toEqual({
        success: false,
        issues: [expect.objectContaining({ path: "", code: "invalid_type" })],
      });
    }
    expect(checkFixtures({ users: {} }, newUserId)).toEqual({
      success: false,
      issues: [expect.objectContaining({ path: "users", code: "invalid_type" })],
    });
  });

  it("S15: a huge fixture is bounded: problems are named, not one per item past the cap", () => {
    const result = checkFixtures(
      { users: [{ credits: 1, assets: Array.from({ length: 20_000 }, () => 0) }] },
      newUserId,
    );
    expect(result.success).toBe(false);
    if (result.success) {
      return;
    }
    expect(result.issues[0]).toMatchObject({ path: "users[0].assets", code: "too_many" });
    expect(result.issues.length).toBe(101);
    expect(result.issues[100]).toEqual({
      path: "",
      code: "too_many_issues",
      message: "9901 more problems are not listed; fix these first.",
    });
  });

  it("FixturesError's message lists the first problems and counts the rest", () => {
    const issues = Array.from({ length: 12 }, (_, i) => ({
      path: `users[${i}]`,
      code: "invalid_type",
      message: "bad.",
    }));
    const error = new FixturesError(issues);
    expect(error.message).toMatch(
      /^Fixtures refused, nothing loaded: users\[0\]: bad; users\[1\]: bad; /,
    );
    expect(error.message).toContain("users[9]: bad; and 2 more.");
    expect(error.message).not.toContain("users[10]");
  });
});

describe("asset ids every store keeps as given", () => {
  it("S1: an asset id with U+0000, another control character or a lone surrogate is refused, naming what is allowed", () => {
    const odd = ["a\u0000b", "a\tb", "a\u007fb", "a\u0085b", "c\ud800", "c\udc00d"];
    const result = checkFixtures({ users: [{ credits: 1, assets: odd }] }, newUserId);
    expect(result.success).toBe(false);
    if (result.success) {
      return;
    }
    expect(result.issues.map((i) => `${i.path} ${i.code}`)).toEqual(
      odd.map((_, i) => `users[0].assets[${i}] invalid_asset_id`),
    );
    expect(result.issues[0]?.message).toBe(
      'An asset id is 1 to 128 characters of well-formed Unicode with no control character (U+0000 to U+001F, U+007F to U+009F) and no leading or trailing space; got "a\\u0000b".',
    );
  });

  it("S1: two asset ids that differ only in a lone surrogate are both refused (a database would store both as U+FFFD)", () => {
    const result = checkFixtures(
      { users: [{ credits: 1, assets: ["c\ud800", "c\ud801"] }] },
      newUserId,
    );
    expect(result.success ? [] : result.issues.map((i) => i.code)).toEqual([
      "invalid_asset_id",
      "invalid_asset_id",
    ]);
  });

  it("S2: spaces inside, accents, emoji and surrogate pairs are still asset ids", () => {
    const fine = ["photo 1.png", "café", "🎨 palette", "a\u00a0b", "x".repeat(128)];
    const result = checkFixtures({ users: [{ credits: 1, assets: fine }] }, newUserId);
    expect(result.success && result.output.users[0]?.assets).toEqual(fine);
  });
});

describe("duplicateKeyIssues", () => {
  it("S1: finds a key given twice in any object, at its path, however it is escaped; none in a clean file", () => {
    const text =
      '{"$schema":"s","users":[{"credits":1,"apiKeys":[{"key":"k","key":"k"}]},{"credits":2,"c\\u0072edits":3,"assets":["{\\"a\\":1,\\"a\\":2}"]}],"users":[]}';
    expect(() => JSON.parse(text)).not.toThrow();
    expect(duplicateKeyIssues(text).map((i) => [i.path, i.code])).toEqual([
      ["users[0].apiKeys[0].key", "duplicate_key"],
      ["users[1].credits", "duplicate_key"],
      ["users", "duplicate_key"],
    ]);
    const clean = JSON.stringify({
      users: [
        { id: "usr_a", credits: 1, apiKeys: [{ key: "k" }], assets: ["x", "x"] },
        { credits: 1 },
      ],
    });
    expect(duplicateKeyIssues(clean)).toEqual([]);
    expect(duplicateKeyIssues('{"a":{"b":1},"c":{"b":2}}')).toEqual([]);
    expect(duplicateKeyIssues('{"a b":[1,{"x":1,"x":2}]}')[0]?.path).toBe('"a b"[1].x');
  });
});

describe("the fixtures JSON Schema and example", () => {
  it("S2: the documented example is valid for checkFixtures and for the JSON Schema, and a bad one for both", async () => {
    const { readFileSync } = await import("node:fs");
    const { Ajv2020 } = await import("ajv/dist/2020.js");
    const schema = JSON.parse(readFileSync("data/fixtures.schema.json", "utf8"));
    const example = JSON.parse(readFileSync("examples/fixtures.json", "utf8"));
    const validate = new Ajv2020({ allErrors: true }).compile(schema);
    expect(validate(example)).toBe(true);
    expect(checkFixtures(example, newUserId).success).toBe(true);
    const bad = { users: [{ credits: -1, apiKeys: ["ck_test_short"], assets: [""] }], extra: 1 };
    expect(validate(bad)).toBe(false);
    expect(checkFixtures(bad, newUserId).success).toBe(false);
  });
});
