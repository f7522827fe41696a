/**
 * `imagegen-pricing playground`: the live price preview (docs/playground/ of the package) served on
 * this machine with the browser build of the core it loads (dist/playground/core.js, made by the
 * build and shipped in the package), so that the preview runs from an installed package.
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { parseOptions, wholeNumber } from "./args.js";
import { type CliIo, EXIT, StartError } from "./io.js";
import { packageRoot } from "./packageFiles.js";

/** `--help` text of `playground`. */
export const PLAYGROUND_HELP = `Usage: imagegen-pricing playground [options]

Serves the live price preview: a page that offers only what each model accepts and prices the
request as the service charges it, computed in the browser by the package's core. Open the
address it prints; Ctrl-C stops it.

Options:
      --port <n>          TCP port, 0 for a free one (default: 8788)
      --host <address>    address to listen on (default: 127.0.0.1, this machine only)
      --json              print the address as JSON: { "url": "http://..." }
  -h, --help              show this help

Exit status: 0 stopped by SIGINT or SIGTERM, 1 could not start (port in use, files missing),
2 bad arguments.
`;

/** The page's files in the package (docs/playground/), and the path each is served at. */
const PAGE_FILES: Record<string, string> = {
  "/": "index.html",
  "/index.html": "index.html",
  "/app.js": "app.js",
  "/fields.js": "fields.js",
};

/** A running preview server. */
export type Playground = {
  /** Its address, such as `http://127.0.0.1:8788/`. */
  url: string;
  /** Stops listening; resolves once it has. */
  close: () => Promise<void>;
};

/**
 * Serves the preview page, its scripts and the core's browser build at `/core.js`; nothing else
 * is reachable.
 *
 * @param options - `core`, the browser build of the core; `pageDir`, the folder of index.html,
 * app.js and fields.js; `port` (0 for a free one) and `host`.
 * @returns Its address and a way to stop it.
 */
export async function startPlayground(options: {
  core: string;
  pageDir: string;
  port: number;
  host: string;
}): Promise<Playground> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const headers = { "cache-control": "no-store", "x-content-type-options": "nosniff" };
    const script = { ...headers, "content-type": "text/javascript; charset=utf-8" };
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...headers, allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/core.js") {
      res.writeHead(200, script).end(options.core);
      return;
    }
    const file = Object.hasOwn(PAGE_FILES, path) ? PAGE_FILES[path] : undefined;
    // A page file gone from the package is a 404 too: the page then names the file it could not
    // load.
    const body =
      file === undefined
        ? undefined
        : await readFile(join(options.pageDir, file)).catch(() => undefined);
    if (file === undefined || body === undefined) {
      res
        .writeHead(404, { ...headers, "content-type": "text/plain; charset=utf-8" })
        .end("Not found\n");
      return;
    }
    const html = { ...headers, "content-type": "text/html; charset=utf-8" };
    res.writeHead(200, file.endsWith(".html") ? html : script).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/`,
    close: () =>
      new Promise((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}

/** The core's browser build in the package, or why the preview cannot start without it. */
async function readCore(root: string): Promise<string> {
  const path = join(root, "dist", "playground", "core.js");
  try {
    return await readFile(path, "utf8");
  } catch {
    throw new StartError(
      `Cannot serve the preview: ${path} is missing (in a clone, run "npm run build" first).`,
      EXIT.invalid,
    );
  }
}

/** How `playground` is stopped: by default SIGINT or SIGTERM; tests may pass a promise instead. */
export type PlaygroundControl = { stop?: Promise<unknown> };

/**
 * Runs `playground`: serves the preview until SIGINT or SIGTERM (or `control.stop`).
 *
 * @returns The exit code: 0 after a stop, 1 when it could not start, 2 for bad arguments.
 */
export async function runPlayground(
  args: string[],
  io: CliIo,
  control: PlaygroundControl = {},
): Promise<number> {
  const { values } = parseOptions({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string", default: "127.0.0.1" },
      json: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(PLAYGROUND_HELP);
    return EXIT.ok;
  }
  const port = values.port === undefined ? 8788 : wholeNumber("--port", values.port, 0);
  let playground: Playground;
  try {
    const root = packageRoot();
    const core = await readCore(root);
    const pageDir = join(root, "docs", "playground");
    playground = await startPlayground({ core, pageDir, port, host: values.host }).catch(
      (error: { code?: unknown; message?: unknown }) => {
        throw new StartError(
          error.code === "EADDRINUSE"
            ? `Port ${port} on ${values.host} is in use; choose another with --port (0 ` +
                "picks a free one)."
            : `Cannot listen on ${values.host}:${port}: ${String(error.message)}`,
          EXIT.invalid,
        );
      },
    );
  } catch (error) {
    if (error instanceof StartError) {
      io.err(`${error.message}\n`);
      return error.code;
    }
    throw error;
  }
  // Listening for the signals before the address is printed: a harness may stop it as soon as it
  // reads that.
  const stopped = control.stop ?? signal();
  io.out(
    values.json
      ? `${JSON.stringify({ url: playground.url })}\n`
      : `Live price preview: ${playground.url}\nOpen it in a browser; Ctrl-C stops the server.\n`,
  );
  await stopped;
  await playground.close();
  return EXIT.ok;
}

/** Resolves on the first SIGINT or SIGTERM, and stops listening for either. */
function signal(): Promise<void> {
  return new Promise((resolve) => {
    const on = () => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve();
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}
