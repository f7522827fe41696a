/**
 * The multiplier's length on the server's side (P4): the admin API, `admin.createUser`,
 * `admin.setPriceMultiplier` and fixtures refuse a multiplier of more than 32 characters (as
 * written, or as a plain decimal) with `invalid_multiplier` naming the field and the bound, and
 * change nothing.
 */
import { describe, expect, it } from "vitest";
import { MAX_MULTIPLIER_CHARS } from "../../src/pricing/multiplier.js";
import { checkFixtures } from "../../src/server/fixtures.js";
import { createReferenceServer, FixturesError } from "../../src/server/index.js";
import { ledgerBalance } from "../support/ledger.js";
import { adminCodeOf, BASE, errorOf, makeServer } from "./helpers.js";

const TOKEN = "admin-token-for-multiplier-tests";
/** 32 characters: the longest multiplier. */
const LONGEST = `1.${"0".repeat(29)}1`;
/** 33 characters, and the probe's 300,003. */
const TOO_LONG = [
  `1.${"0".repeat(30)}1`,
  `1.${"0".repeat(300_001)}`,
  1e-31,
  `  ${"0".repeat(33)}  `,
];

describe("the multiplier's length on the server (P4)", () => {
  it("P4: the admin API refuses a multiplier longer than 32 characters with 400 naming multiplier and the bound", async () => {
    const server = await makeServer({ adminToken: TOKEN });
    const { userId } = await server.admin.createUser({ credits: 10, multiplier: LONGEST });
    expect((await server.admin.user(userId)).multiplier).toBe(LONGEST);
    const call = (method: string, path: string, body: unknown) =>
      server.fetch(
        new Request(BASE + path, {
          method,
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
    for (const multiplier of TOO_LONG) {
      for (const [method, path, body] of [
        ["POST", "/admin/users", { credits: 10, multiplier }],
        ["PUT", `/admin/users/${userId}/multiplier`, { multiplier }],
      ] as const) {
        const res = await call(method, path, body);
        expect(res.status, `${method} ${path}`).toBe(400);
        const error = await errorOf(res);
        expect(error).toMatchObject({ code: "invalid_request", param: "multiplier" });
        expect(error.issues).toEqual([
          expect.objectContaining({
            path: "multiplier",
            code: "invalid_multiplier",
            message: expect.stringContaining(`at most ${MAX_MULTIPLIER_CHARS} characters`),
          }),
        ]);
      }
    }
    expect(await server.admin.user(userId)).toEqual({ userId, balance: 10, multiplier: LONGEST });
    expect(ledgerBalance(await server.admin.ledger(userId))).toBe(10);
  });

  it("P4: admin.createUser and admin.setPriceMultiplier reject a longer one with invalid_multiplier, and change nothing", async () => {
    const server = await makeServer();
    const { userId } = await server.admin.createUser({ credits: 10, multiplier: "1.15" });
    for (const multiplier of TOO_LONG) {
      expect(await adminCodeOf(server.admin.createUser({ credits: 10, multiplier }))).toBe(
        "invalid_multiplier",
      );
      const refused = server.admin.setPriceMultiplier(userId, multiplier);
      await expect(refused).rejects.toThrow(`at most ${MAX_MULTIPLIER_CHARS} characters`);
    }
    expect(await server.admin.user(userId)).toEqual({ userId, balance: 10, multiplier: "1.15" });
  });

  it("P4: fixtures refuse a longer multiplier at its path, naming the bound, and no server is made", () => {
    for (const multiplier of TOO_LONG) {
      const checked = checkFixtures({ users: [{ id: "usr_long", credits: 1, multiplier }] });
      expect(checked.success).toBe(false);
      if (checked.success) {
        continue;
      }
      expect(checked.issues).toEqual([
        expect.objectContaining({
          path: "users[0].multiplier",
          code: "invalid_multiplier",
          message: expect.stringContaining(`at most ${MAX_MULTIPLIER_CHARS} characters`),
        }),
      ]);
      expect(() =>
        createReferenceServer({ fixtures: { users: [{ credits: 1, multiplier }] } }),
      ).toThrow(FixturesError);
    }
    expect(checkFixtures({ users: [{ credits: 1, multiplier: LONGEST }] }).success).toBe(true);
  });
});
