/**
 * A change that commits while an accepted task waits for its user's row: the commit must see it.
 * Registered by test/postgres/inFlight.test.ts on one PostgreSQL and by test/citus/inFlight.test.ts
 * on Citus, where `accept_generation` runs on the worker that holds the user.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import type { CommitResult } from "../../src/store/store.js";
import { beforeAllOrFail } from "./beforeAllOrFail.js";
import {
  lockWaitersQuery,
  type PostgresTestDatabase,
  storeLayout,
  withPostgres,
} from "./postgres.js";
import { sampleDraft, T0 } from "./storeContract.js";

/** A bound against a hang, not a speed check: a commit queues on a row within this on any machine. */
const QUEUED_WITHIN_MS = 60_000;

/** Registers the suite. */
export function inFlightSuite(): void {
  const hex = (bytes: number) => randomBytes(bytes).toString("hex");
  // The store's own pool, under a name of its own, so that only its sessions are counted waiting.
  const application = `imagegen-in-flight-${hex(4)}`;
  let db: PostgresTestDatabase;
  let pool: pg.Pool;
  let store: PostgresStore;
  beforeAllOrFail(async () => {
    db = await withPostgres();
    pool = new pg.Pool({
      connectionString: db.connectionString,
      application_name: application,
      max: 4,
    });
    const { distributed } = storeLayout();
    store = await createPostgresStore({
      pool,
      schema: db.schema,
      ...(distributed ? { distributed } : {}),
    });
  }, 180_000);
  afterAll(async () => {
    await store?.close();
    await pool?.end();
    await db?.drop();
  }, 60_000);

  const account = async () => {
    const userId = `usr_${hex(8)}`;
    await store.createUser({ id: userId, credits: 1000, multiplier: "1" }, T0);
    const apiKeyId = `apk_${hex(8)}`;
    await store.putApiKey({ id: apiKeyId, userId, mode: "live", hash: hex(32), revoked: false });
    return { userId, apiKeyId };
  };

  /**
   * Runs `change` in a transaction that takes the user's row first, starts `commit`, waits until
   * the commit queues on that row, then commits the change.
   */
  async function whileQueued(
    change: (client: pg.Client) => Promise<unknown>,
    commit: () => Promise<CommitResult>,
  ) {
    const holder = new pg.Client({ connectionString: db.connectionString });
    const watcher = new pg.Client({ connectionString: db.connectionString });
    await Promise.all([holder.connect(), watcher.connect()]);
    try {
      await holder.query("BEGIN");
      await change(holder);
      const result = commit();
      const deadline = Date.now() + QUEUED_WITHIN_MS;
      let waiting = 0;
      while (waiting === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        waiting =
          (await watcher.query<{ n: number }>(lockWaitersQuery(), [application])).rows[0]?.n ?? 0;
      }
      expect(waiting, "the commit queued on the user's row").toBe(1);
      await holder.query("COMMIT");
      return await result;
    } finally {
      await Promise.all([holder.end(), watcher.end()]);
    }
  }

  describe("a change committed while a commit waits for the user's row", () => {
    it("S15: a key revoked meanwhile charges nothing, and the idempotency key stays free", {
      timeout: 120_000,
    }, async () => {
      const { userId, apiKeyId } = await account();
      const draft = sampleDraft(userId, [30]);
      const claim = { key: draft.request.idempotencyKey ?? "" };
      const s = `"${db.schema}"`;
      // What revokeApiKey does: the owner's row, then the key.
      const revoke = async (client: pg.Client) => {
        await client.query(`SELECT id FROM ${s}.users WHERE id = $1 FOR NO KEY UPDATE`, [userId]);
        await client.query(`UPDATE ${s}.api_keys SET revoked = true WHERE id = $1`, [apiKeyId]);
      };
      expect(
        await whileQueued(revoke, () => store.commitTask({ task: draft, apiKeyId, claim }, T0)),
      ).toEqual({
        ok: false,
        reason: "api_key_revoked",
      });
      expect((await store.getUser(userId))?.balance).toBe(1000);
      expect(await store.ledger(userId)).toEqual([{ kind: "grant", credits: 1000, at: T0 }]);
      expect(await store.getTask(draft.id)).toBeUndefined();
      expect(await store.findClaimedTask(userId, claim.key, T0)).toBeUndefined();
    });

    it("S7: a multiplier changed meanwhile charges nothing and names the new one", {
      timeout: 120_000,
    }, async () => {
      const { userId, apiKeyId } = await account();
      const draft = sampleDraft(userId, [30]);
      const reprice = (client: pg.Client) =>
        client.query(`UPDATE "${db.schema}".users SET multiplier = '1.5' WHERE id = $1`, [userId]);
      const claim = { key: draft.request.idempotencyKey ?? "" };
      expect(
        await whileQueued(reprice, () => store.commitTask({ task: draft, apiKeyId, claim }, T0)),
      ).toEqual({
        ok: false,
        reason: "multiplier_changed",
        multiplier: "1.5",
      });
      expect((await store.getUser(userId))?.balance).toBe(1000);
      expect(await store.findClaimedTask(userId, claim.key, T0)).toBeUndefined();
    });

    it("S4: a lock that changed nothing lets the commit through, debited once", {
      timeout: 120_000,
    }, async () => {
      const { userId, apiKeyId } = await account();
      const draft = sampleDraft(userId, [30]);
      const lock = (client: pg.Client) =>
        client.query(`SELECT id FROM "${db.schema}".users WHERE id = $1 FOR NO KEY UPDATE`, [
          userId,
        ]);
      const claim = { key: draft.request.idempotencyKey ?? "" };
      const result = await whileQueued(lock, () =>
        store.commitTask({ task: draft, apiKeyId, claim }, T0),
      );
      expect(result).toMatchObject({ ok: true, task: { id: draft.id, balanceAfter: 970 } });
      expect((await store.getUser(userId))?.balance).toBe(970);
    });
  });
}
