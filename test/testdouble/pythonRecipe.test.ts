/**
 * The Python recipe (examples/python/test_reference_server.py, standard library only) run against
 * the built `imagegen-pricing serve`: python3 is required, and its absence fails with a clear message.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { builtCli, ROOT } from "./builtCli.js";

const run = promisify(execFile);

let cli = "";
beforeAllOrFail(async () => {
  cli = await builtCli();
}, 320_000);

/** Quotes a word for Python's shlex.split, which the recipe uses to read IMAGEGEN_SERVE. */
const shellWord = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

describe("recipe: a Python test suite against imagegen-pricing serve", () => {
  it("S4, S6, S13: the recipe creates a user over the admin API, charges a hard-coded key, fails a job and sees the refund", {
    timeout: 180_000,
  }, async () => {
    try {
      await run("python3", ["--version"]);
    } catch {
      throw new Error(
        "python3 is not installed: the Python recipe (examples/python) needs it to run; install Python 3.8 or later.",
      );
    }
    let output: string;
    try {
      const result = await run("python3", ["-m", "unittest", "-v", "examples/python/test_reference_server.py"], {
        cwd: ROOT,
        env: { ...process.env, IMAGEGEN_SERVE: `${shellWord(process.execPath)} ${shellWord(cli)} serve` },
        timeout: 150_000,
      });
      output = result.stdout + result.stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      throw new Error(`the Python recipe failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    }
    // unittest prints its report on standard error.
    expect(output).toMatch(/Ran 2 tests in [\d.]+s\n\nOK\n/);
    expect(output).toContain("test_admin_user_generation_failure_and_refund");
    expect(output).toContain("test_keys_and_admin_token_do_not_cross");
  });
});
