/**
 * `imagegen-pricing serve`: the reference server as a process, for test suites in any language and
 * for trying the API by hand: fixtures, an admin token, an optional PostgreSQL store, a request log,
 * and a clean stop on SIGINT or SIGTERM, or when the process that started it ends.
 */
import { constants as fsConstants, readFileSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { parseArgs } from "node:util";
import { safeEcho } from "../echo.js";
import { show } from "../messages.js";
import { CatalogHistoryError, defineCatalogHistory } from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import { type RunningServer, serve, sha256Hex } from "../node/index.js";
import { checkAdminToken } from "../server/admin/token.js";
import { checkFixtures, duplicateKeyIssues, FixturesError } from "../server/fixtures.js";
import { checkCorsOrigins } from "../server/http/cors.js";
import { createReferenceServer, type Fixtures, type ResponseEvent, type Store } from "../server/index.js";
import { wholeNumber } from "./args.js";
import { type CliIo, EXIT, type UsageError } from "./io.js";

/** `--help` text of `serve`. */
export const SERVE_HELP = `Usage: imagegen-pricing serve [options]

Runs the reference server of the service (the four endpoints and /openapi.json) over HTTP, as a
test double for any language. It prints its base URL first ("Listening on http://..."), then the
users and the keys a client can use.

Options:
      --port <n>            TCP port, 0 for a free one (default: 8787)
      --host <address>      address to listen on (default: 127.0.0.1, this machine only)
      --fixtures <file>     the starting state: users, verbatim API keys, assets (a JSON file; see
                            the fixtures JSON Schema, data/fixtures.schema.json in the package)
      --admin-token <t>     turn on the admin API under /admin/ (Authorization: Bearer <t>):
                            16 to 256 of A-Z a-z 0-9 _ -, not starting with ck_; it also turns
                            on faults (/admin/faults) and the request journal (/admin/requests)
                            (default: the IMAGEGEN_ADMIN_TOKEN environment variable)
      --catalogs <file>     a price history instead of the built-in catalog: a JSON array of
                            catalogs, oldest first, each in force from its version date at
                            00:00 UTC (or { "catalogs": [...] }, the form of data/catalog.json)
      --max-connections-per-address <n>
                            connections one client address may hold open (default: 100); behind
                            a proxy, every client has its address: raise it to 1000
      --database-url <url>  keep the state in PostgreSQL (needs the pg package) instead of memory
                            (default: the DATABASE_URL environment variable)
      --schema <name>       the PostgreSQL schema of its tables (default: imagegen)
      --cors <origin>       let pages on this origin (such as http://127.0.0.1:5173) call the server
                            from a browser; repeat it for more origins, or give * for any origin
      --log                 print one line per request: method, path, status, time, request id
      --json                print the startup summary and the request lines as JSON, one per line
  -h, --help                show this help

The first lines say which store it uses: in memory, or PostgreSQL with the URL's password hidden.
--admin-token and --database-url win over the environment; an --admin-token given while
IMAGEGEN_ADMIN_TOKEN is set prints a warning on standard error (never either token).

Without --fixtures and an admin token it makes a demo user with a ck_test_ key and three assets.
Fixture keys that start with ck_test_ are printed (a test suite hard-codes them anyway); ck_live_
keys from a file are never printed.

It also stops, the same way, when the process that started it ends (a harness killed or crashed).

Exit status: 0 stopped by SIGINT or SIGTERM, 1 could not start (port in use, database
unreachable), 2 bad options or a bad fixtures or catalogs file. Every error is one line on standard error.

Examples:
  imagegen-pricing serve --port 0 --fixtures fixtures.json --admin-token "$ADMIN_TOKEN" --log
  imagegen-pricing serve --database-url postgres://localhost/imagegen --fixtures fixtures.json
  imagegen-pricing serve --catalogs history.json --admin-token "$ADMIN_TOKEN"
  DATABASE_URL=postgres://localhost/imagegen imagegen-pricing serve --cors http://127.0.0.1:5173
`;

/** A reason to stop before serving: one line, and the exit code. */
class StartError extends Error {
  override readonly name = "StartError";
  readonly code: number;

  constructor(message: string, code: number) {
    super(message);
    this.code = code;
  }
}

/** How `serve` is stopped: by default SIGINT or SIGTERM; tests may pass a promise instead. */
export type ServeControl = {
  /** Resolves (to what stopped it, for the last line) when the server should stop. */
  stop?: Promise<string>;
  /** Where `DATABASE_URL` and `IMAGEGEN_ADMIN_TOKEN` are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
};

type Options = {
  port: number;
  host: string;
  fixtures: string | undefined;
  catalogs: string | undefined;
  adminToken: string | undefined;
  /** Where the admin token and the database URL came from, for the first lines. */
  adminTokenFrom: "--admin-token" | "IMAGEGEN_ADMIN_TOKEN" | undefined;
  databaseUrlFrom: "--database-url" | "DATABASE_URL" | undefined;
  cors: "*" | string[] | undefined;
  maxConnectionsPerAddress: number | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  log: boolean;
  json: boolean;
};

/** One line, whatever a message holds. */
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

function readOptions(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): Options | "help" {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        host: { type: "string" },
        fixtures: { type: "string" },
        catalogs: { type: "string" },
        "admin-token": { type: "string" },
        "max-connections-per-address": { type: "string" },
        "database-url": { type: "string" },
        cors: { type: "string", multiple: true },
        schema: { type: "string" },
        log: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    // parseArgs explains at length how to pass a value starting with "-": the first sentence is the point.
    const message = (error as Error).message.split(". To specify")[0] ?? "";
    throw new StartError(`${oneLine(message)}. Run "imagegen-pricing serve --help" for the options.`, EXIT.usage);
  }
  if (values.help) return "help";
  const text = (name: string) => values[name] as string | undefined;
  let port = 8787;
  const portText = text("port");
  if (portText !== undefined) {
    try {
      port = wholeNumber("--port", portText, 0);
    } catch (error) {
      throw new StartError((error as UsageError).message, EXIT.usage);
    }
    if (port > 65535) throw new StartError(`--port must be from 0 to 65535; received "${portText}".`, EXIT.usage);
  }
  const host = text("host") ?? "127.0.0.1";
  if (host.trim() === "") throw new StartError("--host must name an address, such as 127.0.0.1 or 0.0.0.0.", EXIT.usage);
  // An empty variable counts as unset: `FOO= cmd` is how a shell clears one for a command.
  const fromEnv = (name: string) => (env[name] === undefined || env[name] === "" ? undefined : env[name]);
  const envToken = fromEnv("IMAGEGEN_ADMIN_TOKEN");
  let adminToken = text("admin-token");
  let adminTokenFrom: Options["adminTokenFrom"] = adminToken === undefined ? undefined : "--admin-token";
  if (adminToken !== undefined && envToken !== undefined) {
    warn("Warning: --admin-token is used; the IMAGEGEN_ADMIN_TOKEN environment variable is set too and is ignored.");
  } else if (adminToken === undefined && envToken !== undefined) {
    adminToken = envToken;
    adminTokenFrom = "IMAGEGEN_ADMIN_TOKEN";
  }
  if (adminToken !== undefined) {
    try {
      checkAdminToken(adminToken);
    } catch (error) {
      throw new StartError(`${adminTokenFrom}: ${(error as Error).message.replace(/^adminToken /, "the token ")}`, EXIT.usage);
    }
  }
  const corsValues = (values.cors as string[] | undefined) ?? [];
  let cors: Options["cors"];
  if (corsValues.length > 0) {
    if (corsValues.includes("*") && corsValues.length > 1) {
      throw new StartError("--cors * allows every origin: give it alone, or list origins without it.", EXIT.usage);
    }
    cors = corsValues.includes("*") ? "*" : corsValues;
    try {
      checkCorsOrigins(cors);
    } catch (error) {
      throw new StartError(`--${oneLine((error as Error).message)}`, EXIT.usage);
    }
  }
  const perAddressText = text("max-connections-per-address");
  let maxConnectionsPerAddress: number | undefined;
  if (perAddressText !== undefined) {
    try {
      maxConnectionsPerAddress = wholeNumber("--max-connections-per-address", perAddressText, 1);
    } catch (error) {
      throw new StartError((error as UsageError).message, EXIT.usage);
    }
  }
  const databaseFlag = text("database-url");
  if (databaseFlag !== undefined && databaseFlag.trim() === "") {
    throw new StartError("--database-url must be a postgres:// URL.", EXIT.usage);
  }
  const databaseUrl = databaseFlag ?? fromEnv("DATABASE_URL");
  const databaseUrlFrom: Options["databaseUrlFrom"] =
    databaseFlag !== undefined ? "--database-url" : databaseUrl === undefined ? undefined : "DATABASE_URL";
  if (text("schema") !== undefined && databaseUrl === undefined) {
    throw new StartError("--schema needs --database-url (or DATABASE_URL): the in-memory store has no schema.", EXIT.usage);
  }
  return {
    port,
    host: host.trim(),
    fixtures: text("fixtures"),
    catalogs: text("catalogs"),
    adminToken,
    adminTokenFrom,
    databaseUrlFrom,
    cors,
    maxConnectionsPerAddress,
    databaseUrl,
    schema: text("schema"),
    log: values.log === true,
    json: values.json === true,
  };
}

