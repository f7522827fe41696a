import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // fast-check prints its seed on failure; FC_SEED replays it, FC_RUNS raises the number of runs.
    setupFiles: ["test/setup.ts"],
    // One PostgreSQL cluster per run, started only when a test file asks for it.
    globalSetup: ["test/support/postgres.globalSetup.ts"],
  },
});
