import { defineConfig } from "tsup";

/**
 * One entry per code subpath export of package.json (`.`, `./server`, `./node`, `./testing`,
 * `./json-schema`, `./postgres`, `./client`, `./conformance`). Each is built to ESM (`.js`) and
 * CJS (`.cjs`) with its own `.d.ts` / `.d.cts`, so both module systems get matching types.
 */
const library = {
  index: "src/index.ts",
  "server/index": "src/server/index.ts",
  "node/index": "src/node/index.ts",
  "testing/index": "src/testing/index.ts",
  "json-schema/index": "src/jsonSchema.ts",
  "postgres/index": "src/postgres/index.ts",
  "client/index": "src/client/index.ts",
  "conformance/index": "src/conformance/index.ts",
};

export default defineConfig([
  {
    entry: library,
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: false, // the build script empties dist/ first: the two builds run at once
    target: "es2022",
    treeshake: true,
    // src/testing/fastCheck.ts and src/postgres/pg.ts load their optional peer (fast-check, pg) with a
    // top-level await in the ES build and `require` in the CommonJS one, which has no top-level await;
    // esbuild drops the dead ES branch only when it simplifies syntax.
    esbuildOptions(options, { format }) {
      if (format === "cjs") {
        options.minifySyntax = true;
      }
    },
  },
  {
    // The command-line tool: ESM only, no types; tsup keeps the shebang and marks the file executable.
    entry: { cli: "src/cli/bin.ts" },
    format: ["esm"],
    dts: false,
    sourcemap: false,
    clean: false,
    target: "node20",
    platform: "node",
  },
]);
