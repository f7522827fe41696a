/**
 * Every line `imagegen-pricing serve` prints on standard output: the start-up summary (the URL, the
 * store, the prices, the users and their keys, curl lines to try), a line per request with `--log`,
 * and the last line once it is closed; with `--json`, each as one JSON object on a line.
 */
import { safeEcho } from "../echo.js";
import type { Catalog } from "../models/modelSpec.js";
import type { RunningServer } from "../node/index.js";
import type { ResponseEvent } from "../server/index.js";
import type { ServeOptions } from "./serveOptions.js";
import { storeFields, storeName } from "./serveStore.js";
import { MAX_LISTED_USERS, type ShownUser } from "./serveUsers.js";

/** What the start-up summary tells of one start. */
type Startup = {
  /** The server, listening. */
  running: RunningServer;
  options: ServeOptions;
  /** The price history of `--catalogs`, if any. */
  catalogs: readonly Catalog[] | undefined;
  /** The users to list (at most {@link MAX_LISTED_USERS} from the fixtures), and how many there are. */
  users: ShownUser[];
  counts: { total: number; loadedNow: number };
  /** Whether the one user is the demo user made now. */
  demo: boolean;
};

/**
 * The start-up summary: its first line is the base URL (`Listening on http://...`); with `--json`,
 * one `listening` object instead.
 *
 * @param startup - The server, the options, the price history and the users.
 * @returns The text to print, ending with a newline.
 */
export function startupSummary(startup: Startup): string {
  const { running, options, catalogs, users, counts, demo } = startup;
  // The address a client connects to: a wildcard address is reached on the loopback.
  const url = running.url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:");
  const versions = catalogs?.map((c) => c.version) ?? [];
  if (options.json) {
    const listening = {
      event: "listening",
      url,
      ...storeFields(options),
      admin: options.adminToken !== undefined,
      ...(catalogs === undefined ? {} : { catalogs: versions }),
      userCount: counts.total,
      users: users.map((u) => ({
        userId: u.userId,
        balance: u.balance,
        multiplier: u.multiplier,
        apiKeys: u.apiKeys.map((k) => (k.shown ? k.key : `${k.key.slice(0, 8)}...`)),
        assets: u.assets,
      })),
    };
    return `${JSON.stringify(listening)}\n`;
  }
  const inForce = versions.filter((version) => Date.parse(version) <= Date.now()).at(-1);
  const prices =
    options.catalogs === undefined
      ? undefined
      : `Prices: ${options.catalogs}, ${versions.length} catalog${versions.length === 1 ? "" : "s"} (${versions.join(", ")}); ` +
        (inForce === undefined ? `none in force before ${versions[0]} 00:00 UTC` : `in force now: ${inForce}`);
  return summary(url, url === running.url ? undefined : running.host, options, users, counts, demo, storeName(options), prices);
}

/** The start-up summary as text: the store named first, then what the options turned on, the users and how to try them. */
function summary(
  url: string,
  boundTo: string | undefined,
  options: ServeOptions,
  users: ShownUser[],
  counts: { total: number; loadedNow: number },
  demo: boolean,
  storeName: string,
  prices: string | undefined,
): string {
  const lines = [`Listening on ${url}${boundTo ? ` (bound to ${boundTo})` : ""}`, ""];
  lines.push(`Store: ${storeName}`);
  if (prices !== undefined) lines.push(prices);
  if (options.cors !== undefined) {
    lines.push(`CORS: pages on ${options.cors === "*" ? "any origin" : options.cors.join(", ")} may call this server`);
  }
  if (options.fixtures !== undefined) {
    const { total, loadedNow } = counts;
    lines.push(
      `Fixtures ${options.fixtures}: ${total} user${total === 1 ? "" : "s"}` +
        (loadedNow === total ? "" : ` (${loadedNow} loaded now, ${total - loadedNow} kept as the store had them)`),
    );
  }
  for (const user of users.slice(0, MAX_LISTED_USERS)) {
    lines.push(
      `${demo ? "Demo user " : "  "}${user.userId}: ${user.balance} credits, multiplier ${user.multiplier}` +
        (user.assets.length > 0 ? `, assets ${user.assets.slice(0, 5).join(", ")}${user.assets.length > 5 ? ", ..." : ""}` : ""),
    );
    for (const key of user.apiKeys) {
      lines.push(`    ${key.shown ? key.key : `${key.key.slice(0, 8)}... (a live key from the file, not shown)`}`);
    }
  }
  if (counts.total > users.length) lines.push(`  ... and ${counts.total - users.length} more users`);
  if (demo) lines.push("  (the key is shown once: the server keeps only its SHA-256)");
  if (options.adminToken !== undefined) {
    lines.push(
      `Admin API: ${url}/admin/ with Authorization: Bearer <the ${options.adminTokenFrom}>; described at ${url}/admin/openapi.json`,
    );
  }
  const tryUser = users.find((u) => u.apiKeys.some((k) => k.shown));
  const tryKey = tryUser?.apiKeys.find((k) => k.shown)?.key;
  if (tryUser && tryKey) {
    lines.push("", `Try (as ${tryUser.userId}; the quote and the generation price the same spec):`, "");
    for (const line of curlLines(url, tryKey, tryUser.assets[0])) lines.push(`  ${line}`, "");
  } else {
    lines.push("");
  }
  lines.push(`OpenAPI document: ${url}/openapi.json`, "Ctrl-C stops the server.");
  return `${lines.join("\n")}\n`;
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
 * A request line of `--log`: never a header or a body, and the path made safe like any echo
 * (`safeEcho`: a key- or token-shaped run is hidden).
 *
 * @param event - The answered request, as the server's `onResponse` tells it.
 * @param json - One JSON object rather than a text line.
 * @returns The line, without its newline.
 * @internal
 */
export function requestLine(event: ResponseEvent, json: boolean): string {
  // Spaces too become `?`, so that the text line stays split by spaces.
  const path = safeEcho(event.path, 200).replaceAll(" ", "?");
  const requestId = event.requestId || "-";
  const time = Math.round(event.durationMs * 10) / 10;
  if (json) {
    return JSON.stringify({ event: "request", method: event.method, path, status: event.status, ms: time, requestId });
  }
  return `${event.method} ${path} ${event.status} ${time.toFixed(1)}ms ${requestId}`;
}

/**
 * The last line, once the server is closed.
 *
 * @param stoppedBy - What stopped it: a signal's name, or why.
 * @param json - One `closed` object rather than a text line.
 * @returns The line, without its newline.
 */
export function stoppedLine(stoppedBy: string, json: boolean): string {
  return json ? JSON.stringify({ event: "closed", by: stoppedBy }) : `Stopped (${stoppedBy}); the server is closed.`;
}