/**
 * A database URL as it may be shown: its password (and a `password` query parameter) replaced by
 * `***`; a text that is not a URL is not shown at all.
 *
 * @param url - The connection string.
 * @returns The URL without its password.
 */
function maskDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(a connection string that is not a URL, not shown)";
  }
  if (parsed.password !== "") parsed.password = "***";
  for (const name of [...parsed.searchParams.keys()]) {
    if (/^(password|sslpassword|passfile|sslkey)$/i.test(name)) parsed.searchParams.set(name, "***");
  }
  return parsed.href;
}

/** The largest fixtures file read: far more than any test suite's users, far less than a string's limit. */
export const MAX_FIXTURES_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Reads and parses a fixtures file; what the server checks when it is made. Read straight from the
 * file system (not through `io`): only an open file can be asked what it is. A FIFO or a device
 * would block the start or never end, and a huge file would fail later with an obscure message, so
 * only a regular file of at most {@link MAX_FIXTURES_FILE_BYTES} bytes of UTF-8 is read, and a
 * key given twice in one object is refused (`JSON.parse` would keep the last one silently).
 */
async function readFixtures(path: string, what: "fixtures" | "catalogs" = "fixtures"): Promise<unknown> {
  const cannot = (why: string) => new StartError(`Cannot read the ${what} file ${path}: ${why}`, EXIT.usage);
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO that has no writer returns at once (then refused below).
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw cannot(oneLine((error as Error).message));
  }
  let bytes: Uint8Array;
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw cannot("it is not a regular file (a directory, FIFO, socket or device); give a JSON file.");
    const tooLarge = (size: string) =>
      cannot(`it is ${size} bytes; a ${what} file is at most ${MAX_FIXTURES_FILE_BYTES} bytes (16 MiB).`);
    if (info.size > MAX_FIXTURES_FILE_BYTES) throw tooLarge(String(info.size));
    // One byte more than the bound: a file that grew since the stat is caught too.
    const buffer = new Uint8Array(MAX_FIXTURES_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_FIXTURES_FILE_BYTES) throw tooLarge(`more than ${MAX_FIXTURES_FILE_BYTES}`);
    }
    bytes = buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof StartError) throw error;
    throw cannot(oneLine((error as Error).message));
  } finally {
    await handle.close().catch(() => {});
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new StartError(`The ${what} file ${path} is not UTF-8 text.`, EXIT.usage);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StartError(`The ${what} file ${path} is not valid JSON: ${oneLine((error as Error).message)}`, EXIT.usage);
  }
  const duplicates = duplicateKeyIssues(text);
  if (duplicates.length > 0) {
    const problems = new FixturesError(duplicates, `${what === "fixtures" ? "Fixtures" : "Catalogs"} refused, nothing loaded`);
    throw new StartError(`The ${what} file ${path}: ${oneLine(problems.message)}`, EXIT.usage);
  }
  return value;
}

