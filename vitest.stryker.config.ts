import { defineConfig } from "vitest/config";

/**
 * The vitest run Stryker uses (npm run test:mutation): only the tests of the core (catalog, request,
 * pricing, messages), not the server, CLI or packaging tests, which do not judge the core's mutants
 * and would only slow every run down.
 */
export default defineConfig({
  test: {
    include: [
      "test/models/**/*.test.ts",
      "test/request/**/*.test.ts",
      "test/pricing/**/*.test.ts",
      "test/messages.test.ts",
      "test/golden.test.ts",
      "test/properties/**/*.test.ts",
    ],
    setupFiles: ["test/setup.ts"],
    // Every case runs instrumented, once per mutant: the P4 grids take a smaller set of multipliers,
    // and each test's own time limit is only a backstop, since Stryker times every mutant itself.
    env: { STRYKER: "1" },
    testTimeout: 60_000,
  },
});
