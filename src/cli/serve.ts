/**
 * `imagegen-pricing serve`: the reference server as a process, for test suites in any language and
 * for trying the API by hand. {@link runServe} tells one start in order, with the process around
 * the server here: the PostgreSQL store it may open, the port, and the stop on SIGINT or SIGTERM
 * (or when the process that started it ends). Its options are read in serveOptions.ts, its files in
 * serveFiles.ts, and what it prints is in serveOutput.ts.
 */
import { readFileSync } from "node:fs";
import { safeEcho } from "../echo.js";
import { type RunningServer, serve } from "../node/index.js";
import {
  createReferenceServer,
  FixturesError,
  type ReferenceServer,
  type ResponseEvent,
} from "../server/index.js";
import type { Store } from "../store/store.js";
import { type CliIo, EXIT, oneLine, StartError, UsageError } from "./io.js";
import { fixturesRefused, readStartFiles } from "./serveFiles.js";
import { readServeOptions, type ServeOptions } from "./serveOptions.js";
import { requestLine, startupSummary, stoppedLine, usersToShow } from "./serveOutput.js";

/** `--help` text of `serve`. */
export const SERVE_HELP = `Usage: imagegen-pricing serve [options]

Runs the reference server of the service (the four endpoints and /openapi.json) over HTTP, as a
test double for any language. It prints its base URL first ("Listening on http://..."), then the
users and the keys a client can use.

Options:
      --port <n>            TCP port, 0 for a free one (default: 8787)
      --host <address>      address to listen on (default: 127.0.0.1, this machine only)
      --fixtures <file>     the starting state: users, verbatim API keys, assets (a JSON file; see
                            the fixtures JSON Schema, data/fixtures.schema.json in the package,
                            and its example, examples/fixtures.json)
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

With neither --fixtures nor an admin token it makes a demo user with a ck_test_ key and three \
assets.
Fixture keys that start with ck_test_ are printed (a test suite hard-codes them anyway); ck_live_
keys from a file are never printed.

It also stops, the same way, when the process that started it ends (a harness killed or crashed).

Exit status: 0 stopped by SIGINT or SIGTERM, 1 could not start (port in use, database
unreachable), 2 bad options or a bad fixtures or catalogs file. Every error is one line on \
standard error.

Examples:
  imagegen-pricing serve --port 0 --fixtures fixtures.json --admin-token "$ADMIN_TOKEN" --log
  imagegen-pricing serve --database-url postgres://localhost/imagegen --fixtures fixtures.json
  imagegen-pricing serve --catalogs history.json --admin-token "$ADMIN_TOKEN"
  DATABASE_URL=postgres://localhost/imagegen imagegen-pricing serve --cors http://127.0.0.1:5173
`;