/**
 * Reads a price history file: a JSON array of catalogs, oldest first, or `{ "catalogs": [...] }`
 * (with `$schema`, as the package's data/catalog.json), checked whole as `createReferenceServer`
 * checks its `catalogs` option: every problem of every entry is named, and nothing is served.
 */
async function readCatalogs(path: string): Promise<readonly Catalog[]> {
  const value = await readFixtures(path, "catalogs");
  let list: unknown = value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const extra = Object.keys(value).filter((k) => k !== "catalogs" && k !== "$schema");
    if (!Object.hasOwn(value, "catalogs") || extra.length > 0) {
      throw new StartError(
        `The catalogs file ${path} must hold a JSON array of catalogs, oldest first, or { "catalogs": [...] }` +
          (extra.length > 0
            ? `; found ${extra
                .slice(0, 5)
                .map((k) => show(k))
                .join(", ")}.`
            : "."),
        EXIT.usage,
      );
    }
    list = (value as { catalogs: unknown }).catalogs;
  }
  if (!Array.isArray(list)) {
    throw new StartError(
      `The catalogs file ${path} must hold a JSON array of catalogs, oldest first; it holds ${show(list)}.`,
      EXIT.usage,
    );
  }
  try {
    return defineCatalogHistory(list as readonly Catalog[]);
  } catch (error) {
    if (!(error instanceof CatalogHistoryError)) throw error;
    throw new StartError(`The catalogs file ${path}: ${oneLine(error.message)}`, EXIT.usage);
  }
}

