/**
 * Fixtures: the starting state of a reference server given as data (users with their credits,
 * multipliers, verbatim API keys and asset ids), checked whole before anything is loaded.
 */
import { MAX_MULTIPLIER_CHARS, parseMultiplier } from "../pricing/multiplier.js";
import { type ApiKeyMode, type FixtureUserLoad, MAX_CREDITS, type Store } from "../store/store.js";
import type { Issue } from "../types.js";
import { newId } from "./ids.js";

/** An API key given verbatim: the key itself, or `{ key }`. Its mode follows from its prefix. */
export type FixtureApiKey = string | { readonly key: string };

/** One user of a fixtures file. */
export type FixtureUser = {
  /** The user id (`usr_` and 1 to 60 of `A-Z a-z 0-9 _ -`); a random one when omitted. */
  readonly id?: string;
  /** The opening balance: a whole number of credits. */
  readonly credits: number;
  /** The price multiplier (P4), default 1. */
  readonly multiplier?: string | number;
  /** Keys to accept for this user, verbatim, so a test suite can hard-code them. */
  readonly apiKeys?: readonly FixtureApiKey[];
  /** Asset ids this user owns. */
  readonly assets?: readonly string[];
};

/** The starting state of a reference server. */
export type Fixtures = { readonly users: readonly FixtureUser[] };

/**
 * A fixtures object checked by {@link checkFixtures}: ids filled in, keys split by mode,
 * multipliers exact.
 */
export type CheckedFixtures = {
  readonly users: readonly {
    readonly id: string;
    readonly credits: number;
    readonly multiplier: string;
    readonly apiKeys: readonly { readonly key: string; readonly mode: ApiKeyMode }[];
    readonly assets: readonly string[];
  }[];
};

/** Thrown when a fixtures object has problems; `issues` names every one, and nothing was loaded. */
export class FixturesError extends Error {
  override readonly name = "FixturesError";
  /** Every problem, each at its path (`users[0].apiKeys[1]`). */
  readonly issues: readonly Issue<string>[];

  /**
   * Makes the error of refused fixtures.
   *
   * @param issues - Every problem, at least one.
   * @param summary - What happened, before the problems (default: refused, nothing loaded).
   */
  constructor(issues: readonly Issue<string>[], summary = "Fixtures refused, nothing loaded") {
    // Each message is a sentence; joined by semicolons they read as one.
    const shown = issues
      .slice(0, 10)
      .map((issue) => `${issue.path || "(root)"}: ${issue.message.replace(/\.$/, "")}`);
    const more = issues.length > shown.length ? `; and ${issues.length - shown.length} more` : "";
    super(`${summary}: ${shown.join("; ")}${more}.`);
    this.issues = issues;
  }
}

/** What a fixture key looks like: a mode prefix and at least 16 of `A-Z a-z 0-9 _ -`. */
const FIXTURE_KEY = /^ck_(live|test)_[A-Za-z0-9_-]{16,256}$/;
const USER_ID = /^usr_[A-Za-z0-9_-]{1,60}$/;
/** Asset ids: what a request can name after trimming, bounded in length. */
const ASSET_ID = /^\S(?:.{0,126}\S)?$/su;
/**
 * What no asset id holds: control characters (U+0000 among them, which PostgreSQL text cannot hold)
 * and lone surrogates (UTF-8 cannot encode them, so two ids could become one). Refused here, so
 * that every store loads the same fixtures.
 */
const UNSTORABLE = /[\p{Cc}\p{Cs}]/u;
const USER_FIELDS = ["id", "credits", "multiplier", "apiKeys", "assets"];
/** The most of each thing one fixtures object may hold: a fixture is for tests, not a migration. */
const MAX_ITEMS = 10_000;
/** The most problems listed; the rest are counted. */
const MAX_ISSUES = 100;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A received value for a message: short, and never a key (a key-shaped value is named, not shown).
 */
