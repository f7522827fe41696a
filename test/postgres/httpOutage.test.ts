/**
 * An outage as an HTTP client sees it: the reference server on PostgreSQL, served by `serve()` in
 * this process, while its database stops (in the middle of a request, and before one) and starts
 * again (S14). A cluster of its own, so that stopping it leaves the run's other files alone.
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import {
  createReferenceServer,
  type LogEntry,
  type ReferenceServer,
} from "../../src/server/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type HttpAnswer, postJson } from "../support/instances.js";
import { type PostgresCluster, startPostgres } from "../support/postgres.js";

let cluster: PostgresCluster;
let store: PostgresStore;
let server: ReferenceServer;
let running: RunningServer;
/** What the server told its operator. */
const logs: LogEntry[] = [];

beforeAllOrFail(async () => {
  cluster = await startPostgres();
  store = await createPostgresStore({ connectionString: cluster.url, schema: "http_outage" });
  server = createReferenceServer({ store, log: (entry) => logs.push(entry) });
  running = await serve({ port: 0, server, handleSignals: false });
}, 180_000);

afterAll(async () => {
  await running?.close();
  await store?.close().catch(() => {});
  await cluster?.destroy();
}, 60_000);

async function account(credits: number) {
  const { userId } = await server.admin.createUser({ credits });
  const { key } = await server.admin.createApiKey(userId);
  return { userId, key };
}

const generate = (key: string, body: unknown) =>
  postJson(`${running.url}/api/generations`, { authorization: `Bearer ${key}` }, body);

/** The checks every outage answer passes: 503, `Retry-After` in whole seconds, the JSON error. */
function expectUnavailable(res: HttpAnswer) {
  expect(res.status, res.text).toBe(503);
  expect(res.headers["retry-after"]).toMatch(/^[1-9]\d*$/);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(JSON.parse(res.text)).toMatchObject({
    error: { code: "service_unavailable", message: expect.any(String) },
  });
}

describe("the database stops while the server runs", () => {
  it("S14: stopped during a request: 503 with Retry-After and service_unavailable, nothing charged; started again, the same server accepts the retry once", {
    timeout: 180_000,
  }, async () => {
    const { userId, key } = await account(1000);
    const body = {
      prompt: "a lighthouse at dusk",
      modelId: "beta",
      imageCount: 2,
      idempotencyKey: "during-the-outage",
    };

    // Hold the user's row so that the request waits inside the database, then stop the database.
    const holder = new pg.Client({ connectionString: cluster.url });
    holder.on("error", () => {}); // the stop ends this session too
    await holder.connect();
    await holder.query("BEGIN");
    await holder.query('SELECT 1 FROM "http_outage".users WHERE id = $1 FOR UPDATE', [userId]);
    const answer = generate(key, body);
    // Watched from a session outside any transaction: inside one, pg_stat_activity is the snapshot
    // of its first read, and a request that arrives later is never seen.
    const watcher = new pg.Client({ connectionString: cluster.url });
    watcher.on("error", () => {});
    await watcher.connect();
    let waiting = 0;
    for (let tries = 0; tries < 3000 && waiting < 1; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const { rows } = await watcher.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'imagegen-pricing' AND wait_event_type = 'Lock'",
      );
      waiting = rows[0]?.n ?? 0;
    }
    await watcher.end();
    expect(waiting).toBe(1);
    // Immediate: a fast stop ends the holder's session first, and the waiting request could take
    // the freed lock and commit before its own session is ended.
    await cluster.stop("immediate");
    expectUnavailable(await answer);
    await holder.end().catch(() => {});

    // Still down: another request is refused the same way, and so is a read.
    expectUnavailable(await generate(key, body));
    const credits = await fetch(`${running.url}/api/query/credits`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(credits.status).toBe(503);
    expect(credits.headers.get("retry-after")).toMatch(/^[1-9]\d*$/);
    // The operator is told of each one; the client's key is in none of it.
    expect(JSON.stringify(logs)).not.toContain(key.slice(8));
    expect(logs.splice(0).map((e) => e.message)).toEqual(
      Array(3).fill("the store cannot be reached"),
    );

    await cluster.start();
    expect(await server.admin.balance(userId)).toBe(1000);
    expect(await server.admin.ledger(userId)).toEqual([
      { kind: "grant", credits: 1000, at: expect.any(String) },
    ]);

    // The same server object, no restart: the retry is accepted once, then replayed.
    const retry = await generate(key, body);
    expect(retry.status, retry.text).toBe(202);
    expect(retry.headers["idempotent-replayed"]).toBeUndefined();
    const again = await generate(key, body);
    expect(again.status).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.text).toBe(retry.text);
    const { batch } = JSON.parse(retry.text) as {
      batch: { taskId: string; totalCreditCost: number };
    };
    const debits = (await server.admin.ledger(userId)).filter((e) => e.kind === "debit");
    expect(debits).toEqual([
      {
        kind: "debit",
        credits: batch.totalCreditCost,
        at: expect.any(String),
        taskId: batch.taskId,
      },
    ]);
    expect(await server.admin.balance(userId)).toBe(1000 - batch.totalCreditCost);
  });

  it("S14: stopped before a request arrives: 503 at once, nothing charged; started again, the request is accepted once", {
    timeout: 180_000,
  }, async () => {
    const { userId, key } = await account(500);
    const body = { prompt: "a fox", modelId: "beta", idempotencyKey: "before-the-request" };
    await cluster.stop();
    for (let i = 0; i < 3; i++) {
      expectUnavailable(await generate(key, body));
    }
    expect(logs.splice(0).map((e) => e.message)).toEqual(
      Array(3).fill("the store cannot be reached"),
    );
    await cluster.start();
    expect(await server.admin.balance(userId)).toBe(500);
    const accepted = await generate(key, body);
    expect(accepted.status, accepted.text).toBe(202);
    const replay = await generate(key, body);
    expect(replay.headers["idempotent-replayed"]).toBe("true");
    expect(replay.text).toBe(accepted.text);
    const { batch } = JSON.parse(accepted.text) as { batch: { totalCreditCost: number } };
    expect(await server.admin.balance(userId)).toBe(500 - batch.totalCreditCost);
    expect((await server.admin.ledger(userId)).filter((e) => e.kind === "debit").length).toBe(1);
  });
});
