import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { MODELS_WIDTH } from "../../src/cli/models.js";
import { run } from "../../src/cli/run.js";
import {
  type Catalog,
  capabilities,
  catalog,
  computeCharge,
  diffCatalogs,
  normalizeRequest,
  quote,
} from "../../src/index.js";

/** Runs the CLI in-process with fake streams, an in-memory file system and, optionally, a history and clock. */
async function cli(
  argv: string[],
  files: Record<string, string> = {},
  stdin = "",
  extra: Pick<CliIo, "history" | "now"> = {},
) {
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
      if (text === undefined) {
        throw new Error(`ENOENT: no such file or directory, open '${path}'`);
      }
      return text;
    },
    readStdin: async () => stdin,
    ...extra,
  });
  return { code, stdout, stderr };
}

const root = new URL("../../", import.meta.url).pathname;
const exec = promisify(execFile);

/** Runs the real program (src/cli/bin.ts through tsx), with standard input. */
async function spawnCli(args: string[], stdin: string) {
  const child = exec(process.execPath, ["--import", "tsx", `${root}src/cli/bin.ts`, ...args], {
    cwd: root,
  });
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
  it("P4: prints the price of the worked example (beta2, 4K, multiplier 1.15) and its breakdown", async () => {
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
    const args = [
      "--model",
      " alpha-img2-5-flare ",
      "-r",
      "4K",
      "-q",
      "high",
      "--refs",
      "3",
      "--multiplier",
      "2.3",
    ];
    const r = await cli(["quote", ...args, "--json", "-n", "4"]);
    expect(r.code).toBe(0);
    const expected = quote(
      {
        kind: "image",
        modelId: " alpha-img2-5-flare ",
        resolution: "4K",
        quality: "high",
        referenceImageCount: 3,
      },
      { account: { multiplier: "2.3" } },
    );
    expect(JSON.parse(r.stdout)).toEqual({
      ...expected,
      imageCount: 4,
      totalCredits: 4 * (expected.credits ?? Number.NaN),
    });
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
  });

  it("P4: a multiplier that is not one exits 2, as in check, naming the option and the form that passes", async () => {
    for (const multiplier of ["1e3", "1,5", "1001"]) {
      const m = await cli(["quote", "--model", "beta", "--multiplier", multiplier]);
      expect(m.code, multiplier).toBe(2);
      expect(m.stdout).toBe("");
      expect(m.stderr).toContain(
        "--multiplier must be a plain decimal from 0 to 1000, such as 1.15;",
      );
      expect(m.stderr).toContain(`received "${multiplier}"`);
      expect(m.stderr).toContain('Run "imagegen-pricing quote --help" for usage.');
    }
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
    const r = await cli(["check", "req.json", "--multiplier", "1.15"], {
      "req.json": JSON.stringify(body),
    });
    expect(r.code).toBe(0);
    // (18 + 2 x 10) x 1.15 = 43.7 -> 44 per image; 3 images
    expect(r.stdout).toContain(
      "Valid. alpha-img2-official, image-to-image, 9:16, 2K, quality low, background auto",
    );
    expect(r.stdout).toContain("44 credits per image x 3 = 132 credits");
  });

  it("--json prints the normalized request and computeCharge's result", async () => {
    const r = await cli(["check", "req.json", "--json", "--refs", "1"], {
      "req.json": JSON.stringify(body),
    });
    const normalized = normalizeRequest(body);
    if (!normalized.success) {
      throw new Error("fixture");
    }
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
    const out = JSON.parse(r.stdout) as {
      valid: boolean;
      issues: { path: string; code: string }[];
    };
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
    const r = await cli(
      ["check", "-"],
      {},
      JSON.stringify({ prompt: "x", modelId: "gamma-image-1.5", aspectRatio: "4:3" }),
    );
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[unsupported_aspect_ratio]");
  });

  it("P6: --refs above the distinct references listed is an issue (exit 1)", async () => {
    const r = await cli(["check", "req.json", "--refs", "3"], { "req.json": JSON.stringify(body) });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("[invalid_reference_count]");
  });

  it("a file or standard input that is not JSON is a bad file: exit 2, one line naming it and where the JSON breaks", async () => {
    for (const [argv, files, stdin, name] of [
      [["check", "req.json"], { "req.json": '{"prompt": "fox",' }, "", "req.json"],
      [["check", "req.json", "--json"], { "req.json": "" }, "", "req.json"],
      [["check", "-", "--json"], {}, "{ nope", "Standard input"],
    ] as const) {
      const r = await cli([...argv], { ...files }, stdin);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stdout, argv.join(" ")).toBe("");
      expect(r.stderr, argv.join(" ")).toMatch(
        new RegExp(`^${name} is not valid JSON: \\S[^\\n]*\\n$`),
      );
    }
    // Valid JSON that is not an object is a request with an issue (N1), not a bad file.
    const array = await cli(["check", "-", "--json"], {}, "[]");
    expect(array.code).toBe(1);
    expect(JSON.parse(array.stdout).issues[0]).toMatchObject({ path: "", code: "invalid_type" });
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

  it("reads standard input as a real process and sets the exit code", {
    timeout: 60_000,
  }, async () => {
    const ok = await spawnCli(
      ["check", "-"],
      JSON.stringify({ prompt: "fox", modelId: "beta", imageCount: 2 }),
    );
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
  it("V7: prints one row per catalog model in each of its two tables, with its capabilities", async () => {
    const r = await cli(["models"]);
    expect(r.code).toBe(0);
    const rows = r.stdout.split("\n");
    for (const id of Object.keys(catalog.models)) {
      const [options, limits] = rows.filter((line) => line.startsWith(`${id} `));
      const caps = capabilities(id);
      if (!options || !limits || !caps) {
        throw new Error(`no rows for ${id}`);
      }
      expect(options).toContain(caps.qualities.map((q) => (q === "low" ? "low*" : q)).join(","));
      expect(options.split(/\s{2,}/).at(-1)).toBe(caps.outputFormat ?? "-");
      expect(limits.split(/\s{2,}/).slice(1, 4)).toEqual([
        String(caps.maxImageCount),
        String(caps.maxReferenceImages),
        String(caps.referenceSurchargeCredits),
      ]);
    }
    expect(rows.find((line) => line.startsWith("alpha-img2 "))).toContain("1K (no default)");
    expect(rows.filter((line) => line.startsWith("gamma-image-1.5 ")).at(1)).toContain(
      "1:1,16:9,9:16*,3:2,2:3",
    );
    // The 15 ratios of a 2.5 model wrap onto a continuation line, and none is lost.
    const flare = rows.findIndex(
      (line, i) => line.startsWith("alpha-img2-5-flare ") && i > rows.indexOf(""),
    );
    const ratios = `${rows[flare]?.split(/\s{2,}/).at(-1)}${rows[flare + 1]?.trim()}`;
    expect(ratios.split(",")).toEqual(
      catalog.models["alpha-img2-5-flare"].aspectRatios.map((x) => (x === "9:16" ? "9:16*" : x)),
    );
    expect(r.stdout).toContain("Catalog 2026-11-20.");
  });

  it("models fits a terminal of 100 columns: no line is wider", async () => {
    const r = await cli(["models"]);
    expect(MODELS_WIDTH).toBe(100);
    const widest = Math.max(...r.stdout.split("\n").map((line) => line.length));
    expect(widest).toBeLessThanOrEqual(100);
    expect(widest).toBeGreaterThan(80); // the tables use the room they have
    for (const command of ["--help", "models", "quote", "check", "schema", "diff"]) {
      const help = await cli(command === "--help" ? [command] : [command, "--help"]);
      expect(
        Math.max(...help.stdout.split("\n").map((line) => line.length)),
        command,
      ).toBeLessThanOrEqual(100);
    }
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

/** The built-in catalog, and the same from 2026-12-01 with beta2 4K at 144 credits and gamma up to 12 images. */
function repriced(): [Catalog, Catalog] {
  const next = JSON.parse(JSON.stringify({ ...catalog, version: "2026-12-01" }));
  next.models.beta2.prices["4K"].low = 144;
  next.models["gamma-image-1.5"].maxImageCount = 12;
  return [catalog, next as Catalog];
}

describe("imagegen-pricing diff", () => {
  const [before, after] = repriced();
  const files = {
    "before.json": JSON.stringify(before),
    "after.json": JSON.stringify(after),
    "history.json": JSON.stringify({ $schema: "./catalog.schema.json", catalogs: [before, after] }),
    "one.json": JSON.stringify({ catalogs: [before] }),
    "bad.json": "{ nope",
    "list.json": "[]",
    "invalid.json": JSON.stringify({ ...before, defaultModelId: "nope" }),
    "backwards.json": JSON.stringify({ catalogs: [after, before] }),
    "extra.json": JSON.stringify({ catalogs: [before], note: 1 }),
  };

  it("P8: different catalogs: exit 1 and a table naming each change with the percentage", async () => {
    const r = await cli(["diff", "before.json", "after.json"], files);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe("Catalog 2026-11-20 (before.json) -> 2026-12-01 (after.json): 2 changes");
    expect(lines[2]).toMatch(/^model\s+change\s+before\s+after\s+difference$/);
    expect(lines[4]).toMatch(/^beta2\s+price 4K low\s+120 credits\s+144 credits\s+\+20%$/);
    expect(lines[5]).toMatch(/^gamma-image-1\.5\s+most output images\s+10\s+12$/);
  });

  it("P8: equal catalogs exit 0; --json prints { before, after, equal, changes } with diffCatalogs' changes", async () => {
    const same = await cli(["diff", "before.json", "before.json"], files);
    expect(same.code).toBe(0);
    expect(same.stdout).toBe(
      "Catalog 2026-11-20 (before.json) -> 2026-11-20 (before.json): no changes.\n",
    );
    const j = await cli(["diff", "before.json", "after.json", "--json"], files);
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toEqual({
      before: "2026-11-20",
      after: "2026-12-01",
      equal: false,
      changes: diffCatalogs(before, after),
    });
    const sameJson = await cli(["diff", "after.json", "after.json", "--json"], files);
    expect(sameJson.code).toBe(0);
    expect(JSON.parse(sameJson.stdout)).toMatchObject({ equal: true, changes: [] });
  });

  it("P8: a history file stands for its newest catalog; one history file compares each entry with the one before", async () => {
    expect((await cli(["diff", "history.json", "after.json"], files)).code).toBe(0);
    expect((await cli(["diff", "before.json", "history.json"], files)).code).toBe(1);
    const walk = await cli(["diff", "history.json"], files);
    expect(walk.code).toBe(1);
    expect(walk.stdout).toMatch(/^Catalog 2026-11-20 -> 2026-12-01: 2 changes\n/);
    const walkJson = await cli(["diff", "history.json", "--json"], files);
    expect(JSON.parse(walkJson.stdout)).toEqual([
      {
        before: "2026-11-20",
        after: "2026-12-01",
        equal: false,
        changes: diffCatalogs(before, after),
      },
    ]);
    const one = await cli(["diff", "one.json"], files);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("nothing to compare");
    expect(JSON.parse((await cli(["diff", "one.json", "--json"], files)).stdout)).toEqual([]);
    const stdin = await cli(["diff", "before.json", "-"], files, JSON.stringify(after));
    expect(stdin.code).toBe(1);
  });

  it("P8: the shipped data/catalog.json reads as a history", async () => {
    const { readFileSync } = await import("node:fs");
    const text = readFileSync(`${root}data/catalog.json`, "utf8");
    const r = await cli(["diff", "catalog.json", "before.json"], {
      ...files,
      "catalog.json": text,
    });
    expect(r.code, r.stderr).toBe(0);
  });

  it("P8: a malformed catalog names the file, each field's path, what it holds and what it must hold, in one line", async () => {
    const model = before.models.beta as unknown as Record<string, unknown>;
    const broken = {
      ...before,
      defaultModelId: undefined,
      note: "x",
      models: {
        ...before.models,
        beta: { ...model, maxImageCount: "4", outputFormat: "gif", qualities: undefined },
      },
    };
    const r = await cli(["diff", "broken.json", "after.json"], {
      ...files,
      "broken.json": JSON.stringify(broken),
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^broken\.json is not a valid catalog: /);
    for (const problem of [
      "defaultModelId is missing; expected a string, the id of one of its models",
      "note is not a field (a catalog has version, defaultModelId, models)",
      'models.beta.maxImageCount is "4"; expected a whole number of at least 1',
      'models.beta.outputFormat is "gif"; expected one of png, jpeg, webp, or null',
      "models.beta.qualities is missing; expected a list of values from low, medium, high, at least one, each once",
    ]) {
      expect(r.stderr).toContain(problem);
    }
    // The validator's own wording is not what a user reads.
    expect(r.stderr).not.toMatch(/Invalid key|Invalid type|received undefined/);

    // In a history, the entry is named by its index and version.
    const history = JSON.stringify({ catalogs: [before, { ...after, defaultModelId: undefined }] });
    const inHistory = await cli(["diff", "h.json"], { "h.json": history });
    expect(inHistory.code).toBe(2);
    expect(inHistory.stderr).toBe(
      'h.json is not a valid catalog history: catalogs[1] (version "2026-12-01"): defaultModelId is missing; expected a string, the id of one of its models.\n',
    );
    // Past five problems the rest are counted.
    const wrong = {
      maxImageCount: "x",
      maxReferenceImages: "x",
      referenceSurchargeCredits: "x",
      outputFormat: 1,
      backgrounds: 1,
    };
    const many = {
      ...before,
      version: "soon",
      models: { ...before.models, beta: { ...model, ...wrong } },
    };
    expect(
      (await cli(["diff", "m.json", "after.json"], { "m.json": JSON.stringify(many) })).stderr,
    ).toMatch(/; and 1 more\.\n$/);
  });

  it("P8: a bad file or bad arguments exit 2 with one clear line", async () => {
    const cases: [string[], RegExp][] = [
      [["diff", "missing.json", "after.json"], /^Cannot read missing\.json: ENOENT/],
      [["diff", "bad.json", "after.json"], /^bad\.json is not valid JSON: /],
      [["diff", "-", "after.json"], /^Standard input is not valid JSON: /],
      [
        ["diff", "before.json", "list.json"],
        /^list\.json must hold a catalog object or a catalog history/,
      ],
      [
        ["diff", "invalid.json", "after.json"],
        /^invalid\.json is not a valid catalog: defaultModelId is "nope"; expected the id of one of its models \(alpha-img2, /,
      ],
      [
        ["diff", "backwards.json"],
        /^backwards\.json: Invalid catalog history: entry 1 \(version 2026-11-20\): versions must be strictly increasing/,
      ],
      [["diff", "extra.json", "after.json"], /^extra\.json: a catalog history has only "catalogs"/],
    ];
    for (const [argv, message] of cases) {
      const r = await cli(argv, files);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stdout, argv.join(" ")).toBe("");
      expect(r.stderr, argv.join(" ")).toMatch(message);
      expect(r.stderr.trimEnd().split("\n"), argv.join(" ")).toHaveLength(1);
    }
    for (const argv of [
      ["diff"],
      ["diff", "a", "b", "c"],
      ["diff", "-", "-"],
      ["diff", "before.json"],
      ["diff", "--nope", "a", "b"],
    ]) {
      const r = await cli(argv, files);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr, argv.join(" ")).toContain('Run "imagegen-pricing diff --help" for usage.');
    }
  });
});

describe("--at: the catalog in force at an instant (P8)", () => {
  const history = repriced();
  const quote4k = (at: string[], extra: Pick<CliIo, "history" | "now"> = { history }) =>
    cli(["quote", "--model", "beta2", "--resolution", "4K", "--json", ...at], {}, "", extra);

  it("P8: quote --at prices with the catalog in force then, switching at the exact millisecond", async () => {
    const old = JSON.parse((await quote4k(["--at", "2026-11-30T23:59:59.999Z"])).stdout);
    expect(old).toMatchObject({ credits: 120, catalogVersion: "2026-11-20" });
    const next = JSON.parse((await quote4k(["--at", "2026-12-01"])).stdout);
    expect(next).toMatchObject({ credits: 144, catalogVersion: "2026-12-01" });
    expect(next).toEqual({
      ...quote({ kind: "image", modelId: "beta2", resolution: "4K" }, { catalog: history[1] }),
      imageCount: 1,
      totalCredits: 144,
    });
    const text = await cli(
      ["quote", "--model", "beta2", "-r", "4K", "--at", "2027-01-15"],
      {},
      "",
      { history },
    );
    expect(text.stdout).toContain("beta2, 4K, quality low: 144 credits per image");
    expect(text.stdout).toContain("prices of 2026-12-01");
  });

  it("P8: without --at the newest catalog prices; --at now reads the clock", async () => {
    expect(JSON.parse((await quote4k([])).stdout).catalogVersion).toBe("2026-12-01");
    const clock = { history, now: () => Date.UTC(2026, 10, 25) };
    expect(JSON.parse((await quote4k(["--at", "now"], clock)).stdout).catalogVersion).toBe(
      "2026-11-20",
    );
  });

  it("P8: the built-in history: quote --at 2027-01-15 prices with the catalog of 2026-11-20", async () => {
    const r = await cli([
      "quote",
      "--model",
      "beta2",
      "--resolution",
      "4K",
      "--at",
      "2027-01-15",
      "--json",
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ credits: 120, catalogVersion: "2026-11-20" });
  });

  it("P8: check, models and schema take --at too", async () => {
    const body = JSON.stringify({
      prompt: "fox",
      modelId: "beta2",
      resolution: "4K",
      imageCount: 2,
    });
    const checked = await cli(["check", "-", "--at", "2026-12-01", "--json"], {}, body, {
      history,
    });
    expect(JSON.parse(checked.stdout).charge).toMatchObject({
      totalCreditCost: 288,
      catalogVersion: "2026-12-01",
    });
    const models = await cli(["models", "--at", "2026-12-01", "--json"], {}, "", { history });
    expect(
      JSON.parse(models.stdout).find((c: { modelId: string }) => c.modelId === "gamma-image-1.5")
        .maxImageCount,
    ).toBe(12);
    const early = await cli(["models", "--at", "2026-11-30"], {}, "", { history });
    expect(early.stdout).toContain("Catalog 2026-11-20.");
    const schema = await cli(
      ["schema", "--model", "gamma-image-1.5", "--at", "2026-12-01"],
      {},
      "",
      { history },
    );
    expect(JSON.parse(schema.stdout).properties.imageCount.maximum).toBe(12);
  });

  it("P8: an instant that is not one, or before the first catalog, exits 2 with the reason", async () => {
    for (const [at, message] of [
      ["2027-01-15T10:00", 'received "2027-01-15T10:00"'],
      ["tomorrow", 'received "tomorrow"'],
      ["2026-11-19T23:59:59.999Z", "No catalog is in force at 2026-11-19T23:59:59.999Z"],
    ] as const) {
      for (const command of ["quote --model beta2", "models", "schema", "check -"]) {
        const r = await cli([...command.split(" "), "--at", at], {}, "{}");
        expect(r.code, `${command} --at ${at}`).toBe(2);
        expect(r.stderr, `${command} --at ${at}`).toContain(`--at "${at}": `);
        expect(r.stderr, `${command} --at ${at}`).toContain(message);
      }
    }
  });
});

describe("--json on every command", () => {
  it("quote, check, models, schema and diff all print JSON with --json", async () => {
    const files = {
      "c.json": JSON.stringify(catalog),
      "r.json": JSON.stringify({ prompt: "fox", modelId: "beta" }),
    };
    for (const argv of [
      ["quote", "--model", "beta", "--json"],
      ["check", "r.json", "--json"],
      ["models", "--json"],
      ["schema", "--json"],
      ["schema", "--model", "beta", "--json"],
      ["diff", "c.json", "c.json", "--json"],
    ]) {
      const r = await cli(argv, files);
      expect(r.code, argv.join(" ")).toBe(0);
      expect(() => JSON.parse(r.stdout), argv.join(" ")).not.toThrow();
    }
  });
});
