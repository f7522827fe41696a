/**
 * `npm run playground`: serves the live price preview (docs/playground/) on loopback, with the
 * browser build of the core at /core.js, bundled in memory by esbuild when the server starts
 * (as size-limit bundles it for the core's budget, .size-limit.cjs; nothing is written to disk).
 *
 * Environment: PORT (default 8788), HOST (default 127.0.0.1).
 */
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const PAGE_DIR = new URL("../docs/playground/", import.meta.url);

/** The only paths served: the page, its scripts and the core bundle. Nothing else is reachable. */
const FILES: Record<string, { file: string; type: string }> = {
  "/": { file: "index.html", type: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", type: "text/javascript; charset=utf-8" },
  "/fields.js": { file: "fields.js", type: "text/javascript; charset=utf-8" },
};

/** A running playground server. */
export type Playground = { url: string; close: () => Promise<void> };

/**
 * Starts the playground server.
 *
 * @param options - `port` (0 picks a free one) and `host`.
 * @returns Its address and a way to stop it.
 */
export async function startPlayground(
  options: { port?: number; host?: string } = {},
): Promise<Playground> {
  const bundle = await build({
    entryPoints: [new URL("../src/index.ts", import.meta.url).pathname],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    legalComments: "none",
    write: false,
    logLevel: "silent",
  });
  const core = bundle.outputFiles[0]?.text;
  if (core === undefined) {
    throw new Error("esbuild wrote no bundle of src/index.ts");
  }
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    const headers = { "cache-control": "no-store", "x-content-type-options": "nosniff" };
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { ...headers, allow: "GET, HEAD" }).end();
      return;
    }
    if (path === "/core.js") {
      res
        .writeHead(200, { ...headers, "content-type": "text/javascript; charset=utf-8" })
        .end(core);
      return;
    }
    const entry = FILES[path];
    if (!entry) {
      res
        .writeHead(404, { ...headers, "content-type": "text/plain; charset=utf-8" })
        .end("Not found\n");
      return;
    }
    const body = await readFile(new URL(entry.file, PAGE_DIR));
    res.writeHead(200, { ...headers, "content-type": entry.type }).end(body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8788, options.host ?? "127.0.0.1", resolve);
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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const playground = await startPlayground({
    port: process.env.PORT === undefined ? 8788 : Number(process.env.PORT),
    host: process.env.HOST ?? "127.0.0.1",
  });
  console.log(`Live price preview: ${playground.url}  (Ctrl+C to stop)`);
  const stop = () => void playground.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