function shown(value: unknown): string {
  if (typeof value !== "string") {
    return value === undefined
      ? "nothing"
      : typeof value === "object"
        ? "an object"
        : String(value).slice(0, 40);
  }
  if (/ck_/i.test(value)) {
    return "a key-shaped string";
  }
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value);
}

/**
 * Checks a fixtures object whole: every problem is named, none stops the check early.
 *
 * Refused: a value that is not an object of `users`; an unknown field; a user id not shaped
 * `usr_...` or given twice; credits that are not a whole number from 0 to 2^53 - 1; an invalid
 * multiplier; a key not `ck_live_`/`ck_test_` followed by 16 to 256 of `A-Z a-z 0-9 _ -`, or given
 * twice (under any users); an asset id that is empty, padded with spaces, longer than 128
 * characters, holding a control character (U+0000 among them) or a lone surrogate, or given twice.
 */
export function checkFixtures(
  input: unknown,
  newUserId: () => string = newId.user,
): { success: true; output: CheckedFixtures } | { success: false; issues: Issue<string>[] } {
  const issues: Issue<string>[] = [];
  let unreported = 0;
  const problem = (path: string, code: string, message: string) => {
    if (issues.length < MAX_ISSUES) {
      issues.push({ path, code, message });
    } else {
      unreported++;
    }
  };
  const unknownFields = (
    value: object,
    allowed: readonly string[],
    at: string,
    what: string,
    use: string,
  ) => {
    for (const field of Object.keys(value)) {
      if (allowed.includes(field)) {
        continue;
      }
      problem(
        `${at}${at && "."}${field.slice(0, 40)}`,
        "unknown_field",
        `Field ${shown(field)} is not part of ${what}; use ${use}.`,
      );
    }
  };
  if (!isRecord(input)) {
    problem("", "invalid_type", "Fixtures must be an object with a `users` array.");
    return { success: false, issues };
  }
  // `$schema` lets an editor check the file against the published JSON Schema.
  unknownFields(input, ["users", "$schema"], "", "fixtures", '"users"');
  const users = input.users;
  if (!Array.isArray(users)) {
    problem("users", "invalid_type", "users must be an array of users.");
    return { success: false, issues };
  }
  if (users.length > MAX_ITEMS) {
    problem("users", "too_many", `At most ${MAX_ITEMS} users; got ${users.length}.`);
  }

  const userIds = new Map<string, string>();
  const keys = new Map<string, string>();
  const assets = new Map<string, string>();
  const output: CheckedFixtures["users"][number][] = [];
  users.slice(0, MAX_ITEMS).forEach((user: unknown, i) => {
    const at = `users[${i}]`;
    if (!isRecord(user)) {
      problem(at, "invalid_type", "A user must be an object with `credits`.");
      return;
    }
    unknownFields(user, USER_FIELDS, at, "a user", "id, credits, multiplier, apiKeys or assets");

    let id = newUserId();
    if (user.id !== undefined) {
      if (typeof user.id !== "string" || !USER_ID.test(user.id)) {
        problem(
          `${at}.id`,
          "invalid_id",
          `A user id is "usr_" and 1 to 60 of A-Z a-z 0-9 _ -; got ${shown(user.id)}.`,
        );
      } else if (userIds.has(user.id)) {
        problem(
          `${at}.id`,
          "duplicate",
          `User id ${shown(user.id)} is also given at ${userIds.get(user.id)}.`,
        );
      } else {
        userIds.set(user.id, `${at}.id`);
        id = user.id;
      }
    }

    const credits = user.credits;
    if (
      typeof credits !== "number" ||
      !Number.isSafeInteger(credits) ||
      credits < 0 ||
      credits > MAX_CREDITS
    ) {
      problem(
        `${at}.credits`,
        "invalid_credits",
        `credits must be a whole number from 0 to ${MAX_CREDITS}; got ${shown(credits)}.`,
      );
    }

    const multiplier =
      user.multiplier === undefined ? parseMultiplier(1) : parseMultiplier(user.multiplier);
    if (!multiplier) {
      problem(
        `${at}.multiplier`,
        "invalid_multiplier",
        "multiplier must be a plain decimal from 0 to 1000 of at most " +
          `${MAX_MULTIPLIER_CHARS} characters ("1.15" or 1.15); got ` +
          `${shown(user.multiplier)}.`,
      );
    }

    const userKeys: { key: string; mode: ApiKeyMode }[] = [];
    listOf(user.apiKeys, `${at}.apiKeys`, problem, (entry, path) => {
      const key = isRecord(entry) ? entry.key : entry;
      if (isRecord(entry)) {
        unknownFields(entry, ["key"], path, "an API key", '"key"');
      }
      const match = typeof key === "string" ? FIXTURE_KEY.exec(key) : null;
      if (typeof key !== "string" || !match) {
        problem(
          path,
          "invalid_api_key",
          'An API key is "ck_live_" or "ck_test_" followed by 16 to 256 of A-Z a-z 0-9 _ -.',
        );
      } else if (keys.has(key)) {
        problem(path, "duplicate", `This API key is also given at ${keys.get(key)}.`);
      } else {
        keys.set(key, path);
        userKeys.push({ key, mode: match[1] as ApiKeyMode });
      }
    });

    const userAssets: string[] = [];
    listOf(user.assets, `${at}.assets`, problem, (asset, path) => {
      if (
        typeof asset !== "string" ||
        !ASSET_ID.test(asset) ||
        UNSTORABLE.test(asset) ||
        /ck_/i.test(asset)
      ) {
        problem(
          path,
          "invalid_asset_id",
          "An asset id is 1 to 128 characters of well-formed Unicode with no control " +
            "character (U+0000 to U+001F, U+007F to U+009F) and no leading or trailing " +
            `space; got ${shown(asset)}.`,
        );
      } else if (assets.has(asset)) {
        problem(
          path,
          "duplicate",
          `Asset id ${shown(asset)} is also given at ${assets.get(asset)}.`,
        );
      } else {
        assets.set(asset, path);
        userAssets.push(asset);
      }
    });

    if (multiplier && typeof credits === "number") {
      output.push({
        id,
        credits,
        multiplier: multiplier.text,
        apiKeys: userKeys,
        assets: userAssets,
      });
    }
  });
  if (unreported > 0) {
    issues.push({
      path: "",
      code: "too_many_issues",
      message: `${unreported} more problems are not listed; fix these first.`,
    });
  }
  return issues.length > 0
    ? { success: false, issues }
    : { success: true, output: { users: output } };
}

