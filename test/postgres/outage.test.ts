import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import { type CommitResult, StoreUnavailableError, type TaskDraft } from "../../src/store/store.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { oneShot, type PostgresCluster, startPostgres } from "../support/postgres.js";
import { sampleDraft, T0 } from "../support/storeContract.js";

// A cluster of its own: stopping the run's shared one would fail the other files running meanwhile.
let cluster: PostgresCluster;
let store: PostgresStore;
beforeAllOrFail(async () => {
  cluster = await startPostgres();
  store = await createPostgresStore({ connectionString: cluster.url, schema: "outage" });
}, 180_000);
afterAll(async () => {
  await store?.close().catch(() => {});
  await cluster?.destroy();
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

async function account(credits: number) {
  const userId = `usr_${hex(8)}`;
  await store.createUser({ id: userId, credits, multiplier: "1" }, T0);
  const apiKeyId = `apk_${hex(8)}`;
  const hash = hex(32);
  await store.putApiKey({ id: apiKeyId, userId, mode: "test", hash, revoked: false });
  return { userId, apiKeyId, hash };
}

type Outcome = CommitResult | "unavailable";

/** Commits with the draft's own key as the claim; an unreachable database is an outcome, any other error is thrown. */
const commit = (draft: TaskDraft, apiKeyId: string): Promise<Outcome> =>
  store
    .commitTask({ task: draft, apiKeyId, claim: { key: draft.request.idempotencyKey ?? "" } }, T0)
    .catch((error) => {
      if (error instanceof StoreUnavailableError) {
        return "unavailable" as const;
      }
      throw error;
    });

describe("the database goes away and comes back", () => {
  it("S14: while it is stopped every method rejects with StoreUnavailableError; once started, the same store serves and a retry is accepted once", {
    timeout: 120_000,
  }, async () => {
    const { userId, apiKeyId, hash } = await account(100);
    const paid = sampleDraft(userId, [10]);
    expect((await commit(paid, apiKeyId)).valueOf()).toMatchObject({ ok: true });

    await cluster.stop();
    const draft = sampleDraft(userId, [25, 25]);
    expect(await commit(draft, apiKeyId)).toBe("unavailable");
    const rejected = await store.getUser(userId).catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(StoreUnavailableError);
    expect((rejected as StoreUnavailableError).retryAfterMs).toBeGreaterThan(0);
    await expect(store.failJob(paid.id, 0, T0)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.ledger(userId)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.revokeApiKey(apiKeyId)).rejects.toBeInstanceOf(StoreUnavailableError);

    await cluster.start();
    expect(await store.getUser(userId)).toMatchObject({ balance: 90 });
    expect(await store.getTask(draft.id)).toBeUndefined();
    expect(await commit(draft, apiKeyId)).toMatchObject({ ok: true, task: { balanceAfter: 40 } });
    expect(
      await commit(sampleDraft(userId, [25, 25], { request: draft.request }), apiKeyId),
    ).toMatchObject({
      ok: false,
      reason: "idempotency_key_taken",
      task: { id: draft.id },
    });
    expect((await store.findCaller(hash))?.key).toMatchObject({ id: apiKeyId, revoked: false });
    expect((await store.ledger(userId))?.map((e) => e.kind)).toEqual(["grant", "debit", "debit"]);
  });

  it("S14: stopped in the middle of a load, every keyed request retried afterwards is charged exactly once", {
    timeout: 180_000,
  }, async () => {
    const start = 100_000;
    const { userId, apiKeyId } = await account(start);
    const drafts = Array.from({ length: 240 }, (_, i) => sampleDraft(userId, [1 + (i % 5), 3]));
    const first: Outcome[] = new Array(drafts.length);

    // 8 clients send their requests one after another; the database stops after the 60th answer.
    // The requests then in flight meet the stop however they can; each client's next one waits
    // for the stop to complete, so the rest of the load meets a stopped database whatever the timing.
    let answered = 0;
    let next = 0;
    let stopping: Promise<void> | undefined;
    const client = async () => {
      while (next < drafts.length) {
        const i = next++;
        first[i] = await commit(drafts[i] as TaskDraft, apiKeyId);
        if (++answered === 60) {
          stopping = cluster.stop();
        }
        if (stopping) {
          await stopping;
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, client));
    await stopping;
    // Sent after the stop completed: none of these can have reached the database.
    const late = Array.from({ length: 10 }, () => sampleDraft(userId, [7]));
    for (const d of late) {
      expect(await commit(d, apiKeyId)).toBe("unavailable");
    }

    const unavailable = first.filter((o) => o === "unavailable").length;
    expect(unavailable).toBeGreaterThan(0);
    for (const o of first) {
      if (o !== "unavailable") {
        expect(o).toMatchObject({ ok: true });
      }
    }

    await cluster.start();
    for (const d of late) {
      expect(await store.getTask(d.id)).toBeUndefined();
    }
    // Each client retries what it was not told, with the same key: a replay or a first acceptance.
    for (const [i, d] of drafts.entries()) {
      if (first[i] !== "unavailable") {
        continue;
      }
      const retry = await commit(d, apiKeyId);
      if (retry === "unavailable" || !(retry.ok || retry.reason === "idempotency_key_taken")) {
        throw new Error(`retry ${i}: ${JSON.stringify(retry)}`);
      }
      expect(retry.task.id).toBe(d.id);
    }

    // Every request is charged once: one debit per key, and the balance agrees with the ledger.
    const ledger = (await store.ledger(userId)) ?? [];
    const debits = ledger.filter((e) => e.kind === "debit");
    expect(debits.map((e) => e.taskId).sort()).toEqual(drafts.map((d) => d.id).sort());
    const charged = drafts.reduce((sum, d) => sum + d.totalCredits, 0);
    expect(await store.getUser(userId)).toMatchObject({ balance: start - charged });
  });
});

describe("a database the store cannot use", () => {
  it("a database whose encoding is not UTF8 is refused on start, with the fix", {
    timeout: 60_000,
  }, async () => {
    await oneShot(
      cluster.url,
      "CREATE DATABASE latin ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0",
    );
    const url = cluster.url.replace(/\/postgres$/, "/latin");
    await expect(createPostgresStore({ connectionString: url })).rejects.toThrow(
      "the database's encoding is LATIN1; the store needs UTF8",
    );
    const { rows } = await oneShot(url, "SELECT to_regnamespace('imagegen') AS schema");
    expect(rows).toEqual([{ schema: null }]);
  });
});
