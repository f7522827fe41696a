/**
 * Throwaway PostgreSQL clusters for tests, made from the machine's server binaries: start, stop,
 * start again, remove. No vitest import: the global setup loads this in vitest's main process.
 */
import { execFile, execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** What to do when there is no PostgreSQL: the one message every failure gives. */
export const INSTALL_HINT =
  "PostgreSQL server binaries (initdb, pg_ctl) were not found. Install them (Debian/Ubuntu: `apt-get install postgresql`; " +
  "they land in /usr/lib/postgresql/<version>/bin), put that directory in PG_BINDIR, or set DATABASE_URL to a database " +
  "in which the tests may create and drop schemas.";

/** A cluster made for tests: where to connect, and how to stop, restart and remove it. */
export type PostgresCluster = {
  /** `postgres://imagegen@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** The data directory. */
  readonly dataDir: string;
  /**
   * Stops the server, as in an outage: `pg_ctl -m fast` (open sessions are ended and roll back) by
   * default, or `-m immediate` (every process quits at once, as in a crash: a session waiting on a
   * lock can never go on to commit because another one ended first).
   */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts the stopped server again, same data, same port. */
  start(): Promise<void>;
  /** Stops the server and removes every file; again is fine. */
  destroy(): Promise<void>;
};

/**
 * Finds the directory of `initdb` and `pg_ctl`: `PG_BINDIR`, else the newest
 * /usr/lib/postgresql/<version>/bin, else `pg_config --bindir`.
 *
 * @returns The directory.
 * @throws Error with {@link INSTALL_HINT} when there is none.
 */
export function postgresBinDir(): string {
  const candidates: string[] = [];
  if (process.env.PG_BINDIR) {
    candidates.push(process.env.PG_BINDIR);
  }
  const debian = "/usr/lib/postgresql";
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+(\.\d+)?$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) {
      candidates.push(join(debian, v, "bin"));
    }
  }
  try {
    candidates.push(
      execFileSync("pg_config", ["--bindir"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim(),
    );
  } catch {
    // no pg_config: the other candidates decide
  }
  const found = candidates.find(
    (dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")),
  );
  if (!found) {
    throw new Error(INSTALL_HINT);
  }
  return found;
}

/** A free TCP port on 127.0.0.1 (free when asked: the start retries on a clash). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address
          ? resolve(address.port)
          : reject(new Error("no port")),
      );
    });
  });
}

/** The uid and gid of the `postgres` user, for running the server when the tests run as root. */
function postgresUser(): { uid: number; gid: number } {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      `The tests run as root, and PostgreSQL refuses to run as root, but there is no "postgres" user. ${INSTALL_HINT}`,
    );
  }
}

/**
 * Starts a new cluster in a temporary directory: `initdb -A trust`, then `pg_ctl start` on a free
 * port of 127.0.0.1 with `fsync=off` (unless `durable`); as the `postgres` user (through `runuser`)
 * when running as root. The caller must {@link PostgresCluster.destroy} it; a process exit stops it
 * as a backstop.
 *
 * @param options.durable - Keep PostgreSQL's defaults `fsync=on` and `full_page_writes=on`, so that
 *   every commit is flushed to disk (for a benchmark; tests need not pay for it).
 * @param options.binDir - The directory of `initdb` and `pg_ctl` to use (default: {@link postgresBinDir}),
 *   for example a copy of PostgreSQL with Citus installed (test/support/citusCluster.ts).
 * @param options.settings - More server settings, as `name=value` (each passed as `-c name=value`).
 * @returns The running cluster.
 * @throws Error with {@link INSTALL_HINT} when the binaries are missing, or initdb's or pg_ctl's output.
 */
export async function startPostgres(
  options: { durable?: boolean; binDir?: string; settings?: readonly string[] } = {},
): Promise<PostgresCluster> {
  const bin = options.binDir ?? postgresBinDir();
  const settings = (options.settings ?? []).map((setting) => ` -c ${setting}`).join("");
  const dir = mkdtempSync(join(tmpdir(), "imagegen-pg-"));
  const dataDir = join(dir, "data");
  const logFile = join(dir, "server.log");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const exec = async (tool: string, args: string[]) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", join(bin, tool), ...args]]
      : [join(bin, tool), args];
    try {
      await run(file as string, argv as string[], { timeout: 120_000 });
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string; message: string };
      const log = existsSync(logFile) ? readFileSync(logFile, "utf8").slice(-2000) : "";
      throw new Error(
        `${tool} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}${e.stderr ?? ""}\n${log}`,
      );
    }
  };

  let destroyed = false;
  const removeFiles = () => rmSync(dir, { recursive: true, force: true });
  try {
    await exec("initdb", [
      "-D",
      dataDir,
      "-A",
      "trust",
      "-U",
      "imagegen",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
    ]);
  } catch (error) {
    removeFiles();
    throw error;
  }

  let port = 0;
  const startOn = (p: number) =>
    exec("pg_ctl", [
      "-D",
      dataDir,
      "-l",
      logFile,
      "-w",
      "-t",
      "120",
      "-o",
      `-p ${p} -k ${dir} -c listen_addresses=127.0.0.1 ${options.durable ? "" : "-c fsync=off -c full_page_writes=off "}-c max_connections=300${settings}`,
      "start",
    ]);
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    try {
      await startOn(port);
      break;
    } catch (error) {
      if (attempt >= 3) {
        removeFiles();
        throw error;
      }
    }
  }

  const stopSync = () => {
    try {
      const args = ["-D", dataDir, "-m", "immediate", "-w", "stop"];
      if (asRoot) {
        execFileSync("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), ...args], {
          stdio: "ignore",
        });
      } else {
        execFileSync(join(bin, "pg_ctl"), args, { stdio: "ignore" });
      }
    } catch {
      // already stopped
    }
    removeFiles();
  };
  process.once("exit", stopSync);

  return {
    url: `postgres://imagegen@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    stop: (mode = "fast") => exec("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "stop"]),
    start: () => startOn(port),
    async destroy() {
      if (destroyed) {
        return;
      }
      destroyed = true;
      process.off("exit", stopSync);
      await exec("pg_ctl", ["-D", dataDir, "-m", "fast", "-w", "stop"]).catch(() => {});
      removeFiles();
    },
  };
}
