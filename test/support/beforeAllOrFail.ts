/**
 * A file's (or a describe block's) setup that fails its tests when it cannot run. With a plain
 * `beforeAll`, a setup that throws (no Chromium, no PostgreSQL, a build that fails) leaves vitest
 * reporting every test of the block as skipped; here each test fails with the setup's error, which
 * says what to install.
 */
import { beforeAll, beforeEach } from "vitest";

/**
 * Registers `setup` to run once before the tests of the enclosing file or describe block, like
 * `beforeAll`; when it throws, every one of those tests fails with its error instead of being
 * reported as skipped.
 *
 * @param setup - The setup; its error should say what is missing and how to install it.
 * @param timeoutMs - How long the setup may take (a bound against a hang, not a speed check).
 * @returns Nothing: the hooks are registered.
 */
export function beforeAllOrFail(setup: () => unknown, timeoutMs?: number): void {
  let failure: { error: unknown } | undefined;
  beforeAll(async () => {
    try {
      await setup();
    } catch (error) {
      failure = { error };
    }
  }, timeoutMs);
  beforeEach(() => {
    if (failure) {
      throw failure.error;
    }
  });
}