/**
 * Finds the keys a JSON text (that `JSON.parse` accepts) gives twice in one object: `JSON.parse`
 * keeps the last one silently, so a fixtures file with a repeated `"credits"` would load something
 * its author did not see. One pass over the text, outside strings; at most 100 issues. @internal
 */
export function duplicateKeyIssues(text: string): Issue<string>[] {
  type Frame = {
    readonly path: string;
    readonly keys: Set<string> | undefined;
    key: string;
    index: number;
    expectKey: boolean;
  };
  const stack: Frame[] = [];
  const issues: Issue<string>[] = [];
  const join = (path: string, key: string) => {
    const name = /^[A-Za-z_$][A-Za-z0-9_$]{0,39}$/.test(key)
      ? key
      : JSON.stringify(key.slice(0, 40));
    return path === "" ? name : `${path}.${name}`;
  };
  const childPath = () => {
    const parent = stack.at(-1);
    if (!parent) {
      return "";
    }
    return parent.keys ? join(parent.path, parent.key) : `${parent.path}[${parent.index}]`;
  };
  for (let i = 0; i < text.length && issues.length < MAX_ISSUES; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let end = i + 1;
      while (end < text.length && text.charCodeAt(end) !== 0x22) {
        end += text.charCodeAt(end) === 0x5c ? 2 : 1;
      }
      const top = stack.at(-1);
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) {
          issues.push({
            path: join(top.path, key),
            code: "duplicate_key",
            message:
              `Key ${shown(key)} is given twice in this object: give it once, as JSON ` +
              "keeps only the last.",
          });
        }
        top.keys.add(key);
        top.key = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      stack.push({
        path: childPath(),
        keys: c === 0x7b ? new Set() : undefined,
        key: "",
        index: 0,
        expectKey: true,
      });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack.at(-1);
      if (top?.keys) {
        top.expectKey = true;
      } else if (top) {
        top.index++;
      }
    }
  }
  return issues;
}

