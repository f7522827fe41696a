/**
 * One instance of the reference server on PostgreSQL, as its own process: `createPostgresStore`,
 * `createReferenceServer` and `serve()` of the node entry on 127.0.0.1, port 0. The tests run two of
 * these on one schema, kill one with SIGKILL and start it again.
 *
 * Run: `node --import tsx test/support/instance.ts` with `DATABASE_URL` and `IMAGEGEN_SCHEMA` set
 * (`INSTANCE_POOL_MAX`, `INSTANCE_CONNECT_TIMEOUT_MS` optional). Once listening it prints one line
 * of JSON, `{"port":<port>,"pid":<pid>}`. Started with an IPC channel (`fork`), it also answers
 * admin calls for the tests over it (`{ id, method, args }` to `{ id, ok, value | error }`), so that
 * operator work such as failing a job can run in this very process; the HTTP server stays exactly
 * what `serve()` makes.
 */
import pg from "pg";
import { serve } from "../../src/node/index.js";
import { createPostgresStore } from "../../src/postgres/store.js";
import { type Admin, createReferenceServer } from "../../src/server/index.js";

/** An admin call sent to an instance over IPC. */
export type AdminCall = { id: number; method: keyof Admin; args: unknown[] };
/** Its answer. */
export type AdminAnswer =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { name: string; message: string; code?: string } };

const connectionString = process.env.DATABASE_URL;
const schema = process.env.IMAGEGEN_SCHEMA;
if (!connectionString || !schema) {
  throw new Error("instance.ts needs DATABASE_URL and IMAGEGEN_SCHEMA");
}

// The store's own pool would do (10 connections, 5 s to get one); the tests send bursts of 1,000
// requests on a shared 2-core machine, where a request may wait longer than 5 s for a connection.
const pool = new pg.Pool({
  connectionString,
  max: Number(process.env.INSTANCE_POOL_MAX ?? 10),
  connectionTimeoutMillis: Number(process.env.INSTANCE_CONNECT_TIMEOUT_MS ?? 5000),
  // Names this process in pg_stat_activity, so that a test can see what its connections wait on.
  application_name: `imagegen-pricing-instance-${process.pid}`,
});
// The Citus run (IMAGEGEN_TEST_CITUS=1, inherited from the test) lays the schema out distributed.
const store = await createPostgresStore({
  pool,
  schema,
  ...(process.env.IMAGEGEN_TEST_CITUS === "1" ? { distributed: true } : {}),
});
const server = createReferenceServer({ store });
// The tests load an instance from 127.0.0.1 alone, with hundreds of connections at once.
const running = await serve({
  port: 0,
  host: "127.0.0.1",
  server,
  handleSignals: false,
  maxConnectionsPerAddress: 1000,
});

const shutdown = async () => {
  await running.close();
  await store.close();
  await pool.end();
  process.exit(0);
};
process.once("SIGTERM", () => void shutdown());
process.once("SIGINT", () => void shutdown());

if (process.send) {
  // The test that started this instance is gone (ended or killed): so is the instance.
  process.on("disconnect", () => process.exit(0));
  process.on("message", (message: AdminCall) => {
    const method = server.admin[message.method] as (...args: unknown[]) => Promise<unknown>;
    Promise.resolve()
      .then(() => method.apply(server.admin, message.args))
      .then(
        (value): AdminAnswer => ({ id: message.id, ok: true, value: value ?? null }),
        (error: Error & { code?: string }): AdminAnswer => ({
          id: message.id,
          ok: false,
          error: {
            name: error.name,
            message: error.message,
            ...(error.code === undefined ? {} : { code: error.code }),
          },
        }),
      )
      .then((answer) => process.send?.(answer));
  });
}
process.stdout.write(`${JSON.stringify({ port: running.port, pid: process.pid })}\n`);
