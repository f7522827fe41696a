/**
 * Every line `imagegen-pricing serve` prints on standard output: the start-up summary (the URL, the
 * store, the prices, the users and their keys, curl lines to try), a line per request with `--log`,
 * and the last line once it is closed; with `--json`, each as one JSON object on a line.
 */
import { safeEcho } from "../echo.js";
import type { Catalog } from "../models/modelSpec.js";
import type { RunningServer } from "../node/index.js";
import type { CheckedFixtures } from "../server/fixtures.js";
import type { ReferenceServer, ResponseEvent } from "../server/index.js";
import type { ServeOptions } from "./serveOptions.js";

/**
 * A user as printed: its state and the keys a client may use (ck_live_ keys from a file are not
 * shown).
 */
type ShownUser = {
  userId: string;
  balance: number;
  multiplier: string;
  apiKeys: { key: string; shown: boolean }[];
  assets: string[];
};

/** The most users the startup summary lists one by one. */
const MAX_LISTED_USERS = 10;

/**
 * The users to list, and how many there are and this start loaded: makes the demo user (10,000
 * credits, three assets and a `ck_test_` key), or reads the first fixture users back from the
 * server (`found`: those the store had already).
 */
export async function usersToShow(
  server: ReferenceServer,
  start: { demo: boolean; fixtureUsers: CheckedFixtures["users"]; found: ReadonlySet<string> },
): Promise<{ users: ShownUser[]; counts: { total: number; loadedNow: number } }> {
  const { demo, fixtureUsers, found } = start;
  if (demo) {
    const { userId } = await server.admin.createUser({ credits: 10_000 });
    const assets: string[] = [];
    for (let i = 0; i < 3; i++) {
      assets.push((await server.admin.createAsset(userId)).assetId);
    }
    const { key } = await server.admin.createApiKey(userId);
    const user = {
      userId,
      balance: 10_000,
      multiplier: "1",
      apiKeys: [{ key, shown: true }],
      assets,
    };
    return { users: [user], counts: { total: 1, loadedNow: 1 } };
  }
  const users: ShownUser[] = [];
  for (const user of fixtureUsers.slice(0, MAX_LISTED_USERS)) {
    const view = await server.admin.user(user.id);
    const apiKeys = user.apiKeys.map(({ key, mode }) => ({ key, shown: mode === "test" }));
    users.push({
      userId: user.id,
      balance: view.balance,
      multiplier: view.multiplier,
      apiKeys,
      assets: [...user.assets],
    });
  }
  return {
    users,
    counts: { total: fixtureUsers.length, loadedNow: fixtureUsers.length - found.size },
  };
}

/**
 * What the start-up summary tells of one start; `demo` when the one user is the demo user made now.
 */
type Startup = {
  running: RunningServer;
  options: ServeOptions;
  catalogs: readonly Catalog[] | undefined;
  users: ShownUser[];
  counts: { total: number; loadedNow: number };
  demo: boolean;
};

/**
 * The start-up summary, ending with a newline: its first line is the base URL
 * (`Listening on http://...`); with `--json`, one `listening` object instead.
 */
