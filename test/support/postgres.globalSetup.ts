/**
 * Vitest global setup: one PostgreSQL cluster for the whole run, started the first time a test
 * file asks for it (`GET /url` on a loopback port given to the workers) and removed at the end.
 */
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { startPostgres } from "./postgresCluster.js";

/**
 * Starts a broker that starts a cluster the first time a test file asks for it (`GET /url`), or at
 * once when `eager`, answers every ask with the cluster's URL (or the error that stopped its start),
 * and provides the broker's address to the workers.
 *
 * @param project - The vitest project, to provide the broker's address to the workers.
 * @param start - Starts the cluster.
 * @param what - The cluster's name in the error when the broker has no port.
 * @param eager - Start the cluster before any test file runs, so that no file's setup bound pays
 *   for it (a global setup has no time bound): for a run whose every file needs the cluster.
 * @returns The teardown: closes the broker and removes the cluster, if one was started.
 */
export async function startClusterBroker(
  project: TestProject,
  start: () => Promise<{ readonly url: string; destroy(): Promise<void> }>,
  what: string,
  eager = false,
): Promise<() => Promise<void>> {
  let cluster: ReturnType<typeof start> | undefined;
  if (eager) {
    cluster = start();
    // A start that fails is answered to each test file, which fails with its message.
    await cluster.catch(() => {});
  }
  const server = createServer((request, response) => {
    if (request.url !== "/url") {
      response.writeHead(404).end();
      return;
    }
    cluster ??= start();
    cluster.then(
      (c) => response.writeHead(200, { "content-type": "text/plain" }).end(c.url),
      (error: unknown) =>
        response
          .writeHead(500, { "content-type": "text/plain" })
          .end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) {
    throw new Error(`the ${what} broker has no port`);
  }
  project.provide("postgresBroker", `http://127.0.0.1:${address.port}`);

  return async () => {
    await new Promise((resolve) => server.close(resolve));
    if (cluster) {
      await (await cluster.catch(() => undefined))?.destroy();
    }
  };
}

/**
 * Starts the broker the test files ask for the run's PostgreSQL cluster.
 *
 * @param project - The vitest project, to provide the broker's address to the workers.
 * @returns The teardown: closes the broker and removes the cluster, if one was started.
 */
export default function setup(project: TestProject): Promise<() => Promise<void>> {
  return startClusterBroker(project, () => startPostgres(), "PostgreSQL");
}
