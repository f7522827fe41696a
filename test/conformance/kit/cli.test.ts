/**
 * The built command line, run as a user runs it: exit codes 0, 1 and 2, --help, the JSON and JUnit
 * files.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { builtCli } from "../../testdouble/builtCli.js";
import { type ListeningReference, type ReferenceOptions, startReference } from "./reference.js";

let cli = "";
let dir = "";
beforeAll(async () => {
  cli = await builtCli();
  dir = await mkdtemp(join(tmpdir(), "conformance-cli-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const running: ListeningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(options: ReferenceOptions = {}): Promise<ListeningReference> {
  const ref = await startReference(options);
  running.push(ref);
  return ref;
}

/** Runs the built CLI to its end. */
function conformance(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const { IMAGEGEN_API_KEY: _key, ...env } = process.env;
    execFile(
      process.execPath,
      [cli, "conformance", ...args],
      { env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe("imagegen-pricing conformance", () => {
  it("S1-S13: exits 0 against the reference server, and writes a JSON report and a JUnit file without the key", async () => {
    const ref = await start();
    const json = join(dir, "report.json");
    const junit = join(dir, "report.xml");
    const run = await conformance([
      ref.url,
      "--key",
      ref.key,
      "--budget",
      "500",
      "--assets",
      ref.assets.join(","),
      "--runs",
      "5",
      "--json",
      json,
      "--junit",
      junit,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^pass {2}N1 /m);
    expect(run.stdout).toMatch(/0 failed/);
    const report = JSON.parse(await readFile(json, "utf8"));
    expect(report.ok).toBe(true);
    expect(report.checks).toHaveLength(48);
    const xml = await readFile(junit, "utf8");
    const classnames = [...xml.matchAll(/<testcase classname="([A-Z]\d+)"/g)].map((m) => m[1]);
    expect(classnames).toEqual(report.checks.map((c: { rule: string }) => c.rule));
    expect(xml).toMatch(/<testsuites [^>]*tests="48" failures="0"/);
    for (const text of [run.stdout, JSON.stringify(report), xml]) {
      expect(text).not.toContain(ref.key);
    }
  });

  it("S9: exits 1 when a rule fails, and prints the failure after the table", async () => {
    const ref = await start({
      wrap: (fetch) => async (request) => {
        const response = await fetch(request);
        if (new URL(request.url).pathname !== "/api/ping" || response.status !== 200) {
          return response;
        }
        return Response.json({ ...((await response.json()) as object), authProvider: "apiKey" });
      },
    });
    const junit = join(dir, "failed.xml");
    const run = await conformance([
      ref.url,
      "--key",
      ref.key,
      "--rules",
      "S9,S10",
      "--junit",
      junit,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^FAIL {2}S9 /m);
    expect(run.stdout).toMatch(
      /S9 GET \/api\/ping: GET \/api\/ping: authProvider is not "api_key"/,
    );
    expect(run.stdout).toContain('"$API_KEY"');
    expect(run.stdout).not.toContain(ref.key);
    const xml = await readFile(junit, "utf8");
    expect(xml).toMatch(/<testcase classname="S9"[^>]*>\s*<failure message="GET \/api\/ping/);
  });

  it("exits 2 with one line for bad arguments, an unreachable server and a key ping refuses, never printing the key", async () => {
    const ref = await start();
    const closed = await startReference();
    await closed.close();
    const wrongKey = `ck_test_${"9".repeat(40)}`;
    const runs = [
      await conformance([ref.url, "--key", ref.key, "--budget", "lots"]),
      await conformance([ref.url, "--key", ref.key, "--profile", "strict"]),
      await conformance([ref.url, "--key", ref.key, "--rules", "Q7"]),
      await conformance([ref.url]),
      await conformance([closed.url, "--key", ref.key]),
      await conformance([ref.url, "--key", wrongKey]),
      await conformance(["not a url", "--key", ref.key]),
    ];
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).not.toContain(ref.key);
      expect(run.stderr).not.toContain(wrongKey);
    }
    expect(runs[0]?.stderr).toMatch(/^--budget must be a whole number; received "lots"\./);
    expect(runs[4]?.stderr.trim().split("\n")).toHaveLength(1);
    expect(runs[4]?.stderr).toMatch(
      /^conformance: Cannot reach http:\/\/127\.0\.0\.1:\d+\/api\/ping/,
    );
    expect(runs[5]?.stderr).toBe(
      "conformance: The key was refused by GET /api/ping (status 401).\n",
    );
  });

  it("--help names every option", async () => {
    const run = await conformance(["--help"]);
    expect(run.code).toBe(0);
    for (const option of [
      "--key",
      "--budget",
      "--multiplier",
      "--assets",
      "--admin-token",
      "--admin-url",
      "--profile",
      "--rules",
      "--seed",
      "--runs",
      "--json",
      "--junit",
      "--concurrency",
      "--timeout-ms",
      "--help",
    ]) {
      expect(run.stdout).toContain(option);
    }
  });
});
