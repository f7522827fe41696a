/**
 * The users the start-up summary of `imagegen-pricing serve` lists, with the keys a client may use:
 * the demo user it makes when it has neither fixtures nor an admin token, or the fixture users as
 * the store has them (`ck_live_` keys from a file are never shown).
 */
import type { CheckedFixtures } from "../server/fixtures.js";
import type { ReferenceServer } from "../server/index.js";

/** A user as printed: its state and the keys a client may use (ck_live_ keys from a file are not shown). */
export type ShownUser = {
  userId: string;
  balance: number;
  multiplier: string;
  apiKeys: { key: string; shown: boolean }[];
  assets: string[];
  /** Whether this start loaded it (false: the store had it from an earlier start). */
  loadedNow: boolean;
};

/** The most users the startup summary lists one by one. */
export const MAX_LISTED_USERS = 10;

/**
 * The users to list, and how many there are: makes the demo user (10,000 credits, three assets and
 * a `ck_test_` key) or reads the first fixture users back from the server.
 *
 * @param server - The reference server, ready.
 * @param start - Whether to make the demo user; the fixture users as checked; which of them the store had already.
 * @returns The users to list, and the count of users and of those this start loaded.
 */
export async function usersToShow(
  server: ReferenceServer,
  start: { demo: boolean; fixtureUsers: CheckedFixtures["users"]; found: ReadonlySet<string> },
): Promise<{ users: ShownUser[]; counts: { total: number; loadedNow: number } }> {
  const { demo, fixtureUsers, found } = start;
  const users: ShownUser[] = [];
  if (demo) {
    const { userId } = await server.admin.createUser({ credits: 10_000 });
    const assets: string[] = [];
    for (let i = 0; i < 3; i++) assets.push((await server.admin.createAsset(userId)).assetId);
    const { key } = await server.admin.createApiKey(userId);
    users.push({ userId, balance: 10_000, multiplier: "1", apiKeys: [{ key, shown: true }], assets, loadedNow: true });
  }
  for (const user of fixtureUsers.slice(0, MAX_LISTED_USERS)) {
    const view = await server.admin.user(user.id);
    users.push({
      userId: user.id,
      balance: view.balance,
      multiplier: view.multiplier,
      apiKeys: user.apiKeys.map(({ key, mode }) => ({ key, shown: mode === "test" })),
      assets: [...user.assets],
      loadedNow: !found.has(user.id),
    });
  }
  const counts = { total: demo ? 1 : fixtureUsers.length, loadedNow: demo ? 1 : fixtureUsers.length - found.size };
  return { users, counts };
}
