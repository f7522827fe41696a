/**
 * The Python recipe (examples/python/test_reference_server.py, standard library only) run against
 * the built `imagegen-pricing serve`: python3 is required, and its absence fails with a clear message.
 * Its price history (examples/python/price-history.json) is checked as the package's own is.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { type Catalog, catalog, defineCatalogHistory, diffCatalogs } from "../../src/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { builtCli, ROOT } from "./builtCli.js";

const run = promisify(execFile);

let cli = "";
beforeAllOrFail(async () => {
  cli = await builtCli();
}, 320_000);

/** Quotes a word for Python's shlex.split, which the recipe uses to read IMAGEGEN_SERVE. */
const shellWord = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

/** The recipe's tests, each with the rules its docstring names. */
const RECIPE_TESTS = [
  "test_admin_user_generation_failure_and_refund",
  "test_cors_preflight_for_a_page_on_another_origin",
  "test_keys_and_admin_token_do_not_cross",
  "test_lost_answer_then_keyed_retry_is_charged_once",
  "test_price_change_crossed_with_the_test_clock",
];

describe("recipe: a Python test suite against imagegen-pricing serve", () => {
  it("S1, S4, S5, S6, S13, S17, P8: the recipe resets before each test, charges a hard-coded key and refunds a failed job, crosses a price change with the test clock, retries a lost answer charged once, reads the journal and passes a CORS preflight", {
    timeout: 180_000,
  }, async () => {
    try {
      await run("python3", ["--version"]);
    } catch {
      throw new Error(
        "python3 is not installed: the Python recipe (examples/python) needs it to run; install Python 3.8 or later.",
      );
    }
    // A token of this run, which the recipe hands to serve through its environment, never its command line.
    const adminToken = `recipe_${randomBytes(24).toString("base64url")}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      IMAGEGEN_SERVE: `${shellWord(process.execPath)} ${shellWord(cli)} serve`,
      IMAGEGEN_ADMIN_TOKEN: adminToken,
    };
    let output: string;
    try {
      const result = await run(
        "python3",
        ["-m", "unittest", "-v", "examples/python/test_reference_server.py"],
        {
          cwd: ROOT,
          env,
          timeout: 150_000,
        },
      );
      output = result.stdout + result.stderr;
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      throw new Error(`the Python recipe failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
    }
    // unittest prints its report on standard error.
    expect(output).toMatch(new RegExp(`Ran ${RECIPE_TESTS.length} tests in [\\d.]+s\\n\\nOK\\n`));
    for (const name of RECIPE_TESTS) {
      expect(output).toMatch(new RegExp(`^${name} \\(.*\\)\\n.* \\.\\.\\. ok$`, "m"));
    }
    expect(output).toContain("S17, S5: a lose_answer fault closes the connection after the charge");
    expect(output).toContain("S17, P8: the clock is set a second before a price change");
    expect(output).not.toContain(adminToken);
  });

  it("P8: the recipe's price history is the built-in catalog, then the same from 2100-01-01 with one price changed, valid by the catalog schema and defineCatalogHistory", async () => {
    const file = JSON.parse(readFileSync(`${ROOT}examples/python/price-history.json`, "utf8")) as {
      $schema: string;
      catalogs: Catalog[];
    };
    expect(file.$schema).toBe("../../data/catalog.schema.json");
    const { Ajv } = await import("ajv");
    // The calendar date behind `format: "date"` is defineCatalogHistory's to check, below.
    const validate = new Ajv({ allErrors: true, formats: { date: /^\d{4}-\d{2}-\d{2}$/ } }).compile(
      JSON.parse(readFileSync(`${ROOT}data/catalog.schema.json`, "utf8")),
    );
    expect(validate(file), JSON.stringify(validate.errors)).toBe(true);

    const [first, second] = defineCatalogHistory(file.catalogs);
    expect(file.catalogs).toHaveLength(2);
    expect(first).toEqual(catalog);
    expect(second?.version).toBe("2100-01-01");
    expect(diffCatalogs(catalog, second as Catalog)).toEqual([
      expect.objectContaining({
        kind: "price",
        modelId: "beta2",
        resolution: "4K",
        quality: "low",
        before: 120,
        after: 130,
      }),
    ]);
  });
});
