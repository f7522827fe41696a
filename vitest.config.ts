import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/** What the PostgreSQL project runs: the store's own tests, and the server suites on that store. */
const postgresSuites = [
  "test/postgres/**/*.test.ts",
  "test/server/**/*.test.ts",
  "test/reliability/**/*.test.ts",
];

/**
 * What the fast loop leaves to `npm test`: a browser, a database, Python, dist/ or a child process
 * (the OpenAPI test formats the types it generates with biome, in a child process).
 */
const UNIT_EXCLUDES = [
  "test/postgres/**",
  "test/citus/**",
  "test/playground/**",
  "test/testdouble/**",
  "test/package/**",
  "test/cli/**",
  "test/server/openapi.test.ts",
  "test/conformance/reference.test.ts",
  "test/conformance/kit/cli.test.ts",
];

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
      { find: /^imagegen-pricing\/client$/, replacement: src("client/index.ts") },
      { find: /^imagegen-pricing\/conformance$/, replacement: src("conformance/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "examples/**/*.test.ts"],
    // A bound, not a speed check: vitest's default 5 s per test is too tight for a machine busy
    // with other work (child processes, a browser); a test that hangs still fails, after a minute.
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // fast-check prints its seed on failure; FC_SEED replays it, FC_RUNS raises the number of runs.
    setupFiles: ["test/setup.ts"],
    // One PostgreSQL cluster per run, started only when a test file asks for it.
    globalSetup: ["test/support/postgres.globalSetup.ts"],
    // Two runs: everything in memory, then the server suites again on PostgreSQL (one cluster for
    // the whole run, a fresh schema per test file; see test/server/helpers.ts).
    projects: [
      // The Citus tests run on their own cluster: npm run test:citus (vitest.citus.config.ts).
      {
        extends: true,
        test: {
          name: "memory",
          exclude: [...configDefaults.exclude, "test/postgres/**", "test/citus/**"],
        },
      },
      {
        // The fast loop (npm run test:unit): the memory project without what needs a browser, a
        // database, Python, the built package or a spawned process. npm test runs the memory and
        // postgres projects.
        extends: true,
        test: {
          name: "unit",
          exclude: [...configDefaults.exclude, ...UNIT_EXCLUDES],
          // A quarter of the properties' runs: npm test runs them all.
          env: { FC_RUNS: process.env.FC_RUNS ?? "25" },
          // One module graph per worker thread, not one per file: the core, the server, valibot and
          // fast-check load once per worker. The files share no state that one of them changes (a
          // server, a store or a catalog is made per test; a spied console is restored after each).
          pool: "threads",
          isolate: false,
        },
      },
      {
        // Not `extends: true`: that would add the root `include` to this one.
        test: {
          name: "postgres",
          include: postgresSuites,
          // These make no store of the suite's: the memory store's contract.
          exclude: [...configDefaults.exclude, "test/server/memoryStore.contract.test.ts"],
          setupFiles: ["test/setup.ts"],
          globalSetup: ["test/support/postgres.globalSetup.ts"],
          env: { IMAGEGEN_TEST_STORE: "postgres", FC_RUNS: process.env.FC_RUNS_POSTGRES ?? "25" },
          // Every request is a few round trips to a database shared by the run's files.
          testTimeout: 60_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
