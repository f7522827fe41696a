/**
 * `npm run playground`: the live price preview from the sources, served as
 * `imagegen-pricing playground` serves it from the package, with the core bundled from src/index.ts
 * in memory by esbuild when the server starts (nothing is written to disk, no build is needed).
 *
 * Environment: PORT (default 8788), HOST (default 127.0.0.1).
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { type Playground, startPlayground } from "../src/cli/playground.js";

export type { Playground };

/**
 * Starts the preview server on the sources.
 *
 * @param options - `port` (default 8788; 0 picks a free one) and `host` (default 127.0.0.1).
 * @returns Its address and a way to stop it.
 */
export async function startSourcePlayground(
  options: { port?: number; host?: string } = {},
): Promise<Playground> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
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
  return startPlayground({
    core,
    pageDir: fileURLToPath(new URL("../docs/playground/", import.meta.url)),
    port: options.port ?? 8788,
    host: options.host ?? "127.0.0.1",
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const playground = await startSourcePlayground({
    port: process.env.PORT === undefined ? 8788 : Number(process.env.PORT),
    host: process.env.HOST ?? "127.0.0.1",
  });
  console.log(`Live price preview: ${playground.url}  (Ctrl+C to stop)`);
  const stop = () => void playground.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
