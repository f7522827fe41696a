/**
 * Every shell command of the README works as pasted. Each one is run (the CLI lines against the
 * packed package installed in a scratch project, `npm start` in the clone), or, for what installs
 * or runs the whole suite, checked to be what CI runs; a command no rule here covers fails the test.
 * The CommonJS note is run too: its `require` line in a CommonJS project, and a snippet with
 * top-level `await` as the `.mts` file the note names.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { type InstalledPackage, installPackage } from "../playground/installedPackage.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";

const exec = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const readme = readFileSync(join(root, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  version: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
};
const tsx = createRequire(import.meta.url).resolve("tsx");

/** The commands of the README's sh blocks: continued lines joined, comments dropped. */
function readmeCommands(): string[] {
  const commands: string[] = [];
  for (const [, block] of readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const lines = (block ?? "").replace(/\\\n\s*/g, "").split("\n");
    for (const line of lines) {
      const command = line.replace(/\s+#\s.*$/, "").trim();
      if (command !== "") {
        commands.push(command);
      }
    }
  }
  return commands;
}

/** A shell command started in its own process group, with what it printed so far. */
type Shell = { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number> };

/** Runs a command with `sh -c` in `cwd`, without the variables serve would read from the runner. */
function shell(command: string, cwd: string, env: Record<string, string> = {}): Shell {
  const { DATABASE_URL: _url, IMAGEGEN_ADMIN_TOKEN: _token, ...inherited } = process.env;
  const child = spawn("sh", ["-c", command], {
    cwd,
    env: { ...inherited, ...env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number>((resolve) => child.on("close", (code) => resolve(code ?? -1)));
  return { child, out: () => out, err: () => err, exited };
}

/** Waits until a long-running command has printed `pattern`, and returns the match. */
async function printed(run: Shell, pattern: RegExp): Promise<RegExpExecArray> {
  for (const started = Date.now(); Date.now() - started < 60_000; ) {
    const match = pattern.exec(run.out());
    if (match) {
      return match;
    }
    const ended = await Promise.race([
      run.exited.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), 100)),
    ]);
    if (ended && !pattern.test(run.out())) {
      throw new Error(`ended before printing ${pattern}:\n${run.out()}\n${run.err()}`);
    }
  }
  throw new Error(`did not print ${pattern} within a minute:\n${run.out()}\n${run.err()}`);
}

/** Stops a long-running command's whole process group with `signal`, and waits for it. */
async function stop(run: Shell, signal: NodeJS.Signals): Promise<void> {
  try {
    process.kill(-(run.child.pid as number), signal);
  } catch {
    // Already gone.
  }
  await run.exited;
}

/** Runs a command to its end. */
async function finished(command: string, cwd: string) {
  const run = shell(command, cwd);
  const code = await run.exited;
  return { code, out: run.out(), err: run.err() };
}

let installed: InstalledPackage;
const running: Shell[] = [];

beforeAllOrFail(async () => {
  installed = await installPackage();
}, 300_000);

afterAll(async () => {
  for (const run of running) {
    await stop(run, "SIGKILL");
  }
  installed?.remove();
});

/** How each kind of README command is checked; every command must match exactly one. */
const RULES: { pattern: RegExp; check: (command: string) => Promise<void> }[] = [
  {
    // `npm ci` installs what the lock file says; it refuses when package.json and the lock differ.
    pattern: /^npm ci && npm start$/,
    check: async () => {
      const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as {
        packages: Record<string, Record<string, unknown>>;
      };
      const top = lock.packages[""] ?? {};
      expect(top.dependencies).toEqual(pkg.dependencies);
      expect(top.devDependencies).toEqual(pkg.devDependencies);
      expect(top.peerDependencies).toEqual(pkg.peerDependencies);
      // `npm start` as pasted; PORT=0 only so that a busy 8787 on a shared machine does not matter.
      const run = shell("npm start", root, { PORT: "0" });
      running.push(run);
      await printed(run, /^Listening on http:\/\/127\.0\.0\.1:\d+$/m);
      await printed(run, /Ctrl-C stops the server\./);
      expect(run.out()).toContain("ck_test_demo_key_for_trying_the_api");
      expect(run.out()).toMatch(/^\s+curl -s http:\/\/127\.0\.0\.1:\d+\//m);
      await stop(run, "SIGINT");
      expect(run.out()).toContain("Stopped (SIGINT)");
    },
  },
  {
    pattern: /^bash scripts\/test-all\.sh$/,
    check: async (command) => {
      const ci = readFileSync(join(root, ".ci/run"), "utf8").trimEnd().split("\n");
      expect(ci.at(-1)).toBe(command);
      await exec("bash", ["-n", join(root, "scripts/test-all.sh")]);
      const script = readFileSync(join(root, "scripts/test-all.sh"), "utf8");
      for (const step of ["npm ci", "npm test", "npm run test:citus"]) {
        expect(script).toMatch(new RegExp(`^${step}\\b`, "m"));
      }
    },
  },
  {
    pattern: /^npm run test:unit$/,
    check: async () => {
      expect(pkg.scripts["test:unit"]).toBe("vitest run --project unit");
    },
  },
  {
    // Packed as the README says (npm pack of the built package), into a scratch folder for ~.
    pattern: /^npm ci && npm pack --pack-destination ~$/,
    check: async () => {
      expect(readme).toContain(`writes ~/${basename(installed.tarball)}`);
    },
  },
  {
    // installPackage ran `npm install <the tarball>` in a new project.
    pattern: /^npm install ~\/imagegen-pricing-[\d.]+\.tgz$/,
    check: async (command) => {
      expect(command).toBe(`npm install ~/imagegen-pricing-${pkg.version}.tgz`);
      expect(basename(installed.tarball)).toBe(`imagegen-pricing-${pkg.version}.tgz`);
    },
  },
  {
    pattern: /^npx imagegen-pricing serve /,
    check: async (command) => {
      const run = shell(command, installed.project);
      running.push(run);
      const url = (await printed(run, /^Listening on (http:\/\/127\.0\.0\.1:\d+)$/m))[1];
      await printed(run, /^Admin API: /m);
      const token = /--admin-token (\S+)/.exec(command)?.[1];
      const admin = await fetch(`${url}/admin/clock`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(admin.status).toBe(200);
      const ping = await fetch(`${url}/api/ping`, {
        headers: { authorization: "Bearer ck_test_alice_0000000000000001" },
      });
      expect(ping.status).toBe(200);
      await stop(run, "SIGTERM");
      expect(run.out()).toContain("Stopped (SIGTERM)");
    },
  },
  {
    // As pasted but for --port 0: 8788 may be taken on a shared machine.
    pattern: /^npx imagegen-pricing playground$/,
    check: async (command) => {
      const run = shell(`${command} --port 0`, installed.project);
      running.push(run);
      const url = (await printed(run, /^Live price preview: (http:\/\/127\.0\.0\.1:\d+\/)$/m))[1];
      for (const file of ["", "app.js", "fields.js", "core.js"]) {
        expect((await fetch(`${url}${file}`)).status, file).toBe(200);
      }
      await stop(run, "SIGTERM");
    },
  },
  {
    pattern: /^npx imagegen-pricing quote /,
    check: async (command) => {
      const result = await finished(command, installed.project);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toMatch(/^beta2, 4K, quality low: 138 credits per image$/m);
    },
  },
  {
    pattern: /^echo '(.*)' \| npx imagegen-pricing check -$/,
    check: async (command) => {
      const result = await finished(command, installed.project);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toMatch(/^Valid\. alpha-img2-official, text-to-image/);
      expect(result.out).toContain("18 credits per image x 1 = 18 credits");
    },
  },
  {
    pattern: /^npx imagegen-pricing --help$/,
    check: async (command) => {
      const result = await finished(command, installed.project);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toMatch(/^Usage: imagegen-pricing <command>/);
    },
  },
];

describe("the README's commands", { timeout: 120_000 }, () => {
  const commands = readmeCommands();

  it("there are commands, and each is covered by exactly one rule here", () => {
    expect(commands.length).toBeGreaterThanOrEqual(8);
    for (const command of commands) {
      expect(RULES.filter((rule) => rule.pattern.test(command)).length, command).toBe(1);
    }
  });

  for (const command of commands) {
    it(`works as pasted: ${command}`, async () => {
      const rule = RULES.find((r) => r.pattern.test(command));
      expect(rule, `no rule covers ${command}`).toBeDefined();
      await rule?.check(command);
    });
  }
});

describe("the README's note for CommonJS projects", { timeout: 120_000 }, () => {
  it("its require line works in a CommonJS project, and prices the smallest body at 18", async () => {
    const line = /`(const \{[^`]*\} = require\("imagegen-pricing"\);)`/.exec(readme)?.[1];
    expect(line).toBeDefined();
    const program = `${line}\nconst hi = checkRequest({ prompt: "hi" });\nconsole.log(computeCharge(hi.output).totalCreditCost);\n`;
    writeFileSync(join(installed.project, "require.js"), program);
    const { stdout } = await exec(process.execPath, ["require.js"], { cwd: installed.project });
    expect(stdout).toBe("18\n");
  });

  it("a snippet with top-level await runs as .mts in that project; as .ts it does not", async () => {
    const snippet = /^```ts\n(import \{ createClient \}[\s\S]*?)^```$/m.exec(readme)?.[1] ?? "";
    expect(snippet).toContain("await client.generations.estimate");
    const program = `${snippet}console.log((await client.generations.estimate(order)).credits);\n`;
    for (const name of ["snippet.mts", "snippet.ts"]) {
      writeFileSync(join(installed.project, name), program);
    }
    const mts = await exec(process.execPath, ["--import", tsx, "snippet.mts"], {
      cwd: installed.project,
    });
    expect(mts.stdout).toBe("160\n");
    const ts = await exec(process.execPath, ["--import", tsx, "snippet.ts"], {
      cwd: installed.project,
    }).then(
      () => "",
      (error: { stderr?: string }) => error.stderr ?? "",
    );
    expect(ts).toMatch(/Top-level await is currently not supported with the "cjs" output format/);
  });
});