/** The PostgreSQL store, loaded only when asked for, so that `pg` stays optional. */
async function postgresStore(url: string, schema: string | undefined): Promise<Store> {
  let module: typeof import("../postgres/index.js");
  try {
    module = await import("../postgres/index.js");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new StartError("--database-url needs the pg package: install it next to imagegen-pricing (npm install pg).", 1);
    }
    throw error;
  }
  try {
    return await module.createPostgresStore({ connectionString: url, ...(schema === undefined ? {} : { schema }) });
  } catch (error) {
    if (error instanceof TypeError) throw new StartError(`--schema: ${oneLine(error.message)}`, EXIT.usage);
    // Never the URL itself: it may hold a password.
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message ? `: ${oneLine(cause.message)}` : "";
    throw new StartError(`Cannot use the database: ${oneLine((error as Error).message)}${detail}`, 1);
  }
}

/** What `listen` failed with, as one line. */
function listenError(error: unknown, host: string, port: number): StartError {
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE") {
    return new StartError(`Port ${port} on ${host} is in use; choose another with --port (0 picks a free one).`, 1);
  }
  if (code === "EACCES") return new StartError(`Not allowed to listen on port ${port} of ${host}; choose a port above 1023.`, 1);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new StartError(`Cannot listen on ${host}: no such address on this machine (--host).`, EXIT.usage);
  }
  return new StartError(`Cannot listen on ${host}:${port}: ${oneLine((error as Error).message)}`, 1);
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
  const time = Math.round(event.ms * 10) / 10;
  if (json) {
    return JSON.stringify({ event: "request", method: event.method, path, status: event.status, ms: time, requestId });
  }
  return `${event.method} ${path} ${event.status} ${time.toFixed(1)}ms ${requestId}`;
}

/** A user as printed: its state and the keys a client may use (ck_live_ keys from a file are not shown). */
type ShownUser = {
  userId: string;
  balance: number;
  multiplier: string;
  apiKeys: { key: string; shown: boolean }[];
  assets: string[];
  /** Whether this start loaded it (false: the store had it from an earlier start). */
  loadedNow: boolean;
};

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

/** The most users the startup summary lists one by one. */
const MAX_LISTED_USERS = 10;

