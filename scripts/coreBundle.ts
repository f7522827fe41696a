/**
 * The core entry bundled the way a browser app would ship it: esbuild, platform "browser", every
 * dependency included, minified, then gzip (level 9). Used by `npm run size`, by the size test and
 * by the price preview page (`npm run playground`).
 */
import { gzipSync } from "node:zlib";
import { build, type Metafile } from "esbuild";

/** The most the core entry may weigh in a browser, minified and gzipped: what a price preview can afford to ship. */
export const CORE_BUDGET_BYTES = 18 * 1024;

/** A browser bundle of the core entry and what it weighs. */
export type CoreBundle = {
  /** The bundle, an ES module. */
  code: string;
  /** Minified size in bytes. */
  bytes: number;
  /** Gzipped (level 9) size in bytes. */
  gzipBytes: number;
  /** Every file esbuild read, relative to the project (`node_modules/valibot/...`, `src/...`). */
  inputs: string[];
  /** esbuild's build facts, for `--analyze`-style breakdowns. */
  metafile: Metafile;
};

/**
 * Bundles `src/index.ts` for a browser. With platform "browser", esbuild cannot resolve `node:*`
 * modules, so a core that imported one would fail here, not in someone's web app.
 *
 * @param options - `minify` (default true).
 * @returns The bundle, its sizes and its inputs.
 */
export async function bundleCore(options: { minify?: boolean } = {}): Promise<CoreBundle> {
  const result = await build({
    entryPoints: [new URL("../src/index.ts", import.meta.url).pathname],
    absWorkingDir: new URL("..", import.meta.url).pathname,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: options.minify ?? true,
    legalComments: "none",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild wrote no output for src/index.ts");
  return {
    code: file.text,
    bytes: file.contents.byteLength,
    gzipBytes: gzipSync(file.contents, { level: 9 }).byteLength,
    inputs: Object.keys(result.metafile.inputs),
    metafile: result.metafile,
  };
}
