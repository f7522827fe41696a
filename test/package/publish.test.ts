import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | Record<string, unknown>>;
  bin: Record<string, string>;
  sideEffects: boolean;
  scripts: Record<string, string>;
};

/** Runs a command; on failure the assertion shows everything it printed. */
async function sh(file: string, args: string[]) {
  try {
    // `npm pack` (run by attw) would rebuild dist/ through `prepack` while other tests read it: npm test
    // has just built it, so pack what is there.
    const env = { ...process.env, npm_config_ignore_scripts: "true" };
    const { stdout, stderr } = await run(file, args, { cwd: root, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

beforeAllOrFail(() => {
  if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
});

describe("the published package", () => {
  it("every exports entry lists types first, then import and require", () => {
    for (const [subpath, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === "string") continue; // ./package.json
      expect(Object.keys(entry), subpath).toEqual(["types", "import", "require"]);
      expect(Object.keys(entry.types as object), subpath).toEqual(["import", "require"]);
    }
    expect(pkg.sideEffects).toBe(false);
  });

  it("npm pack builds the package first, so a tarball never carries a stale or missing dist/", () => {
    expect(pkg.scripts.prepack).toBe("npm run build");
  });

  it("passes publint --strict on the packed tarball", { timeout: 60_000 }, async () => {
    const result = await sh(bin("publint"), ["--strict", "--pack", "npm"]);
    expect(result.output).toContain("All good");
    expect(result.code, result.output).toBe(0);
  });

  it("passes are-the-types-wrong on the packed tarball (node16 profile)", { timeout: 60_000 }, async () => {
    const result = await sh(bin("attw"), ["--pack", ".", "--profile", "node16", "--format", "table-flipped"]);
    expect(result.code, result.output).toBe(0);
  });

  it("each subpath loads by its package name from ESM and from CommonJS", { timeout: 60_000 }, async () => {
    // A package may import itself by name through its own exports map (self-reference).
    const names = Object.keys(pkg.exports)
      .filter((s) => s !== "./package.json")
      .map((s) => (s === "." ? "imagegen-pricing" : `imagegen-pricing/${s.slice(2)}`));
    const require = createRequire(`${root}package.json`);
    for (const name of names) {
      const cjs = require(name) as Record<string, unknown>;
      if (name.endsWith(".json")) {
        // Data, not code (the catalog history and its schema): an ES module imports it as JSON.
        expect(((await import(name, { with: { type: "json" } })) as { default: unknown }).default, name).toEqual(cjs);
        continue;
      }
      const esm = (await import(name)) as Record<string, unknown>;
      expect(Object.keys(cjs).sort(), name).toEqual(Object.keys(esm).sort());
      expect(Object.keys(esm).length, name).toBeGreaterThan(0);
    }
  });

  it("the bin runs from dist/", { timeout: 60_000 }, async () => {
    const file = `${root}${pkg.bin["imagegen-pricing"]}`;
    expect(readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const result = await sh(process.execPath, [
      file,
      "quote",
      "--model",
      "beta2",
      "--resolution",
      "4K",
      "--multiplier",
      "1.15",
      "--json",
    ]);
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toMatchObject({ credits: 138 });
  });
});