/** Names a problem of a fixtures object at its path. */
type Problem = (path: string, code: string, message: string) => void;

function listOf(
  value: unknown,
  path: string,
  problem: Problem,
  each: (item: unknown, path: string) => void,
): void {
  if (value === undefined) {
    return;
  }
  if (!Array.isArray(value)) {
    problem(path, "invalid_type", `${path.slice(path.lastIndexOf(".") + 1)} must be an array.`);
    return;
  }
  if (value.length > MAX_ITEMS) {
    problem(path, "too_many", `At most ${MAX_ITEMS} entries; got ${value.length}.`);
  }
  for (const [i, item] of value.slice(0, MAX_ITEMS).entries()) {
    each(item, `${path}[${i}]`);
  }
}

/**
 * What a fixture key's id is derived from besides its hash: no other hash in the package starts so.
 */
const KEY_ID_DOMAIN = "imagegen-pricing fixture API key id\n";

/**
 * The fixtures as a store loads them: each key as its SHA-256 and an id derived from that hash
 * (domain-separated), so that a key keeps its id across loads and resets, and a request checked
 * before a reset is committed after it with a key that is valid in both states. @internal
 */
export async function fixtureUsers(
  fixtures: CheckedFixtures,
  hashApiKey: (text: string) => string | Promise<string>,
): Promise<FixtureUserLoad[]> {
  const users: FixtureUserLoad[] = [];
  for (const user of fixtures.users) {
    const apiKeys: FixtureUserLoad["apiKeys"][number][] = [];
    for (const { key, mode } of user.apiKeys) {
      const hash = await hashApiKey(key);
      apiKeys.push({
        id: `apk_${(await hashApiKey(KEY_ID_DOMAIN + hash)).slice(0, 16)}`,
        hash,
        mode,
      });
    }
    users.push({
      id: user.id,
      credits: user.credits,
      multiplier: user.multiplier,
      apiKeys,
      assets: user.assets,
    });
  }
  return users;
}

/**
 * Loads fixtures into a store, so that loading the same fixtures again changes nothing.
 *
 * A user whose id the store already holds is not created again: its balance and multiplier are the
 * store's (a durable store keeps what happened since the first load, and a second opening grant
 * would give credits twice). Its keys and assets that the store lacks are added. A key that the
 * store holds for another user, or an asset id another user owns, is a conflict: the load is
 * refused with a {@link FixturesError} naming each one, and nothing is written (the store loads in
 * one step). Returns the ids of the users created now. @internal
 */
export async function loadFixtures(
  store: Store,
  fixtures: CheckedFixtures,
  users: readonly FixtureUserLoad[],
  now: number,
): Promise<string[]> {
  const result = await store.loadFixtures(users, now);
  if (result.ok) {
    return [...result.created];
  }
  throw new FixturesError(
    result.conflicts.map(({ user, field, index }) => {
      const what =
        field === "apiKeys"
          ? "This API key"
          : `Asset id ${shown(fixtures.users[user]?.assets[index])}`;
      const message = `${what} already belongs to another user in the store.`;
      return { path: `users[${user}].${field}[${index}]`, code: "taken", message };
    }),
  );
}
