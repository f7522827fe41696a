/**
 * The package as a user gets it: `npm pack` of the built package, installed with `npm install`
 * into a scratch project (from npm's local cache where it can: `--prefer-offline`), for tests that
 * run what a user runs from node_modules rather than from the clone.
 */
import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { builtCli, ROOT } from "../testdouble/builtCli.js";

const exec = promisify(execFile);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/** A scratch project with the packed package installed in it. */
export type InstalledPackage = {
  /** The project's folder (its package.json, its node_modules). */
  project: string;
  /** The tarball that was installed. */
  tarball: string;
  /** Removes the scratch folder, tarball and project. */
  remove: () => void;
};

/** Runs npm; a failure throws with everything npm printed. */
async function runNpm(args: string[], cwd: string): Promise<string> {
  try {
    // `npm pack` would rebuild dist/ through `prepack` while other tests read it: pack what is built.
    const env = { ...process.env, npm_config_ignore_scripts: "true" };
    const { stdout } = await exec(npm, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(" ")} failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
  }
}

/**
 * Builds the package if its build is stale, packs it, and installs the tarball into a new project.
 *
 * @returns The project, the tarball and a way to remove both.
 * @throws Error with npm's output when packing or installing fails.
 */
export async function installPackage(): Promise<InstalledPackage> {
  await builtCli();
  const scratch = mkdtempSync(join(tmpdir(), "imagegen-pricing-installed-"));
  const remove = () => rmSync(scratch, { recursive: true, force: true });
  try {
    await runNpm(["pack", "--pack-destination", scratch], ROOT);
    const name = readdirSync(scratch).find((file) => file.endsWith(".tgz"));
    if (name === undefined) {
      throw new Error(`npm pack wrote no tarball into ${scratch}`);
    }
    const project = join(scratch, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{ "name": "project", "private": true }\n');
    const tarball = join(scratch, name);
    await runNpm(
      ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", tarball],
      project,
    );
    return { project, tarball, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** A command started in the project, with what it printed so far. */
export type Started = {
  /** Resolves with standard output once it matches `pattern`; rejects if the process ends first. */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
  /** Standard error so far. */
  stderr: () => string;
  /** Sends SIGTERM and resolves with the exit code once it has exited. */
  stop: () => Promise<number | null>;
};

/**
 * Starts a program of the project's node_modules/.bin, as `npx <name>` would.
 *
 * @param project - The project's folder.
 * @param args - The program's name, then its arguments.
 * @returns The running program.
 */
export function startBin(project: string, [name, ...args]: string[]): Started {
  const child = spawn(join(project, "node_modules", ".bin", name as string), args, {
    cwd: project,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  let ended = false;
  const exited = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      ended = true;
      resolve(code);
    }),
  );
  child.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  return {
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(out);
          if (match) {
            child.stdout.off("data", look);
            resolve(match);
          } else if (ended) {
            reject(new Error(`${name} ended before printing ${pattern}:\n${out}\n${err}`));
          }
        };
        child.stdout.on("data", look);
        void exited.then(look);
        look();
      }),
    stderr: () => err,
    stop: () => {
      if (!ended) {
        child.kill("SIGTERM");
      }
      return exited;
    },
  };
}
