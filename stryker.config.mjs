/**
 * Mutation testing of the core (npm run test:mutation): the catalog, the request rules, pricing and
 * the messages. Not the server, node, CLI or testing entries. See docs/testing.md for the score and
 * the surviving mutants.
 *
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts" },
  mutate: [
    "src/models/**/*.ts",
    "src/request/**/*.ts",
    "src/pricing/**/*.ts",
    "src/messages.ts",
    "src/echo.ts",
  ],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 30000,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  thresholds: { high: 95, low: 90, break: 90 },
  // Results are kept between runs: a re-run tests again only the mutants whose code or covering tests
  // changed (--force runs every mutant).
  incremental: true,
  incrementalFile: "test/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
};
