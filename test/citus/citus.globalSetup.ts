/**
 * Vitest global setup of `npm run test:citus`: one Citus cluster (a coordinator and two workers) for
 * the whole run, started the first time a test file asks for the run's database, and removed at the
 * end. It answers the broker of test/support/postgres.ts, so `withPostgres()` gives the
 * coordinator, and the PostgreSQL tests run on Citus unchanged (with `storeLayout()`).
 */
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { type CitusCluster, startCitus } from "../support/citusCluster.js";

/**
 * Starts the broker the test files ask for the run's cluster, and provides its address.
 *
 * @param project - The vitest project, to provide the broker's address to the workers.
 * @returns The teardown: closes the broker and removes the cluster, if one was started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: Promise<CitusCluster> | undefined;
  const server = createServer((request, response) => {
    if (request.url !== "/url") {
      response.writeHead(404).end();
      return;
    }
    cluster ??= startCitus({ workers: 2 });
    cluster.then(
      (c) => response.writeHead(200, { "content-type": "text/plain" }).end(c.url),
      (error: unknown) =>
        response.writeHead(500, { "content-type": "text/plain" }).end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the Citus broker has no port");
  project.provide("postgresBroker", `http://127.0.0.1:${address.port}`);

  return async () => {
    await new Promise((resolve) => server.close(resolve));
    if (cluster) await (await cluster.catch(() => undefined))?.destroy();
  };
}
