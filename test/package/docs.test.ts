import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { capabilities, computeCharge, normalizeRequest, quote, validateForModel } from "../../src/index.js";
import { LIMITS } from "../../src/models/lists.js";
import { DEFAULT_BOUNDS } from "../../src/node/bounds.js";
import { DEFAULT_MAX_BODY_BYTES, JSON_BOUNDS } from "../../src/server/body.js";
import { MAX_ERROR_BODY_BYTES, MAX_LISTED_ISSUES, SERVER_ERRORS } from "../../src/server/errors.js";

const root = new URL("../../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");
const run = promisify(execFile);

/** The members of a string-literal union type, read from the source (`export type Name = | "a" | "b";`). */
function unionMembers(file: string, name: string): string[] {
  const match = new RegExp(`export type ${name} =([^;]+);`).exec(read(file));
  if (!match?.[1]) throw new Error(`${name} not found in ${file}`);
  return [...match[1].matchAll(/"([a-z_]+)"/g)].map((m) => m[1] as string);
}

describe("docs/errors.md", () => {
  const errors = read("docs/errors.md");
  const documented = new Set([...errors.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1]));

  it("N15, P2, S12: lists every issue code, quote reason, server error code and admin error code", () => {
    const codes = [
      ...unionMembers("src/messages.ts", "IssueCode"),
      ...unionMembers("src/messages.ts", "QuoteReason"),
      ...Object.keys(SERVER_ERRORS),
      ...unionMembers("src/server/errors.ts", "AdminErrorCode"),
    ];
    expect(codes.length).toBeGreaterThan(30);
    expect(codes.filter((code) => !documented.has(code))).toEqual([]);
  });

  it("N1-N14, V1-V6: each example body in the request issue table produces its code", () => {
    const section = errors.slice(errors.indexOf("## Request issues"), errors.indexOf("`computeCharge(request, options)` throws"));
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|.*\| `(\{.*\})` \|$/gm)];
    expect(rows.length).toBe(18);
    for (const [, code, json] of rows) {
      const normalized = normalizeRequest(JSON.parse(json as string));
      const checked = normalized.success ? validateForModel(normalized.output) : normalized;
      expect(checked.success ? [] : checked.issues.map((i) => i.code), json).toContain(code);
    }
  });
});

