/**
 * The options of `imagegen-pricing serve`: its arguments and the environment (`DATABASE_URL`,
 * `IMAGEGEN_ADMIN_TOKEN`), read and checked before anything is opened, so that a bad option ends
 * the start with one line and exit code 2.
 */
import { parseArgs } from "node:util";
import { checkAdminToken } from "../server/adminToken.js";
import { checkCorsOrigins } from "../server/app.js";
import { wholeNumber } from "./args.js";
import { EXIT, type UsageError } from "./io.js";
import { oneLine, StartError } from "./serveError.js";

/** What `serve` was asked for, every option checked. */
export type ServeOptions = {
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

/** The arguments `serve` takes, as `parseArgs` reads them (every one is checked below). */
const SERVE_ARGUMENTS = {
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
} as const;

/**
 * Reads and checks the options of `serve`; an option wins over its environment variable, and an
 * empty variable counts as unset.
 *
 * @param args - The arguments after `serve`.
 * @param env - Where `DATABASE_URL` and `IMAGEGEN_ADMIN_TOKEN` are read.
 * @param warn - Where a warning line goes (standard error; never a token).
 * @returns The options, or `"help"` for `--help`.
 * @throws StartError naming the option and what it accepts, with exit code 2.
 */
export function readServeOptions(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): ServeOptions | "help" {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({ args, strict: true, allowPositionals: false, options: SERVE_ARGUMENTS }));
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
  let adminTokenFrom: ServeOptions["adminTokenFrom"] = adminToken === undefined ? undefined : "--admin-token";
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
  let cors: ServeOptions["cors"];
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
  const databaseUrlFrom: ServeOptions["databaseUrlFrom"] =
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
