import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStore, type PostgresStore } from "../../src/postgres/store.js";
import type { CommitResult } from "../../src/store/store.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { type PostgresTestDatabase, storeLayout, withPostgres } from "../support/postgres.js";
import { accepted, sampleDraft, sampleRequest, T0 } from "../support/storeContract.js";

// Two stores with two pools on one schema: two instances of a service, as far as the database sees.
let db: PostgresTestDatabase;
let a: PostgresStore;
let b: PostgresStore;
beforeAllOrFail(async () => {
  db = await withPostgres();
  [a, b] = await Promise.all([
    createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      ...storeLayout(),
    }),
    createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      ...storeLayout(),
    }),
  ]);
}, 180_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await db?.drop();
});

const hex = (bytes: number) => randomBytes(bytes).toString("hex");
const instance = (i: number) => (i % 2 === 0 ? a : b);

async function account(credits: number) {
  const userId = `usr_${hex(8)}`;
  await a.createUser({ id: userId, credits, multiplier: "1" }, T0);
  const apiKeyId = `apk_${hex(8)}`;
  await b.putApiKey({ id: apiKeyId, userId, mode: "live", hash: hex(32), revoked: false });
  return { userId, apiKeyId };
}

/** The reconciliation query of docs/postgres.md, as printed there, on this file's schema. */
const reconcile = (schema: string) => {
  const doc = readFileSync(new URL("../../docs/postgres.md", import.meta.url), "utf8");
  const query = /```sql reconcile\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!query) {
    throw new Error("docs/postgres.md has no ```sql reconcile block");
  }
  return query.replaceAll("imagegen.", `"${schema}".`);
};

describe("two instances on one database", () => {
  it("S14 S5: 200 concurrent commits with one idempotency key over both instances charge once", {
    timeout: 120_000,
  }, async () => {
    const { userId, apiKeyId } = await account(10_000);
    const request = sampleRequest({ imageCount: 2 });
    const claim = { key: request.idempotencyKey ?? "" };
    const drafts = Array.from({ length: 200 }, () => sampleDraft(userId, [21, 21], { request }));
    const results = await Promise.all(
      drafts.map((d, i) => instance(i).commitTask({ task: d, apiKeyId, claim }, T0)),
    );
    const winners = results.filter((r): r is Extract<CommitResult, { ok: true }> => r.ok);
    expect(winners.length).toBe(1);
    const winner = winners[0]?.task;
    const winnerDraft = drafts.find((d) => d.id === winner?.id);
    expect(winnerDraft && accepted(winnerDraft, 10_000 - 42)).toEqual(winner);
    for (const r of results) {
      if (!r.ok) {
        expect(r).toEqual({ ok: false, reason: "idempotency_key_taken", task: winner });
      }
    }
    expect((await b.getUser(userId))?.balance).toBe(10_000 - 42);
    const { rows } = await db.sql(
      `SELECT count(*)::int AS n FROM "${db.schema}".tasks WHERE user_id = $1`,
      [userId],
    );
    expect(rows[0]?.n).toBe(1);
    expect((await a.ledger(userId))?.filter((e) => e.kind === "debit")).toEqual([
      { kind: "debit", credits: 42, at: T0, taskId: winner?.id },
    ]);
  });

  it("S14 S4: 500 distinct concurrent commits over both instances and a balance for 137 accept exactly 137", {
    timeout: 120_000,
  }, async () => {
    const { userId, apiKeyId } = await account(137 * 9);
    const drafts = Array.from({ length: 500 }, () => sampleDraft(userId, [4, 5]));
    const results = await Promise.all(
      drafts.map((d, i) =>
        instance(i).commitTask(
          { task: d, apiKeyId, claim: { key: d.request.idempotencyKey ?? "" } },
          T0,
        ),
      ),
    );
    const ok = results.filter((r): r is Extract<CommitResult, { ok: true }> => r.ok);
    expect(ok.length).toBe(137);
    for (const r of results) {
      if (!r.ok) {
        expect(r).toMatchObject({ ok: false, reason: "insufficient_credits" });
      }
    }
    // Every accepted task saw a distinct balance: the debits are serialized, none lost.
    expect(new Set(ok.map((r) => r.task.balanceAfter)).size).toBe(137);
    expect(Math.min(...ok.map((r) => r.task.balanceAfter))).toBe(0);
    expect((await a.getUser(userId))?.balance).toBe(0);
    expect((await b.ledger(userId))?.filter((e) => e.kind === "debit").length).toBe(137);
  });

  it("S14 S6: every job failed on both instances at once is refunded exactly once", {
    timeout: 120_000,
  }, async () => {
    const { userId, apiKeyId } = await account(1000);
    const drafts = Array.from({ length: 10 }, (_, i) => sampleDraft(userId, [i + 1, 10, 20]));
    for (const d of drafts) {
      expect((await a.commitTask({ task: d, apiKeyId }, T0)).ok).toBe(true);
    }
    const balanceBefore = (await a.getUser(userId))?.balance ?? 0;
    const calls = drafts.flatMap((d) =>
      [0, 1, 2].flatMap((index) => Array.from({ length: 8 }, (_, k) => ({ d, index, k }))),
    );
    const refunds = await Promise.all(
      calls.map(({ d, index, k }) => instance(k).failJob(d.id, index, T0 + 1)),
    );
    const expected = drafts.reduce((sum, d) => sum + d.totalCredits, 0);
    expect(refunds.reduce<number>((sum, r) => sum + (r ?? Number.NaN), 0)).toBe(expected);
    for (const d of drafts) {
      for (const index of [0, 1, 2]) {
        const forJob = refunds.filter((_, i) => calls[i]?.d === d && calls[i]?.index === index);
        expect(forJob.filter((r) => r !== 0)).toEqual([d.jobCredits[index]]);
      }
      expect((await b.getTask(d.id))?.jobStatus).toEqual(["failed", "failed", "failed"]);
    }
    expect((await b.getUser(userId))?.balance).toBe(balanceBefore + expected);
    expect((await a.ledger(userId))?.filter((e) => e.kind === "refund").length).toBe(30);
  });

  it("S14 S13: after all of it, balance = grants - debits + refunds for every user, in one SQL query", async () => {
    const { rows } = await db.sql(reconcile(db.schema));
    expect(rows).toEqual([]);
    const { rows: users } = await db.sql<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${db.schema}".users`,
    );
    expect(users[0]?.n).toBeGreaterThanOrEqual(3);
  });

  it("S13: the reconciliation query finds a user whose balance was changed behind the ledger's back", async () => {
    const { userId } = await account(10);
    await db.sql(`UPDATE "${db.schema}".users SET balance = balance + 1 WHERE id = $1`, [userId]);
    const { rows } = await db.sql<{ id: string; balance: string; ledger: string }>(
      reconcile(db.schema),
    );
    expect(rows).toEqual([{ id: userId, balance: "11", ledger: "10" }]);
    await db.sql(`UPDATE "${db.schema}".users SET balance = balance - 1 WHERE id = $1`, [userId]);
  });

  it("S15: a key revoked on one instance charges nothing on the other", async () => {
    const { userId, apiKeyId } = await account(100);
    expect(await a.revokeApiKey(apiKeyId)).toBe(true);
    const draft = sampleDraft(userId, [5]);
    expect(await b.commitTask({ task: draft, apiKeyId }, T0)).toEqual({
      ok: false,
      reason: "api_key_revoked",
    });
    expect((await b.getUser(userId))?.balance).toBe(100);
  });
});
