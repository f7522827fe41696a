import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.js";
import { capabilities, catalog, computeCharge, normalizeRequest, quote } from "../../src/index.js";

/** Runs the CLI in-process with fake streams and an in-memory file system. */
async function cli(argv: string[], files: Record<string, string> = {}, stdin = "") {
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
      const text = files[path];
      if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      return text;
    },
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

const root = new URL("../../", import.meta.url).pathname;
const exec = promisify(execFile);

/** Runs the real program (src/cli/bin.ts through tsx), with standard input. */
async function spawnCli(args: string[], stdin: string) {
  const child = exec(process.execPath, ["--import", "tsx", `${root}src/cli/bin.ts`, ...args], { cwd: root });
  child.child.stdin?.end(stdin);
  try {
    const { stdout, stderr } = await child;
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("imagegen-pricing quote", () => {
  it("P4: prints the price of the issue's example and its breakdown", async () => {
    const r = await cli([
      "quote",
      "--model",
      "beta2",
      "--resolution",
      "4K",
      "--quality",
      "low",
      "--refs",
      "0",
      "--multiplier",
      "1.15",
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("beta2, 4K, quality low: 138 credits per image");
    expect(r.stdout).toMatch(/base price\s+120/);
    expect(r.stdout).toMatch(/x multiplier 1\.15\s+138/);
  });

  it("P7: --json prints exactly what quote() returns, plus the total for --images", async () => {
    const args = ["--model", " alpha-img2-5-flare ", "-r", "4K", "-q", "high", "--refs", "3", "--multiplier", "2.3"];
    const r = await cli(["quote", ...args, "--json", "-n", "4"]);
    expect(r.code).toBe(0);
    const expected = quote(
      { kind: "image", modelId: " alpha-img2-5-flare ", resolution: "4K", quality: "high", referenceImageCount: 3 },
      { multiplier: "2.3" },
    );
    expect(JSON.parse(r.stdout)).toEqual({ ...expected, imageCount: 4, totalCredits: 4 * (expected.credits ?? Number.NaN) });
    // (750 + 30) x 2.3 = 1794
    expect(expected.credits).toBe(1794);
  });

  it("P3: shows the reference surcharge on a quality model", async () => {
    const r = await cli(["quote", "--model", "alpha-img2-official", "--refs", "2"]);
    expect(r.stdout).toMatch(/reference surcharge\s+20\s+\(2 references x 10\)/);
    expect(r.stdout).toContain("38 credits per image");
  });

  it("P2: an unpriceable spec exits 1 with the reason, and --json prints credits: null", async () => {
    const r = await cli(["quote", "--model", "alpha-img2", "--resolution", "4K"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Not priceable: .*\[unsupported_resolution\]\n$/);
    const j = await cli(["quote", "--model", "gamma-image-1.5", "--refs", "2", "--json"]);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ credits: null, reason: "too_many_references" });
    const m = await cli(["quote", "--model", "beta", "--multiplier", "1e3"]);
    expect(m.code).toBe(1);
    expect(m.stderr).toContain("[invalid_multiplier]");
  });

  it("bad arguments exit 2 with a message and a pointer to --help", async () => {
    for (const argv of [
      ["quote"],
      ["quote", "--model"],
      ["quote", "--modle", "beta2"],
      ["quote", "--model", "beta2", "--refs", "two"],
      ["quote", "--model", "beta2", "--refs", "-1"],
      ["quote", "--model", "beta2", "--images", "0"],
      ["quote", "--model", "beta2", "extra"],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stdout, argv.join(" ")).toBe("");
      expect(r.stderr, argv.join(" ")).toContain('Run "imagegen-pricing quote --help" for usage.');
    }
  });
});

describe("imagegen-pricing check", () => {
  const body = {
    prompt: "  a red fox ",
    modelId: "alpha-img2-official",
    generationType: "image-to-image",
    inputAssetIds: ["a", " a", "b"],
    imageCount: 3,
  };

  it("P5, P6: a valid body prints the charge: per image, total, breakdown (references de-duplicated)", async () => {
    const r = await cli(["check", "req.json", "--multiplier", "1.15"], { "req.json": JSON.stringify(body) });
    expect(r.code).toBe(0);
    // (18 + 2 x 10) x 1.15 = 43.7 -> 44 per image; 3 images
    expect(r.stdout).toContain("Valid. alpha-img2-official, image-to-image, 9:16, 2K, quality low, background auto");
    expect(r.stdout).toContain("44 credits per image x 3 = 132 credits");
  });

  it("--json prints the normalized request and computeCharge's result", async () => {
    const r = await cli(["check", "req.json", "--json", "--refs", "1"], { "req.json": JSON.stringify(body) });
    const normalized = normalizeRequest(body);
    if (!normalized.success) throw new Error("fixture");
    expect(JSON.parse(r.stdout)).toEqual({
      valid: true,
      request: normalized.output,
      charge: computeCharge(normalized.output, { referenceCount: 1 }),
    });
  });

  it("N15: an invalid body exits 1 and prints every issue", async () => {
    const bad = { prompt: " ", modelId: "beta2", quality: "xhigh", cost: 1 };
    const r = await cli(["check", "-", "--json"], {}, JSON.stringify(bad));
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { valid: boolean; issues: { path: string; code: string }[] };
    expect(out.valid).toBe(false);
    expect(out.issues.map((i) => `${i.path}:${i.code}`).sort()).toEqual([
      "cost:unknown_field",
      "prompt:too_short",
      "quality:invalid_option",
    ]);
    const text = await cli(["check", "-"], {}, JSON.stringify(bad));
    expect(text.stdout).toMatch(/^Invalid: 3 issues\n/);
    expect(text.stdout).toContain("[unknown_field]");
  });

  it("V1: a body that normalizes but breaks the model's limits exits 1", async () => {
    const r = await cli(["check", "-"], {}, JSON.stringify({ prompt: "x", modelId: "gamma-image-1.5", aspectRatio: "4:3" }));
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[unsupported_aspect_ratio]");
  });

  it("P6: --refs above the distinct references listed is an issue (exit 1)", async () => {
    const r = await cli(["check", "req.json", "--refs", "3"], { "req.json": JSON.stringify(body) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[invalid_reference_count]");
  });

  it("N1: text that is not JSON is an invalid body (exit 1, code invalid_json)", async () => {
    const r = await cli(["check", "-", "--json"], {}, "{ nope");
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout).issues[0]).toMatchObject({ path: "", code: "invalid_json" });
  });

  it("bad arguments and unreadable files exit 2", async () => {
    for (const argv of [
      ["check"],
      ["check", "a.json", "b.json"],
      ["check", "missing.json"],
      ["check", "-", "--multiplier", "abc"],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toContain("imagegen-pricing check --help");
    }
  });

  it("reads standard input as a real process and sets the exit code", { timeout: 30_000 }, async () => {
    const ok = await spawnCli(["check", "-"], JSON.stringify({ prompt: "fox", modelId: "beta", imageCount: 2 }));
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("25 credits per image x 2 = 50 credits");
    const bad = await spawnCli(["check", "-"], JSON.stringify({ prompt: "fox", modelId: "nope" }));
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain("[unknown_model]");
    const usage = await spawnCli(["frobnicate"], "");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Unknown command "frobnicate"');
  });
});

describe("imagegen-pricing models", () => {
  it("V7: prints one row per catalog model with its capabilities", async () => {
    const r = await cli(["models"]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split("\n");
    for (const id of Object.keys(catalog.models)) {
      const row = rows.find((line) => line.startsWith(`${id} `));
      const caps = capabilities(id);
      if (!row || !caps) throw new Error(`no row for ${id}`);
      expect(row).toContain(caps.qualities.map((q) => (q === "low" ? "low*" : q)).join(","));
      expect(row.split(/\s{2,}/)).toContain(String(caps.maxImageCount));
    }
    expect(rows.find((line) => line.startsWith("alpha-img2 "))).toContain("1K (no default)");
    expect(rows.find((line) => line.startsWith("gamma-image-1.5 "))).toContain("1:1,16:9,9:16*,3:2,2:3");
  });

  it("--json prints capabilities() of every model", async () => {
    const r = await cli(["models", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual(Object.keys(catalog.models).map((id) => capabilities(id)));
  });
});

describe("imagegen-pricing help and schema", () => {
  it("--help, help <command> and <command> --help print usage and exit 0", async () => {
    for (const argv of [
      ["--help"],
      ["-h"],
      ["help"],
      ["help", "quote"],
      ["quote", "--help"],
      ["check", "-h"],
      ["models", "--help"],
    ]) {
      const r = await cli(argv);
      expect(r.code, argv.join(" ")).toBe(0);
      expect(r.stdout, argv.join(" ")).toMatch(/^Usage: imagegen-pricing/);
    }
  });

  it("no command prints usage to stderr and exits 2; an unknown command exits 2", async () => {
    const none = await cli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^Usage:/);
    expect((await cli(["price"])).code).toBe(2);
  });

  it("schema prints the request JSON Schema, or one model's with --model", async () => {
    const all = JSON.parse((await cli(["schema"])).stdout);
    expect(all.properties.modelId.enum).toEqual(Object.keys(catalog.models));
    const gamma = JSON.parse((await cli(["schema", "--model", "gamma-image-1.5"])).stdout);
    expect(gamma.properties.imageCount.maximum).toBe(10);
    expect((await cli(["schema", "--model", "nope"])).code).toBe(2);
  });
});
