/**
 * `imagegen-pricing serve`: the reference server as a process, for test suites in any language and
 * for trying the API by hand: fixtures, an admin token, an optional PostgreSQL store, a request log,
 * and a clean stop on SIGINT or SIGTERM, or when the process that started it ends.
 *
 * {@link runServe} tells one start in order; each step lives in a module of its own: the options
 * (serveOptions.ts), the fixtures and catalogs files (serveFiles.ts), the store (serveStore.ts), the
 * users it lists (serveUsers.ts), what it prints (serveOutput.ts), and the run until the stop
 * (serveRun.ts). Each refuses to start with a StartError (serveError.ts): one line and an exit code.
 */
import { safeEcho } from "../echo.js";
import type { RunningServer } from "../node/index.js";
import { createReferenceServer, FixturesError, type ResponseEvent } from "../server/index.js";
import type { Store } from "../store/store.js";
import { type CliIo, EXIT } from "./io.js";
import { oneLine, StartError } from "./serveError.js";
import { fixturesRefused, readStartFiles } from "./serveFiles.js";
import { readServeOptions } from "./serveOptions.js";
import { requestLine, startupSummary, stoppedLine } from "./serveOutput.js";
import { closeGracefully, listen, stopRequested } from "./serveRun.js";
import { openPostgresStore, usersInStore } from "./serveStore.js";
import { usersToShow } from "./serveUsers.js";

// Exported from here too: the command's tests and scripts/probe.ts read them as part of `serve`.
export { MAX_FIXTURES_FILE_BYTES } from "./serveFiles.js";
export { requestLine } from "./serveOutput.js";

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

/** How `serve` is stopped: by default SIGINT or SIGTERM; tests may pass a promise instead. */
export type ServeControl = {
  /** Resolves (to what stopped it, for the last line) when the server should stop. */
  stop?: Promise<string>;
  /** Where `DATABASE_URL` and `IMAGEGEN_ADMIN_TOKEN` are read (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
};

/**
 * Runs `serve`: starts the reference server and answers until SIGINT or SIGTERM (or `control.stop`).
 *
 * @param args - The arguments after `serve`.
 * @param io - Where to write and how to read the fixtures file.
 * @param control - How it is stopped (default: SIGINT or SIGTERM).
 * @returns The exit code: 0 after a clean stop, 1 when it could not start, 2 for bad options or fixtures.
 */
export async function runServe(args: string[], io: CliIo, control: ServeControl = {}): Promise<number> {
  // Held out here so that a start that fails half-way still closes what it opened.
  let store: Store | undefined;
  let running: RunningServer | undefined;
  try {
    // 1. The options, from the arguments and the environment; nothing is opened before they are right.
    const options = readServeOptions(args, control.env ?? process.env, (line) => io.err(`${line}\n`));
    if (options === "help") {
      io.out(SERVE_HELP);
      return EXIT.ok;
    }
    // 2. The fixtures and catalogs files, checked before any database work: a bad file is refused whole.
    const files = await readStartFiles(options);
    // 3. The store: in memory, or PostgreSQL, where the fixture users an earlier start loaded are kept.
    if (options.databaseUrl !== undefined) store = await openPostgresStore(options.databaseUrl, options.schema);
    const found = await usersInStore(store, files.users);

    // 4. The reference server over that store, with the request log of --log.
    const write = (line: string) => io.out(`${line}\n`);
    const log = options.log ? { onResponse: (event: ResponseEvent) => write(requestLine(event, options.json)) } : {};
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
      if (error instanceof FixturesError) throw fixturesRefused(options.fixtures, error);
      if ((error as Error | undefined)?.name === "StoreUnavailableError") {
        throw new StartError(`Cannot use the database: ${oneLine((error as Error).message)}`, 1);
      }
      throw error;
    }

    // 5. The users to list: a demo user made now, or the fixture users as the store has them.
    const demo = options.fixtures === undefined && options.adminToken === undefined;
    const { users, counts } = await usersToShow(server, { demo, fixtureUsers: files.users, found });
    // 6. Listening, then the start-up summary, whose first line is the URL.
    running = await listen(server, options, log);
    io.out(startupSummary({ running, options, catalogs: files.catalogs, users, counts, demo }));

    // 7. Serving until a signal (or the parent's end), then the close and the last line.
    const stoppedBy = await stopRequested(control.stop);
    await closeGracefully(running);
    running = undefined;
    await store?.close();
    store = undefined;
    write(stoppedLine(stoppedBy, options.json));
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
