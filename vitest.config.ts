import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // The examples import the package by its name, as a user's code does; here that name is the source.
    alias: [
      { find: /^imagegen-pricing$/, replacement: src("index.ts") },
      { find: /^imagegen-pricing\/server$/, replacement: src("server/index.ts") },
      { find: /^imagegen-pricing\/node$/, replacement: src("node/index.ts") },
      { find: /^imagegen-pricing\/testing$/, replacement: src("testing/index.ts") },
      { find: /^imagegen-pricing\/json-schema$/, replacement: src("jsonSchema.ts") },
      { find: /^imagegen-pricing\/postgres$/, replacement: src("postgres/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    // fast-check prints its seed on failure; FC_SEED replays it, FC_RUNS raises the number of runs.
    setupFiles: ["test/setup.ts"],
    // One PostgreSQL cluster per run, started only when a test file asks for it.
    globalSetup: ["test/support/postgres.globalSetup.ts"],
  },
});
