/**
 * The built command line (dist/cli.js) for tests that run it as a user does: `npm test` builds it
 * first; run alone, a test file builds it once when it is missing or older than the sources, with
 * a lock so that files running at once do not build twice.
 */
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/** The repository's root, with a trailing slash. */
export const ROOT = new URL("../../", import.meta.url).pathname;
/** The built command line. */
export const CLI = join(ROOT, "dist/cli.js");

const run = promisify(execFile);

/** The newest modification time of the files the build reads. */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(path);
      } else {
        newest = Math.max(newest, statSync(path).mtimeMs);
      }
    }
  };
  walk(join(ROOT, "src"));
  for (const file of ["package.json", "tsup.config.ts"]) {
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  }
  return newest;
}

const fresh = () => existsSync(CLI) && statSync(CLI).mtimeMs >= newestSource();

/** At most this long for a build, or for another file's build to finish. */
const BUILD_LIMIT_MS = 300_000;

/**
 * Makes sure dist/cli.js is built from the current sources.
 *
 * @returns The path of dist/cli.js.
 * @throws Error with the build's output when the build fails.
 */
export async function builtCli(): Promise<string> {
  if (fresh()) {
    return CLI;
  }
  const lock = join(
    tmpdir(),
    `imagegen-pricing-build-${createHash("sha256").update(ROOT).digest("hex").slice(0, 12)}`,
  );
  const started = Date.now();
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building: wait for it, then use its build.
      if (Date.now() - started > BUILD_LIMIT_MS) {
        throw new Error(`a build lock at ${lock} was held too long; remove it`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (!existsSync(lock) && fresh()) {
        return CLI;
      }
    }
  }
  try {
    if (!fresh()) {
      try {
        await run("npm", ["run", "build"], {
          cwd: ROOT,
          timeout: BUILD_LIMIT_MS,
          maxBuffer: 16 * 1024 * 1024,
        });
      } catch (error) {
        const e = error as { stdout?: string; stderr?: string };
        throw new Error(`npm run build failed:\n${e.stdout ?? ""}${e.stderr ?? ""}`);
      }
    }
  } finally {
    rmdirSync(lock);
  }
  return CLI;
}

/** A running child process with everything it printed so far. */
export type Child = {
  readonly process: ReturnType<typeof spawn>;
  /** Standard output so far. */
  stdout(): string;
  /** Standard error so far. */
  stderr(): string;
  /** Resolves once standard output holds `text` (rejects when the process exits first). */
  waitFor(text: string | RegExp): Promise<void>;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * Starts a command and collects its output.
 *
 * @param file - The program.
 * @param args - Its arguments.
 * @param env - Extra environment variables.
 * @returns The child.
 */
export function start(file: string, args: string[], env: Record<string, string> = {}): Child {
  // serve reads these when its options do not say: a test gives them itself, never from the runner's environment.
  const { DATABASE_URL: _url, IMAGEGEN_ADMIN_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(file, args, {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const waiters: (() => void)[] = [];
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
    for (const wake of waiters.splice(0)) {
      wake();
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    // "close": the process has exited and its pipes are drained.
    child.on("close", (code, signal) => {
      done = true;
      resolve({ code, signal });
      for (const wake of waiters.splice(0)) {
        wake();
      }
    }),
  );
  const has = (text: string | RegExp) =>
    typeof text === "string" ? out.includes(text) : text.test(out);
  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (has(text)) {
            resolve();
          } else if (done) {
            reject(new Error(`exited before printing ${String(text)}:\n${out}\n${err}`));
          } else {
            waiters.push(check);
          }
        };
        check();
      }),
  };
}
