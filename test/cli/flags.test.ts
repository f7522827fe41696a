/**
 * The command line as people expect it: --version, an unknown option or command answered with the
 * nearest known one, a flag's error naming the flag and why its bound is what it is, and the start
 * errors of `serve` saying what to set.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nearestNames } from "../../src/cli/args.js";
import { run } from "../../src/cli/run.js";
import { runServe } from "../../src/cli/serve.js";

const root = new URL("../../", import.meta.url).pathname;
const version = (
  JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }
).version;

/** Runs the command line in-process, with a body on standard input. */
async function cli(argv: string[], stdin = "") {
  let stdout = "";
  let stderr = "";
  const code = await run(argv, {
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    readFile: async (path) => {
      throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    },
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

/** Runs `serve` in-process with its own environment; every case here stops before listening. */
async function serveFails(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runServe(
    args,
    {
      out: (s) => {
        stdout += s;
      },
      err: (s) => {
        stderr += s;
      },
      readFile: async () => "",
      readStdin: async () => "",
    },
    // Were it to start, it would stop at once and exit 0, which every case here refuses.
    { env, stop: Promise.resolve("the test") },
  );
  return { code, stdout, stderr };
}

describe("--version", () => {
  it("--version and -v print the package's version and exit 0", async () => {
    for (const flag of ["--version", "-v"]) {
      expect(await cli([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
    }
  });
});

describe("a mistyped option or command", () => {
  it("an unknown option names the nearest one: --res is --resolution, --modle is --model", async () => {
    const res = await cli(["quote", "--model", "beta2", "--res", "4K"]);
    expect(res.code).toBe(2);
    expect(res.stdout).toBe("");
    expect(res.stderr).toBe(
      'Unknown option --res; did you mean --resolution?\nRun "imagegen-pricing quote --help" for usage.\n',
    );
    const swapped = await cli(["check", "-", "--multipler", "1.15"], "{}");
    expect(swapped.stderr).toContain("Unknown option --multipler; did you mean --multiplier?");
    const schema = await cli(["schema", "--modle", "beta2"]);
    expect(schema.stderr).toContain("Unknown option --modle; did you mean --model?");
  });

  it("an option near none lists the command's options", async () => {
    const r = await cli(["models", "--zzzz"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Unknown option --zzzz; the options are --at, --json, --help.");
  });

  it("an option begun by several names them all; parseArgs' other errors stay one sentence", async () => {
    expect(nearestNames("re", ["model", "resolution", "refs"])).toEqual(["resolution", "refs"]);
    expect(nearestNames("x", ["at", "json"])).toEqual([]);
    const extra = await cli(["quote", "--model", "beta2", "extra"]);
    expect(extra.stderr).toBe(
      "Unexpected argument 'extra'. This command does not take positional arguments.\n" +
        'Run "imagegen-pricing quote --help" for usage.\n',
    );
  });

  it("an unknown command names the nearest one", async () => {
    const r = await cli(["serv"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^Unknown command "serv"\. Did you mean serve\? Commands: quote, /);
  });
});

describe("a flag's bound, in the flag's name and with its reason", () => {
  const body = JSON.stringify({
    prompt: "a harbour",
    modelId: "alpha-img2-official",
    generationType: "image-to-image",
    inputAssetIds: ["ast_a", "ast_b", " ast_a"],
  });

  it("P6: check --refs above the body's distinct references names --refs and the 2 references the body lists", async () => {
    const r = await cli(["check", "-", "--refs", "5"], body);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      "Invalid: 1 issue\n  --refs: 5 is more than the 2 distinct reference images the body lists in inputAssetIds: a charge counts only the references the request carries, so --refs may be 0 to 2. [invalid_reference_count]\n",
    );
    const json = await cli(["check", "-", "--refs", "5", "--json"], body);
    expect(JSON.parse(json.stdout)).toMatchObject({
      valid: false,
      issues: [{ path: "--refs", code: "invalid_reference_count" }],
    });
  });

  it("P2, V6: quote --refs names --refs and why: 14 for any request, 1 for gamma-image-1.5", async () => {
    const any = await cli(["quote", "--model", "beta2", "--refs", "15"]);
    expect(any.code).toBe(1);
    expect(any.stderr).toBe(
      "Not priceable: --refs must be a whole number from 0 to 14; received 15. 14 is the most distinct reference images a request may list. [invalid_reference_count]\n",
    );
    const gamma = await cli(["quote", "--model", "gamma-image-1.5", "--refs", "3"]);
    expect(gamma.stderr).toBe(
      "Not priceable: --refs may be at most 1 for gamma-image-1.5; received 3. That is the most reference images this model takes. [too_many_references]\n",
    );
    const model = await cli(["quote", "--model", "nope"]);
    expect(model.stderr).toMatch(
      /^Not priceable: --model "nope" is not a known model; use one of /,
    );
  });
});

describe("serve's start errors say what to set", () => {
  it('an empty --admin-token (an unset "$ADMIN_TOKEN") says it is the option that is empty, and what would pass', async () => {
    const r = await serveFails(["--port", "0", "--admin-token", ""]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      '--admin-token is empty (as "$ADMIN_TOKEN" is when that shell variable is unset): give a token of 16 to 256 characters of A-Z, a-z, 0-9, _ and -, or leave --admin-token out.\n',
    );
  });

  it("a bad IMAGEGEN_ADMIN_TOKEN is named as the variable it came from", async () => {
    const r = await serveFails(["--port", "0"], { IMAGEGEN_ADMIN_TOKEN: "short" });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^IMAGEGEN_ADMIN_TOKEN: the token must be 16 to 256 characters/);
    expect(r.stderr).not.toContain("short");
  });

  it("S1: a fixtures file that does not exist names the example the package ships, which exists", async () => {
    const r = await serveFails(["--port", "0", "--fixtures", "fixtures.json"]);
    expect(r.code).toBe(2);
    const example = /The package ships an example to start from: (\S+)\n$/.exec(r.stderr)?.[1];
    expect(r.stderr).toMatch(/^Cannot read the fixtures file fixtures\.json: ENOENT: /);
    expect(example).toBe("examples/fixtures.json");
    expect(existsSync(join(process.cwd(), example as string))).toBe(true);
  });
});
