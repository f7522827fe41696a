import { configDefaults, defineConfig } from "vitest/config";

/** What the PostgreSQL project runs: the store's own tests, and the server suites on that store. */
const postgresSuites = ["test/postgres/**/*.test.ts", "test/server/**/*.test.ts", "test/reliability/**/*.test.ts"];

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // fast-check prints its seed on failure; FC_SEED replays it, FC_RUNS raises the number of runs.
    setupFiles: ["test/setup.ts"],
    // One PostgreSQL cluster per run, started only when a test file asks for it.
    globalSetup: ["test/support/postgres.globalSetup.ts"],
    // Two runs: everything in memory, then the server suites again on PostgreSQL (one cluster for
    // the whole run, a fresh schema per test file; see test/server/helpers.ts).
    projects: [
      { extends: true, test: { name: "memory", exclude: [...configDefaults.exclude, "test/postgres/**"] } },
      {
        // Not `extends: true`: that would add the root `include` to this one.
        test: {
          name: "postgres",
          include: postgresSuites,
          // These two make no store of the suite's: the memory store's contract, and `npm start`.
          exclude: [...configDefaults.exclude, "test/server/memoryStore.contract.test.ts", "test/server/start.test.ts"],
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