export function startupSummary({
  running,
  options,
  catalogs,
  users,
  counts,
  demo,
}: Startup): string {
  // The address a client connects to: a wildcard address is reached on the loopback.
  const url = running.url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:");
  const versions = catalogs?.map((c) => c.version) ?? [];
  const database =
    options.databaseUrl === undefined ? undefined : maskDatabaseUrl(options.databaseUrl);
  if (options.json) {
    const listening = {
      event: "listening",
      url,
      ...(database === undefined
        ? { store: "memory" }
        : { store: "postgres", databaseUrl: database }),
      admin: options.adminToken !== undefined,
      ...(catalogs === undefined ? {} : { catalogs: versions }),
      userCount: counts.total,
      users: users.map((u) => ({
        ...u,
        apiKeys: u.apiKeys.map((k) => (k.shown ? k.key : `${k.key.slice(0, 8)}...`)),
      })),
    };
    return `${JSON.stringify(listening)}\n`;
  }
  const store =
    database === undefined
      ? "in memory (gone when the process ends)"
      : `PostgreSQL, schema ${options.schema ?? "imagegen"}, at ${database} (from ` +
        `${options.databaseUrlFrom})`;
  const lines = [
    `Listening on ${url}${url === running.url ? "" : ` (bound to ${running.host})`}`,
    "",
    `Store: ${store}`,
  ];
  if (options.catalogs !== undefined) {
    const inForce = versions.filter((version) => Date.parse(version) <= Date.now()).at(-1);
    lines.push(
      `Prices: ${options.catalogs}, ${versions.length} ` +
        `catalog${versions.length === 1 ? "" : "s"} (${versions.join(", ")}); ` +
        (inForce === undefined
          ? `none in force before ${versions[0]} 00:00 UTC`
          : `in force now: ${inForce}`),
    );
  }
  if (options.cors !== undefined) {
    lines.push(
      `CORS: pages on ${options.cors === "*" ? "any origin" : options.cors.join(", ")} ` +
        "may call this server",
    );
  }
  if (options.fixtures !== undefined) {
    const { total, loadedNow } = counts;
    lines.push(
      `Fixtures ${options.fixtures}: ${total} user${total === 1 ? "" : "s"}` +
        (loadedNow === total
          ? ""
          : ` (${loadedNow} loaded now, ${total - loadedNow} kept as the store had them)`),
    );
  }
  for (const user of users) {
    lines.push(
      `${demo ? "Demo user " : "  "}${user.userId}: ${user.balance} credits, multiplier ` +
        `${user.multiplier}` +
        (user.assets.length > 0
          ? `, assets ${user.assets.slice(0, 5).join(", ")}${user.assets.length > 5 ? ", ..." : ""}`
          : ""),
    );
    for (const key of user.apiKeys) {
      const hidden = `${key.key.slice(0, 8)}... (a live key from the file, not shown)`;
      lines.push(`    ${key.shown ? key.key : hidden}`);
    }
  }
  if (counts.total > users.length) {
    lines.push(`  ... and ${counts.total - users.length} more users`);
  }
  if (demo) {
    lines.push("  (the key is shown once: the server keeps only its SHA-256)");
  }
  if (options.adminToken !== undefined) {
    lines.push(
      `Admin API: ${url}/admin/ with Authorization: Bearer <the ` +
        `${options.adminTokenFrom}>; described at ${url}/admin/openapi.json`,
    );
    if (options.fixtures === undefined && database === undefined) {
      lines.push("  No users yet: POST /admin/users makes one.");
    }
  }
  const tryUser = users.find((u) => u.apiKeys.some((k) => k.shown));
  const tryKey = tryUser?.apiKeys.find((k) => k.shown)?.key;
  if (tryUser && tryKey) {
    lines.push(
      "",
      `Try (as ${tryUser.userId}; the quote and the generation price the same spec):`,
      "",
    );
    for (const line of curlLines(url, tryKey, tryUser.assets[0])) {
      lines.push(`  ${line}`, "");
    }
  } else {
    lines.push("");
  }
  lines.push(`OpenAPI document: ${url}/openapi.json`, "Ctrl-C stops the server.");
  return `${lines.join("\n")}\n`;
}

/**
 * A database URL as it may be shown: its password (and a `password` query parameter) replaced by
 * `***`; a text that is not a URL is not shown at all.
 */
function maskDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(a connection string that is not a URL, not shown)";
  }
  if (parsed.password !== "") {
    parsed.password = "***";
  }
  for (const name of [...parsed.searchParams.keys()]) {
    if (/^(password|sslpassword|passfile|sslkey)$/i.test(name)) {
      parsed.searchParams.set(name, "***");
    }
  }
  return parsed.href;
}

/** Quotes a value for a POSIX shell, so that a printed command works as pasted. */
const shellQuote = (text: string) => `'${text.replace(/'/g, "'\\''")}'`;

/** The curl lines of a user: the same spec quoted and generated, so their credits agree. */
function curlLines(url: string, key: string, assetId: string | undefined): string[] {
  const spec = { modelId: "alpha-img2-official", resolution: "2K", quality: "medium" };
  const quoteSpec = { kind: "image", ...spec, referenceImageCount: assetId === undefined ? 0 : 1 };
  const generation = {
    prompt: "a red fox in the snow",
    ...spec,
    generationType: assetId === undefined ? "text-to-image" : "image-to-image",
    inputAssetIds: assetId === undefined ? [] : [assetId],
    imageCount: 1,
    idempotencyKey: "demo-1",
  };
  const auth = `-H ${shellQuote(`Authorization: Bearer ${key}`)}`;
  const json = `-H 'Content-Type: application/json'`;
  return [
    `curl -s ${url}/api/ping ${auth}`,
    `curl -s ${url}/api/query/credits ${auth}`,
    `curl -s ${url}/api/pricing/quote ${auth} ${json} -d ${shellQuote(JSON.stringify(quoteSpec))}`,
    `curl -s ${url}/api/generations ${auth} ${json} -d ${shellQuote(JSON.stringify(generation))}`,
  ];
}

/**
 * A request line of `--log`, without its newline: never a header or a body, and the path made safe
 * like any echo (`safeEcho`: a key- or token-shaped run is hidden). @internal
 */
export function requestLine(event: ResponseEvent, json: boolean): string {
  // Spaces too become `?`, so that the text line stays split by spaces.
  const path = safeEcho(event.path, 200).replaceAll(" ", "?");
  const requestId = event.requestId || "-";
  const time = Math.round(event.durationMs * 10) / 10;
  if (json) {
    return JSON.stringify({
      event: "request",
      method: event.method,
      path,
      status: event.status,
      ms: time,
      requestId,
    });
  }
  return `${event.method} ${path} ${event.status} ${time.toFixed(1)}ms ${requestId}`;
}

/** The last line, once the server is closed: what stopped it (a signal's name, or why). */
export function stoppedLine(stoppedBy: string, json: boolean): string {
  return json
    ? JSON.stringify({ event: "closed", by: stoppedBy })
    : `Stopped (${stoppedBy}); the server is closed.`;
}