function summary(
  url: string,
  boundTo: string | undefined,
  options: Options,
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

/** Fixtures with every user's id given: the ids a check made for users given without one. */
function withIds(fixtures: Fixtures, ids: readonly string[]): Fixtures {
  return { ...fixtures, users: fixtures.users.map((user, i) => ({ ...user, id: ids[i] as string })) };
}

/** Waits for SIGINT or SIGTERM, and stops listening for them once one came. */
function signals(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** How often `serve` looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 500;
/** Shells that npm, npx and harnesses put between themselves and the server (`sh -c "..."`). */
const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ash", "busybox"]);

/** Linux only: the parent of a process, from /proc (undefined elsewhere or once it is gone). */
function procParent(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
/** Linux only: a process's command name, from /proc (undefined elsewhere or once it is gone). */
function procCommand(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Resolves once the process that started `serve` has gone: a harness killed without a chance to
 * stop its child (SIGKILL, a crash, `npx` ended by a signal its shell does not pass on) must not
 * leave the server running. Its parent id changes when it is re-parented; where the parent is a
 * `sh -c` wrapper (as under npx), the wrapper's own parent is watched too (Linux, from /proc). Not
 * standard input closing: a CI job often gives none. The timer is unref'd and cleared on stop.
 *
 * @returns The promise (of the reason, for the last line) and a function that stops watching.
 */
function whenOrphaned(): { orphaned: Promise<string>; stop: () => void } {
  const parent = process.ppid;
  const wrapperParent = SHELLS.has(procCommand(parent) ?? "") ? procParent(parent) : undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const orphaned = new Promise<string>((resolve) => {
    timer = setInterval(() => {
      const above = wrapperParent === undefined ? undefined : procParent(parent);
      if (process.ppid === parent && (above === undefined || above === wrapperParent)) return;
      clearInterval(timer);
      // Whoever read its output may be gone with it: a write to a closed pipe must not crash the stop.
      process.stdout.on("error", () => {});
      process.stderr.on("error", () => {});
      resolve("its parent process ended");
    }, PARENT_CHECK_MS);
    timer.unref();
  });
  return { orphaned, stop: () => clearInterval(timer) };
}

/**
 * Runs `serve`: starts the reference server and answers until SIGINT or SIGTERM (or `control.stop`).
 *
 * @param args - The arguments after `serve`.
 * @param io - Where to write and how to read the fixtures file.
 * @param control - How it is stopped (default: SIGINT or SIGTERM).
 * @returns The exit code: 0 after a clean stop, 1 when it could not start, 2 for bad options or fixtures.
 */
export async function runServe(args: string[], io: CliIo, control: ServeControl = {}): Promise<number> {
  let store: Store | undefined;
  let running: RunningServer | undefined;
  try {
    const options = readOptions(args, control.env ?? process.env, (line) => io.err(`${line}\n`));
    if (options === "help") {
      io.out(SERVE_HELP);
      return EXIT.ok;
    }
    const fixtures = options.fixtures === undefined ? undefined : await readFixtures(options.fixtures);
    const catalogs = options.catalogs === undefined ? undefined : await readCatalogs(options.catalogs);

    // Checked before any database work: a bad file is refused whole, with its first problems named.
    const checked = fixtures === undefined ? undefined : checkFixtures(fixtures);
    if (checked && !checked.success) {
      throw new StartError(
        `The fixtures file ${options.fixtures}: ${oneLine(new FixturesError(checked.issues).message)}`,
        EXIT.usage,
      );
    }
    const fixtureIds = (checked?.success ? checked.output.users : []).map((u) => u.id);
    const found = new Set<string>();
    if (options.databaseUrl !== undefined) {
      store = await postgresStore(options.databaseUrl, options.schema);
      // Which fixture users an earlier start loaded: they are kept as the store has them.
      for (const id of fixtureIds) if (await store.getUser(id)) found.add(id);
    }
    const write = (line: string) => io.out(`${line}\n`);
    const server = createReferenceServer({
      hashApiKey: sha256Hex,
      ...(options.log ? { onResponse: (event: ResponseEvent) => write(requestLine(event, options.json)) } : {}),
      ...(store ? { store } : {}),
      ...(catalogs === undefined ? {} : { catalogs }),
      // The ids made for users given without one, so that what is printed is what is served.
      ...(checked?.success ? { fixtures: withIds(fixtures as Fixtures, fixtureIds) } : {}),
      ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
      ...(options.cors === undefined ? {} : { cors: options.cors }),
    });
    try {
      await server.ready();
    } catch (error) {
      if (error instanceof FixturesError) {
        throw new StartError(`The fixtures file ${options.fixtures}: ${oneLine(error.message)}`, EXIT.usage);
      }
      if ((error as Error | undefined)?.name === "StoreUnavailableError") {
        throw new StartError(`Cannot use the database: ${oneLine((error as Error).message)}`, 1);
      }
      throw error;
    }

    const users: ShownUser[] = [];
    const demo = fixtures === undefined && options.adminToken === undefined;
    if (demo) {
      const { userId } = await server.admin.createUser({ credits: 10_000 });
      const assets: string[] = [];
      for (let i = 0; i < 3; i++) assets.push((await server.admin.createAsset(userId)).assetId);
      const { key } = await server.admin.createApiKey(userId);
      users.push({ userId, balance: 10_000, multiplier: "1", apiKeys: [{ key, shown: true }], assets, loadedNow: true });
    }
    for (const user of checked?.success ? checked.output.users.slice(0, MAX_LISTED_USERS) : []) {
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
    const counts = { total: demo ? 1 : fixtureIds.length, loadedNow: demo ? 1 : fixtureIds.length - found.size };

    try {
      running = await serve({
        port: options.port,
        host: options.host,
        server,
        handleSignals: false,
        ...(options.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: options.maxConnectionsPerAddress }),
      });
    } catch (error) {
      throw listenError(error, options.host, options.port);
    }
    // The address a client connects to: a wildcard address is reached on the loopback.
    const url = running.url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:");
    const versions = catalogs?.map((c) => c.version) ?? [];
    const inForce = versions.filter((version) => Date.parse(version) <= Date.now()).at(-1);
    const prices =
      options.catalogs === undefined
        ? undefined
        : `Prices: ${options.catalogs}, ${versions.length} catalog${versions.length === 1 ? "" : "s"} (${versions.join(", ")}); ` +
          (inForce === undefined ? `none in force before ${versions[0]} 00:00 UTC` : `in force now: ${inForce}`);
    const storeName =
      options.databaseUrl === undefined
        ? "in memory (gone when the process ends)"
        : `PostgreSQL, schema ${options.schema ?? "imagegen"}, at ${maskDatabaseUrl(options.databaseUrl)} (from ${options.databaseUrlFrom})`;
    if (options.json) {
      write(
        JSON.stringify({
          event: "listening",
          url,
          store: options.databaseUrl === undefined ? "memory" : "postgres",
          ...(options.databaseUrl === undefined ? {} : { databaseUrl: maskDatabaseUrl(options.databaseUrl) }),
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
        }),
      );
    } else {
      io.out(summary(url, url === running.url ? undefined : running.host, options, users, counts, demo, storeName, prices));
    }

    let stoppedBy: string;
    if (control.stop) stoppedBy = await control.stop;
    else {
      const watch = whenOrphaned();
      stoppedBy = await Promise.race([signals(), watch.orphaned]);
      watch.stop();
    }
    // In-flight requests finish; a connection still busy after a grace period is cut.
    const grace = setTimeout(() => running?.httpServer.closeAllConnections(), 5000);
    grace.unref();
    await running.close();
    running = undefined;
    clearTimeout(grace);
    await store?.close();
    store = undefined;
    if (options.json) write(JSON.stringify({ event: "closed", by: stoppedBy }));
    else write(`Stopped (${stoppedBy}); the server is closed.`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof StartError) {
      io.err(`${error.message}\n`);
      return error.code;
    }
    // Anything else is unexpected; still one line, with what went wrong.
    const e = error instanceof Error ? error : new Error(String(error));
    io.err(`Cannot start the server: ${e.name}: ${safeEcho(oneLine(e.message), 300)}\n`);
    return 1;
  } finally {
    await running?.close().catch(() => {});
    await store?.close().catch(() => {});
  }
}
