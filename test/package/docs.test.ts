import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { normalizeRequest, validateForModel } from "../../src/index.js";
import { SERVER_ERRORS } from "../../src/server/errors.js";

const root = new URL("../../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");
const run = promisify(execFile);

/** The members of a string-literal union type, read from the source (`export type Name = | "a" | "b";`). */
function unionMembers(file: string, name: string): string[] {
  const match = new RegExp(`export type ${name} =([^;]+);`).exec(read(file));
  if (!match?.[1]) {
    throw new Error(`${name} not found in ${file}`);
  }
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
    const section = errors.slice(
      errors.indexOf("## Request issues"),
      errors.indexOf("`computeCharge(request, options)` throws"),
    );
    const rows = [...section.matchAll(/^\| `([a-z_]+)` \|.*\| `(\{.*\})` \|$/gm)];
    expect(rows.length).toBe(18);
    for (const [, code, json] of rows) {
      const normalized = normalizeRequest(JSON.parse(json as string));
      const checked = normalized.success ? validateForModel(normalized.output) : normalized;
      expect(checked.success ? [] : checked.issues.map((i) => i.code), json).toContain(code);
    }
  });
});

describe("the guides", () => {
  it("docs/api-index.md lists every import path of package.json's exports, and getting-started every code entry", () => {
    const pkg = JSON.parse(read("package.json")) as { exports: Record<string, unknown> };
    const paths = Object.keys(pkg.exports).map((s) =>
      s === "." ? "imagegen-pricing" : `imagegen-pricing/${s.slice(2)}`,
    );
    const rows = (file: string) =>
      new Set([...read(file).matchAll(/^\| `(imagegen-pricing[^`]*)` \|/gm)].map((m) => m[1]));
    const index = rows("docs/api-index.md");
    expect(paths.filter((p) => !index.has(p))).toEqual([]);
    const guide = rows("docs/getting-started.md");
    expect(paths.filter((p) => !p.endsWith(".json") && !guide.has(p))).toEqual([]);
    expect(paths).toContain("imagegen-pricing/postgres");
  });

  it("every relative link in the README, the changelog and the guides points to a file that exists", () => {
    const missing: string[] = [];
    const guides = readdirSync(`${root}docs`)
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    expect(guides).toContain("docs/rules.md");
    for (const file of ["README.md", "CHANGELOG.md", ...guides]) {
      for (const [, target] of read(file).matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (
          !target ||
          /^[a-z]+:/.test(target) ||
          target.startsWith("api/") ||
          target.startsWith("docs/api/")
        ) {
          continue;
        }
        if (!existsSync(resolve(dirname(root + file), target))) {
          missing.push(`${file} -> ${target}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("the runnable examples of getting-started.md run against the built package and print what they say", {
    timeout: 60_000,
  }, async () => {
    if (!existsSync(`${root}dist/index.js`)) {
      throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
    }
    const blocks = [
      ...read("docs/getting-started.md").matchAll(/```ts runnable\n([\s\S]*?)```/g),
    ].map((m) => m[1] as string);
    expect(blocks.length).toBeGreaterThan(0);
    // Inside the package, "imagegen-pricing" resolves to this package's own exports (dist/).
    const dir = `${root}reports/guide-examples/`;
    mkdirSync(dir, { recursive: true });
    for (const [i, code] of blocks.entries()) {
      const file = `${dir}example-${i}.mts`;
      writeFileSync(file, code);
      const { stdout } = await run(process.execPath, ["--import", "tsx", file], { cwd: root });
      const printed = stdout.trim().split("\n");
      // Each `console.log(...); // 44 88: why` promises the numbers before the colon, in order.
      const promised = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map(
        (m) => (m[1] ?? "").split(/: /)[0] ?? "",
      );
      expect(printed.length, `example ${i}: ${stdout}`).toBe(promised.length);
      for (const [line, promise] of promised.entries()) {
        const numbers = promise.match(/\d+(?:\.\d+)?/g) ?? [];
        expect(
          (printed[line] ?? "").match(/\d+(?:\.\d+)?/g) ?? [],
          `example ${i}, line ${line}`,
        ).toEqual(numbers);
      }
    }
  });
});
