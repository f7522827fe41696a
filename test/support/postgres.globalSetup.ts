/**
 * Vitest global setup: one PostgreSQL cluster for the whole run, started the first time a test
 * file asks for it (`GET /url` on a loopback port given to the workers) and removed at the end.
 */
import { createServer } from "node:http";
import type { TestProject } from "vitest/node";
import { type PostgresCluster, startPostgres } from "./postgresCluster.js";

/**
 * Starts the broker the test files ask for the run's cluster, and provides its address.
 *
 * @param project - The vitest project, to provide the broker's address to the workers.
 * @returns The teardown: closes the broker and removes the cluster, if one was started.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let cluster: Promise<PostgresCluster> | undefined;
  const server = createServer((request, response) => {
    if (request.url !== "/url") {
      response.writeHead(404).end();
      return;
    }
    cluster ??= startPostgres();
    cluster.then(
      (c) => response.writeHead(200, { "content-type": "text/plain" }).end(c.url),
      (error: unknown) =>
        response.writeHead(500, { "content-type": "text/plain" }).end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the PostgreSQL broker has no port");
  project.provide("postgresBroker", `http://127.0.0.1:${address.port}`);

  return async () => {
    await new Promise((resolve) => server.close(resolve));
    if (cluster) await (await cluster.catch(() => undefined))?.destroy();
  };
}
