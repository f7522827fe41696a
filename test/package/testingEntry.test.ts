/**
 * The built `imagegen-pricing/testing` entry in a project where fast-check is not installed (it is an
 * optional peer dependency): importing it must fail with one line that says what to install.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const MISSING = "Error: imagegen-pricing/testing needs fast-check 4: npm install -D fast-check";

/** A consumer project with the built package copied in (not linked: a link would resolve from this checkout). */
let project = "";

/** Runs Node in the consumer project; returns the exit code and everything printed. */
async function node(args: string[]) {
  try {
    const { stdout, stderr } = await run(process.execPath, args, { cwd: project });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const importEsm = [
  "--input-type=module",
  "-e",
  'const t = await import("imagegen-pricing/testing"); console.log(Object.keys(t).length)',
];
const requireCjs = [
  "-e",
  'const t = require("imagegen-pricing/testing"); console.log(Object.keys(t).length)',
];

beforeAllOrFail(() => {
  if (!existsSync(`${root}dist/testing/index.js`)) {
    throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
  }
  project = mkdtempSync(join(tmpdir(), "imagegen-pricing-consumer-"));
  const pkg = join(project, "node_modules", "imagegen-pricing");
  mkdirSync(pkg, { recursive: true });
  cpSync(`${root}package.json`, join(pkg, "package.json"));
  cpSync(`${root}dist`, join(pkg, "dist"), { recursive: true });
  // valibot is the one runtime dependency the testing entry reads; fast-check is left out on purpose.
  symlinkSync(`${root}node_modules/valibot`, join(project, "node_modules", "valibot"), "dir");
});

afterAll(() => {
  if (project) {
    rmSync(project, { recursive: true, force: true });
  }
});

describe("imagegen-pricing/testing without fast-check installed", () => {
  it("importing it from ESM throws one line that says to install fast-check 4", {
    timeout: 60_000,
  }, async () => {
    const result = await node(importEsm);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(MISSING);
    expect(result.stderr).not.toContain("ERR_MODULE_NOT_FOUND");
  });

  it("requiring it from CommonJS throws the same line", { timeout: 60_000 }, async () => {
    const result = await node(requireCjs);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(MISSING);
    expect(result.stderr).not.toContain("Require stack");
  });

  it("with fast-check installed, the same project loads every export (ESM and CommonJS)", {
    timeout: 60_000,
  }, async () => {
    symlinkSync(
      `${root}node_modules/fast-check`,
      join(project, "node_modules", "fast-check"),
      "dir",
    );
    try {
      for (const args of [importEsm, requireCjs]) {
        const result = await node(args);
        expect(result.stderr).toBe("");
        expect(Number(result.stdout.trim())).toBeGreaterThanOrEqual(6);
      }
    } finally {
      rmSync(join(project, "node_modules", "fast-check"));
    }
  });
});
