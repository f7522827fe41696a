import { configDefaults, defineConfig } from "vitest/config";

/**
 * `npm run test:citus`: the PostgreSQL store on a real Citus cluster (a coordinator and two workers,
 * test/support/citusCluster.ts, Citus built from vendor/citus by scripts/citus.sh), with the schema
 * laid out distributed (`distributed: true`). It runs the store's contract, the two-instance tests
 * of test/postgres as they are (their stores take `storeLayout()`), and the checks of the layout
 * itself. Not part of `npm test`: the first run builds Citus (minutes); CI runs it after `npm test`.
 */
export default defineConfig({
  test: {
    name: "citus",
    include: [
      "test/citus/**/*.test.ts",
      "test/postgres/contract.test.ts",
      "test/postgres/instances.test.ts",
      "test/postgres/multiInstance.test.ts",
      "test/postgres/crash.test.ts",
    ],
    exclude: [...configDefaults.exclude],
    setupFiles: ["test/setup.ts"],
    globalSetup: ["test/citus/citus.globalSetup.ts"],
    env: { IMAGEGEN_TEST_CITUS: "1", FC_RUNS: process.env.FC_RUNS_POSTGRES ?? "25" },
    // One file at a time: three servers and two instances already share the machine's cores.
    fileParallelism: false,
    // Bounds, not speed checks: the first run builds Citus (minutes) before the cluster starts.
    testTimeout: 120_000,
    hookTimeout: 45 * 60_000,
  },
});