/** How `serve` is stopped: by default SIGINT or SIGTERM; tests may pass a promise instead. */
export type ServeControl = {
  /** Resolves (to what stopped it, for the last line) when the server should stop. */
  stop?: Promise<string>;
  /** Where `DATABASE_URL` and `IMAGEGEN_ADMIN_TOKEN` are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
};

/**
 * Runs `serve`: starts the reference server and answers until SIGINT or SIGTERM (or
 * `control.stop`).
 *
 * @returns The exit code: 0 after a clean stop, 1 when it could not start, 2 for bad options or
 * files.
 */
export async function runServe(
  args: string[],
  io: CliIo,
  control: ServeControl = {},
): Promise<number> {
  // Held out here so that a start that fails half-way still closes what it opened.
  let store: Store | undefined;
  let running: RunningServer | undefined;
  try {
    // Nothing is opened before the options are right, nor before the files are: a bad file is
    // refused whole.
    const options = readServeOptions(args, control.env ?? process.env, (line) =>
      io.err(`${line}\n`),
    );
    if (options === "help") {
      io.out(SERVE_HELP);
      return EXIT.ok;
    }
    const files = await readStartFiles(options);
    if (options.databaseUrl !== undefined) {
      store = await openPostgresStore(options.databaseUrl, options.schema);
    }
    // The fixture users an earlier start loaded into PostgreSQL are kept as the store has them.
    const found = new Set<string>();
    if (store) {
      for (const { id } of files.users) {
        if (await store.getUser(id)) {
          found.add(id);
        }
      }
    }

    const write = (line: string) => io.out(`${line}\n`);
    const log = options.log
      ? { onResponse: (event: ResponseEvent) => write(requestLine(event, options.json)) }
      : {};
    const server = createReferenceServer({
      ...log,
      ...(store ? { store } : {}),
      ...(files.catalogs === undefined ? {} : { catalogs: files.catalogs }),
      ...(files.fixtures === undefined ? {} : { fixtures: files.fixtures }),
      ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
      ...(options.cors === undefined ? {} : { cors: options.cors }),
    });
    try {
      await server.ready();
    } catch (error) {
      if (error instanceof FixturesError) {
        throw fixturesRefused(options.fixtures, error);
      }
      if ((error as Error | undefined)?.name === "StoreUnavailableError") {
        throw new StartError(`Cannot use the database: ${oneLine((error as Error).message)}`, 1);
      }
      throw error;
    }

    const demo = options.fixtures === undefined && options.adminToken === undefined;
    const { users, counts } = await usersToShow(server, { demo, fixtureUsers: files.users, found });
    running = await listen(server, options, log);
    // Listening for the signals before the address is printed: a harness may stop it as soon as it
    // reads that.
    const stopping = stopRequested(control.stop);
    io.out(startupSummary({ running, options, catalogs: files.catalogs, users, counts, demo }));

    const stoppedBy = await stopping;
    await closeGracefully(running);
    running = undefined;
    await store?.close();
    store = undefined;
    write(stoppedLine(stoppedBy, options.json));
    return EXIT.ok;
  } catch (error) {
    if (error instanceof StartError || error instanceof UsageError) {
      io.err(`${error.message}\n`);
      return error instanceof StartError ? error.code : EXIT.usage;
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

/** Opens the PostgreSQL store, loaded only when asked for, so that `pg` stays optional. */
async function openPostgresStore(url: string, schema: string | undefined): Promise<Store> {
  const module = await import("../postgres/store.js").catch((error: { code?: unknown }) => {
    if (error.code !== "ERR_MODULE_NOT_FOUND" && error.code !== "MODULE_NOT_FOUND") {
      throw error;
    }
    throw new StartError(
      "--database-url needs the pg package: install it next to imagegen-pricing (npm install pg).",
      1,
    );
  });
  try {
    return await module.createPostgresStore({
      connectionString: url,
      ...(schema === undefined ? {} : { schema }),
    });
  } catch (error) {
    if (error instanceof TypeError) {
      throw new StartError(`--schema: ${oneLine(error.message)}`);
    }
    // Never the URL itself: it may hold a password.
    const cause = (error as { cause?: unknown }).cause;
    const detail = cause instanceof Error && cause.message ? `: ${oneLine(cause.message)}` : "";
    throw new StartError(
      `Cannot use the database: ${oneLine((error as Error).message)}${detail}`,
      1,
    );
  }
}

/**
 * Listens over HTTP, the log of --log told of the answers serve() writes itself too; the signals
 * are left to {@link stopRequested}.
 */
async function listen(
  server: ReferenceServer,
  { host, port, maxConnectionsPerAddress }: ServeOptions,
  log: { onResponse?: (event: ResponseEvent) => void },
): Promise<RunningServer> {
  try {
    const perAddress = maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress };
    return await serve({ port, host, server, handleSignals: false, ...log, ...perAddress });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EADDRINUSE") {
      throw new StartError(
        `Port ${port} on ${host} is in use; choose another with --port (0 picks a free one).`,
        1,
      );
    }
    if (code === "EACCES") {
      throw new StartError(
        `Not allowed to listen on port ${port} of ${host}; choose a port above 1023.`,
        1,
      );
    }
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
      throw new StartError(`Cannot listen on ${host}: no such address on this machine (--host).`);
    }
    throw new StartError(
      `Cannot listen on ${host}:${port}: ${oneLine((error as Error).message)}`,
      1,
    );
  }
}

/**
 * Waits until the server should stop (`stop`, a test's, or SIGINT, SIGTERM or an orphaning), and
 * tells what stopped it.
 */
async function stopRequested(stop: Promise<string> | undefined): Promise<string> {
  if (stop) {
    return await stop;
  }
  const watch = whenOrphaned();
  const stoppedBy = await Promise.race([signals(), watch.orphaned]);
  watch.stop();
  return stoppedBy;
}

/**
 * Closes the server: requests in flight finish; a connection still busy after a grace period is
 * cut.
 */
async function closeGracefully(running: RunningServer): Promise<void> {
  const grace = setTimeout(() => running.httpServer.closeAllConnections(), 5000);
  grace.unref();
  await running.close();
  clearTimeout(grace);
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

/**
 * A file of /proc about a process (Linux only; undefined elsewhere or once the process is gone).
 */
function proc(pid: number, file: "stat" | "comm"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/${file}`, "utf8");
  } catch {
    return undefined;
  }
}

function procParent(pid: number): number | undefined {
  const stat = proc(pid, "stat");
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
  const ppid = Number(stat?.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}

/**
 * Resolves once the process that started `serve` has gone: a harness killed without a chance to
 * stop its child (SIGKILL, a crash, `npx` ended by a signal its shell does not pass on) must not
 * leave the server running. Its parent id changes when it is re-parented; where the parent is a
 * `sh -c` wrapper (as under npx), the wrapper's own parent is watched too (Linux, from /proc). Not
 * standard input closing: a CI job often gives none. The timer is unref'd and cleared on stop.
 */
function whenOrphaned(): { orphaned: Promise<string>; stop: () => void } {
  const parent = process.ppid;
  const wrapperParent = SHELLS.has(proc(parent, "comm")?.trim() ?? "")
    ? procParent(parent)
    : undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const orphaned = new Promise<string>((resolve) => {
    timer = setInterval(() => {
      const above = wrapperParent === undefined ? undefined : procParent(parent);
      if (process.ppid === parent && (above === undefined || above === wrapperParent)) {
        return;
      }
      clearInterval(timer);
      // Whoever read its output may be gone with it: a write to a closed pipe must not crash the
      // stop.
      process.stdout.on("error", () => {});
      process.stderr.on("error", () => {});
      resolve("its parent process ended");
    }, PARENT_CHECK_MS);
    timer.unref();
  });
  return { orphaned, stop: () => clearInterval(timer) };
}
