/**
 * Vitest global setup of `npm run test:citus`: one Citus cluster (a coordinator and two workers) for
 * the whole run, started before the first test file (Citus built first when the cache lacks it, and
 * three clusters made: minutes on a busy machine, which no file's setup bound should have to cover),
 * and removed at the end. It answers the broker of test/support/postgres.ts, so `withPostgres()` gives the
 * coordinator, and the PostgreSQL tests run on Citus unchanged (with `storeLayout()`).
 */
import type { TestProject } from "vitest/node";
import { startCitus } from "../support/citusCluster.js";
import { startClusterBroker } from "../support/postgres.globalSetup.js";

/**
 * Starts the broker the test files ask for the run's Citus cluster.
 *
 * @param project - The vitest project, to provide the broker's address to the workers.
 * @returns The teardown: closes the broker and removes the cluster, if one was started.
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return startClusterBroker(project, () => startCitus({ workers: 2 }), "Citus", true);
}
