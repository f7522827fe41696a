/**
 * The options of `imagegen-pricing serve`: its arguments and the environment (`DATABASE_URL`,
 * `IMAGEGEN_ADMIN_TOKEN`), read and checked before anything is opened, so that a bad option ends
 * the start with one line and exit code 2.
 */
import { checkAdminToken } from "../server/adminToken.js";
import { checkCorsOrigins } from "../server/app.js";
import { parseOptions, wholeNumber } from "./args.js";
import { oneLine, StartError } from "./io.js";

/**
 * What `serve` was asked for, every option checked, and where the token and the database URL came
 * from.
 */
export type ServeOptions = {
  port: number;
  host: string;
  fixtures: string | undefined;
  catalogs: string | undefined;
  adminToken: string | undefined;
  adminTokenFrom: "--admin-token" | "IMAGEGEN_ADMIN_TOKEN" | undefined;
  databaseUrlFrom: "--database-url" | "DATABASE_URL" | undefined;
  cors: "*" | string[] | undefined;
  maxConnectionsPerAddress: number | undefined;
  databaseUrl: string | undefined;
  schema: string | undefined;
  log: boolean;
  json: boolean;
};

const SERVE_ARGUMENTS = {
  port: { type: "string" },
  host: { type: "string", default: "127.0.0.1" },
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

/** The arguments of `serve` as `parseArgs` reads them, or the usage error in one line. */
function parseServeArguments(args: string[]) {
  try {
    return parseOptions({ args, options: SERVE_ARGUMENTS }).values;
  } catch (error) {
    throw new StartError(
      `${(error as Error).message} Run "imagegen-pricing serve --help" for the options.`,
    );
  }
}

/**
 * Reads and checks the options of `serve` (or `"help"`); an option wins over its environment
 * variable, and an empty variable counts as unset (`FOO= cmd` is how a shell clears one for a
 * command). A warning line goes to `warn`, never with a token.
 */
export function readServeOptions(
  args: string[],
  env: Readonly<Record<string, string | undefined>>,
  warn: (line: string) => void,
): ServeOptions | "help" {
  const values = parseServeArguments(args);
  if (values.help) {
    return "help";
  }
  const port = values.port === undefined ? 8787 : wholeNumber("--port", values.port, 0);
  if (port > 65535) {
    throw new StartError(`--port must be from 0 to 65535; received "${values.port}".`);
  }
  const host = values.host.trim();
  if (host === "") {
    throw new StartError("--host must name an address, such as 127.0.0.1 or 0.0.0.0.");
  }

  const flagToken = values["admin-token"];
  const envToken = env.IMAGEGEN_ADMIN_TOKEN || undefined;
  if (flagToken !== undefined && envToken !== undefined) {
    warn(
      "Warning: --admin-token is used; the IMAGEGEN_ADMIN_TOKEN environment variable is " +
        "set too and is ignored.",
    );
  }
  const adminToken = flagToken ?? envToken;
  const adminTokenFrom =
    flagToken !== undefined
      ? "--admin-token"
      : envToken !== undefined
        ? "IMAGEGEN_ADMIN_TOKEN"
        : undefined;
  if (flagToken === "") {
    throw new StartError(
      `--admin-token is empty (as "$ADMIN_TOKEN" is when that shell variable is unset): ` +
        "give a token of 16 to 256 characters of A-Z, a-z, 0-9, _ and -, or leave " +
        "--admin-token out.",
    );
  }
  if (adminToken !== undefined) {
    try {
      checkAdminToken(adminToken);
    } catch (error) {
      throw new StartError(
        `${adminTokenFrom}: ${(error as Error).message.replace(/^adminToken /, "the token ")}`,
      );
    }
  }

  const origins = values.cors ?? [];
  let cors: ServeOptions["cors"];
  if (origins.length > 0) {
    if (origins.includes("*") && origins.length > 1) {
      throw new StartError(
        "--cors * allows every origin: give it alone, or list origins without it.",
      );
    }
    cors = origins.includes("*") ? "*" : origins;
    try {
      checkCorsOrigins(cors);
    } catch (error) {
      throw new StartError(`--${oneLine((error as Error).message)}`);
    }
  }
  const perAddress = values["max-connections-per-address"];
  const maxConnectionsPerAddress =
    perAddress === undefined
      ? undefined
      : wholeNumber("--max-connections-per-address", perAddress, 1);

  const databaseFlag = values["database-url"];
  if (databaseFlag?.trim() === "") {
    throw new StartError("--database-url must be a postgres:// URL.");
  }
  const databaseUrl = databaseFlag ?? (env.DATABASE_URL || undefined);
  if (values.schema !== undefined && databaseUrl === undefined) {
    throw new StartError(
      "--schema needs --database-url (or DATABASE_URL): the in-memory store has no schema.",
    );
  }
  return {
    port,
    host,
    fixtures: values.fixtures,
    catalogs: values.catalogs,
    adminToken,
    adminTokenFrom,
    databaseUrlFrom:
      databaseFlag !== undefined
        ? "--database-url"
        : databaseUrl === undefined
          ? undefined
          : "DATABASE_URL",
    cors,
    maxConnectionsPerAddress,
    databaseUrl,
    schema: values.schema,
    log: values.log,
    json: values.json,
  };
}