describe("figures in the guides", () => {
  /** The one number a pattern's first group finds in a file (the pattern must match exactly once). */
  const stated = (file: string, pattern: RegExp): number => {
    const matches = [...read(file).matchAll(new RegExp(pattern, "g"))];
    expect(matches.length, `${pattern} in ${file}`).toBe(1);
    return Number((matches[0]?.[1] ?? "").replace(/,/g, ""));
  };

  it("S12, S15: the limits docs/errors.md states are the package's defaults", () => {
    const file = "docs/errors.md";
    expect(stated(file, /`headersTimeoutMs` \((\d+) s\)/)).toBe(DEFAULT_BOUNDS.headersTimeoutMs / 1000);
    expect(stated(file, /`requestTimeoutMs` \((\d+) s\)/)).toBe(DEFAULT_BOUNDS.requestTimeoutMs / 1000);
    expect(stated(file, /`maxHeaderBytes` \((\d+) KiB\)/)).toBe(DEFAULT_BOUNDS.maxHeaderBytes / 1024);
    expect(stated(file, /stays under (\d+) KiB whatever the request/)).toBe(MAX_ERROR_BODY_BYTES / 1024);
    expect(stated(file, /\((\d+) KiB by default, what the largest valid request can need\)/)).toBe(DEFAULT_MAX_BODY_BYTES / 1024);
    expect(stated(file, /the first (\d+) are listed/)).toBe(MAX_LISTED_ISSUES);
    expect(stated(file, /nested more than (\d+) levels deep/)).toBe(JSON_BOUNDS.depth);
    expect(stated(file, /holding more than ([\d,]+) values/)).toBe(JSON_BOUNDS.values);
    expect(stated(file, /`prompt` over (\d+)/)).toBe(LIMITS.promptMaxChars);
    expect(stated(file, /`idempotencyKey` over (\d+) characters/)).toBe(LIMITS.idempotencyKeyMaxChars);
    expect(stated(file, /More than (\d+) distinct references/)).toBe(LIMITS.maxReferences);
  });

  it("P1-P6: every worked example of docs/pricing.md is what computeCharge charges", () => {
    const text = read("docs/pricing.md");
    const table = text.slice(text.indexOf("## Worked examples"), text.indexOf("```", text.indexOf("## Worked examples")));
    const rows = [...table.matchAll(/^\| `([a-z0-9.-]+)`, (.+?) \| (.+?) \|\s*(\d*)\s*\|\s*(.*?)\s*\|$/gm)];
    expect(rows.length).toBe(6);
    for (const [row, modelId, options, perImage, images, total] of rows) {
      const resolution = /\b([124]K)\b/.exec(options as string)?.[1];
      const quality = /\b(low|medium|high)\b/.exec(options as string)?.[1];
      const references = Number(/(\d+) references/.exec(options as string)?.[1] ?? 0);
      const multiplier = /multiplier ([\d.]+)/.exec(options as string)?.[1] ?? "1";
      if (images === "") {
        // A row without a price names the reason.
        const reason = /`([a-z_]+)`/.exec(perImage as string)?.[1];
        expect(quote({ kind: "image", modelId: modelId as string, ...(resolution ? { resolution } : {}) }), row).toMatchObject({
          credits: null,
          reason,
        });
        continue;
      }
      const resolutions = resolution ? [resolution] : (capabilities(modelId as string)?.resolutions ?? []);
      expect(resolutions.length, row).toBeGreaterThan(0);
      for (const r of resolutions) {
        const normalized = normalizeRequest({
          prompt: "a fox",
          modelId,
          resolution: r,
          ...(quality ? { quality } : {}),
          imageCount: Number(images),
          ...(references > 0
            ? { generationType: "image-to-image", inputAssetIds: Array.from({ length: references }, (_, i) => `asset_${i}`) }
            : {}),
        });
        const checked = normalized.success ? validateForModel(normalized.output) : normalized;
        if (!checked.success) throw new Error(`${row}: ${JSON.stringify(checked.issues)}`);
        const charge = computeCharge(checked.output, { account: { multiplier } });
        expect(charge.perOutputCredits, `${row} at ${r}`).toBe(Number(/\*\*(\d+)\*\*/.exec(perImage as string)?.[1]));
        expect(charge.totalCreditCost, `${row} at ${r}`).toBe(Number(/^\d+/.exec(total as string)?.[0]));
      }
    }
  });

  it("docs/testing.md: the failing score is Stryker's, and every mutation score names the commit it was measured at", () => {
    const file = "docs/testing.md";
    const threshold = /thresholds: \{[^}]*\bbreak: (\d+)/.exec(read("stryker.config.mjs"))?.[1];
    expect(stated(file, /fails below a score of (\d+)%/)).toBe(Number(threshold));
    const section = read(file).slice(read(file).indexOf("### Result"));
    const scored = section.split("\n").filter((line) => /\d+(?:\.\d+)?%/.test(line));
    expect(scored.length).toBeGreaterThan(4);
    // A score is in a table row with its commit, or in the paragraphs of the full run, which name theirs.
    for (const line of scored.filter((l) => l.startsWith("|"))) expect(line).toMatch(/\| `[0-9a-f]{7,40}` \|/);
    expect(section).toMatch(/Last full run: commit `[0-9a-f]{7,40}`/);
  });

  it("docs/benchmarks.md is bench/run.ts's output and names the commit it was measured at", () => {
    const text = read("docs/benchmarks.md");
    expect(text.startsWith("# Benchmarks\n\nWritten by `npm run bench` (bench/run.ts); do not edit by hand.")).toBe(true);
    expect(read("bench/run.ts")).toContain("Written by \\`npm run bench\\` (bench/run.ts); do not edit by hand.");
    expect(text).toMatch(/^- Date: \d{4}-\d{2}-\d{2}, commit [0-9a-f]{7,40}$/m);
  });

  it("docs/api-index.md lists every import path of package.json's exports, and getting-started every code entry", () => {
    const pkg = JSON.parse(read("package.json")) as { exports: Record<string, unknown> };
    const paths = Object.keys(pkg.exports).map((s) => (s === "." ? "imagegen-pricing" : `imagegen-pricing/${s.slice(2)}`));
    const rows = (file: string) => new Set([...read(file).matchAll(/^\| `(imagegen-pricing[^`]*)` \|/gm)].map((m) => m[1]));
    const index = rows("docs/api-index.md");
    expect(paths.filter((p) => !index.has(p))).toEqual([]);
    const guide = rows("docs/getting-started.md");
    expect(paths.filter((p) => !p.endsWith(".json") && !guide.has(p))).toEqual([]);
    expect(paths).toContain("imagegen-pricing/postgres");
  });
});

describe("docs/postgres.md, How far it goes", () => {
  it("S14: its throughput table and the GPU figures derived from it are docs/benchmarks.md's one-instance PostgreSQL rows", () => {
    const bench = read("docs/benchmarks.md");
    const guide = read("docs/postgres.md");
    const num = (text: string) => Number(text.replace(/,/g, ""));
    for (const scenario of ["one hot user", "1,000 users"]) {
      // | case | instances | accepted/s | p50 | p99 | baseline/s | baseline p50 | baseline p99 | ratio |
      const row = new RegExp(
        `^\\| ${scenario} \\| 1 \\| ([\\d,]+) \\|[^|]+\\|[^|]+\\| ([\\d,]+) \\|[^|]+\\|[^|]+\\| ([\\d.]+x) \\|$`,
        "m",
      ).exec(bench);
      expect(row, `${scenario} in docs/benchmarks.md`).not.toBeNull();
      const [, accepted = "", baseline = "", ratio = ""] = row ?? [];
      expect(guide).toContain(`| ${scenario}, one instance | ${accepted} | ${baseline} | ${ratio} |`);
      // One image is about 5 s of one GPU: the GPUs one database charges for, rounded to hundreds.
      const gpus = (Math.round((num(accepted) * 5) / 100) * 100).toLocaleString("en-US");
      expect(guide).toMatch(new RegExp(`about ${gpus}(?: GPUs running without pause)?\\s*\\(${accepted} x 5 s\\)`));
    }
  });
});

describe("the guides", () => {
  it("getting-started says which function to use: checkRequest the front door, its two stages, quote, computeCharge and the shared options", () => {
    const text = read("docs/getting-started.md");
    const start = text.indexOf("\n## Which function to use\n");
    expect(start, 'a section "Which function to use"').toBeGreaterThan(-1);
    // Near the top: before the first example of a use.
    expect(start).toBeLessThan(text.indexOf("\n## Backend"));
    const section = text.slice(start + 1, text.indexOf("\n## ", start + 1));
    expect(section).toMatch(/`checkRequest` is the front door/);
    for (const name of ["normalizeRequest", "validateForModel", "quote", "computeCharge", "capabilities"]) {
      expect(section, name).toContain(`\`${name}`);
    }
    for (const option of ["catalog", "at", "account", "referenceCount"]) expect(section, option).toContain(`- \`${option}\`: `);
  });

  it("every relative link in the README, the changelog and the guides points to a file that exists", () => {
    const missing: string[] = [];
    const guides = readdirSync(`${root}docs`)
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    expect(guides).toContain("docs/rules.md");
    for (const file of ["README.md", "CHANGELOG.md", ...guides]) {
      for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (!target || /^[a-z]+:/.test(target) || target.startsWith("api/") || target.startsWith("docs/api/")) continue;
        if (!existsSync(resolve(dirname(root + file), target))) missing.push(`${file} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("the runnable examples of getting-started.md run against the built package and print what they say", {
    timeout: 60_000,
  }, async () => {
    if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
    const blocks = [...read("docs/getting-started.md").matchAll(/```ts runnable\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    expect(blocks.length).toBe(3);
    // Inside the package, "imagegen-pricing" resolves to this package's own exports (dist/).
    const dir = `${root}reports/guide-examples/`;
    mkdirSync(dir, { recursive: true });
    for (const [i, code] of blocks.entries()) {
      const file = `${dir}example-${i}.mts`;
      writeFileSync(file, code);
      const { stdout } = await run(process.execPath, ["--import", "tsx", file], { cwd: root });
      const printed = stdout.trim().split("\n");
      // Each `console.log(...); // 44 88: why` promises the numbers before the colon, in order.
      const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => (m[1] ?? "").split(/: /)[0] ?? "");
      expect(printed.length, `example ${i}: ${stdout}`).toBe(promised.length);
      for (const [line, promise] of promised.entries()) {
        const numbers = promise.match(/\d+(?:\.\d+)?/g) ?? [];
        expect((printed[line] ?? "").match(/\d+(?:\.\d+)?/g) ?? [], `example ${i}, line ${line}`).toEqual(numbers);
      }
    }
  });
});
