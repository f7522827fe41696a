/**
 * A throwaway Citus cluster for tests: a coordinator and workers on free loopback ports, each a
 * cluster of postgresCluster.ts started from a copy of PostgreSQL 15 with Citus installed (built
 * once by scripts/citus.sh from `CITUS_SRC`). No vitest import: the global setup loads this in
 * vitest's main process.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import { type PostgresCluster, startPostgres } from "./postgresCluster.js";

const run = promisify(execFile);

/** What every failure to find or build Citus says. */
export const CITUS_HINT =
  "The Citus tests need Citus 13.2 built for PostgreSQL 15: scripts/citus.sh builds it from vendor/citus (or from CITUS_SRC, " +
  "a directory with configure, a directory holding citus-*.tar.gz, or the .tar.gz itself) " +
  "once (Debian packages: postgresql-15 postgresql-server-dev-15 and the libraries it lists, installed as root when missing) " +
  "into a cache outside the repository. Or set CITUS_BINDIR to the bin directory of a PostgreSQL 15 with Citus installed.";

/** A coordinator and its workers, started and stopped together. */
export type CitusCluster = {
  /** The coordinator's `postgres://imagegen@127.0.0.1:<port>/postgres`: where the store connects. */
  readonly url: string;
  readonly coordinator: PostgresCluster;
  readonly workers: readonly PostgresCluster[];
  /** Stops every node and removes its files; again is fine. */
  destroy(): Promise<void>;
};

/**
 * The bin directory of a PostgreSQL with Citus: `CITUS_BINDIR`, else what scripts/citus.sh prints
 * (it builds Citus from vendor/citus or `CITUS_SRC` the first time, a few minutes, and finds it in its cache after).
 *
 * @returns The directory of `postgres`, `initdb` and `pg_ctl`.
 * @throws Error with {@link CITUS_HINT} and the script's output when there is no Citus to use.
 */
export async function citusBinDir(): Promise<string> {
  if (process.env.CITUS_BINDIR) {
    return process.env.CITUS_BINDIR;
  }
  const script = fileURLToPath(new URL("../../scripts/citus.sh", import.meta.url));
  try {
    // A bound, not a speed check: the first build takes minutes on a busy machine.
    const { stdout } = await run("bash", [script], {
      timeout: 30 * 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = stdout.trim().split("\n");
    const bin = lines[lines.length - 1];
    if (!bin) {
      throw new Error("scripts/citus.sh printed nothing");
    }
    return bin;
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(
      `scripts/citus.sh failed: ${e.message}\n${(e.stderr ?? "").slice(-3000)}\n${CITUS_HINT}`,
    );
  }
}

/**
 * Starts a Citus cluster: each node with `shared_preload_libraries=citus` (as the `postgres` user
 * when root, as postgresCluster.ts does), `CREATE EXTENSION citus` on each, and on the coordinator
 * its own address and every worker (`citus_add_node`).
 *
 * @param options.workers - How many workers (default 2).
 * @returns The running cluster; the caller must {@link CitusCluster.destroy} it.
 * @throws Error with {@link CITUS_HINT} when Citus is missing, or the failing step's output.
 */
export async function startCitus(options: { workers?: number } = {}): Promise<CitusCluster> {
  const binDir = await citusBinDir();
  // Few shards per table: each test file distributes a fresh schema, and two workers need no more.
  const settings = [
    "shared_preload_libraries=citus",
    "citus.shard_count=8",
    "max_prepared_transactions=200",
  ];
  const nodes: PostgresCluster[] = [];
  const destroy = async () => {
    await Promise.all(nodes.map((node) => node.destroy()));
  };
  try {
    // One after another: initdb and a first start are most of the CPU of a start-up.
    for (let i = 0; i <= (options.workers ?? 2); i++) {
      nodes.push(await startPostgres({ binDir, settings }));
    }
    for (const node of nodes) {
      await sql(node.url, "CREATE EXTENSION IF NOT EXISTS citus");
    }
    const [coordinator, ...workers] = nodes as [PostgresCluster, ...PostgresCluster[]];
    await sql(coordinator.url, "SELECT citus_set_coordinator_host('127.0.0.1', $1)", [
      coordinator.port,
    ]);
    for (const worker of workers) {
      await sql(coordinator.url, "SELECT citus_add_node('127.0.0.1', $1)", [worker.port]);
    }
    return { url: coordinator.url, coordinator, workers, destroy };
  } catch (error) {
    await destroy();
    throw error;
  }
}

async function sql(url: string, text: string, values?: unknown[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}
