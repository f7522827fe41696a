/**
 * Reliability: isolation (S2). One user's key never reaches another user's assets, tasks or jobs:
 * for every endpoint that takes an id (the references of POST /api/generations; no other endpoint
 * reads an id, and tasks and jobs are not reachable over HTTP), a foreign id gets exactly the answer
 * of an id that does not exist, and the identity endpoints only ever show the caller.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkAnswer, checkLedger, get, post, snapshot, world } from "./helpers.js";

type Batch = { batch: { taskId: string; results: { job: { id: string } }[] } };

/** An answer with the parts that must differ (request id, the id itself) taken out. */
async function shape(res: Response, id: string) {
  const all: [string, string][] = [];
  res.headers.forEach((value, name) => void all.push([name, value]));
  const headers = all.filter(([name]) => name !== "request-id" && name !== "content-length");
  const { status, body } = await checkAnswer(res);
  const error = body.error as Record<string, unknown>;
  delete error.requestId;
  return {
    status,
    headers,
    body: JSON.stringify(body).split(JSON.stringify(id).slice(1, -1)).join("<ID>"),
  };
}

describe("reliability: isolation between users (S2)", () => {
  it("S2: a foreign asset, task, job, key or user id as a reference answers exactly like an unknown id, and moves nothing", async () => {
    const { server, admin, users } = await world(3, 1_000_000);
    // Give every user tasks and jobs whose ids the others could try.
    const owned = new Map<string, string[]>();
    for (const u of users) {
      const res = await post(server, "/api/generations", u.key, {
        prompt: "mine",
        modelId: "beta",
        imageCount: 2,
        generationType: "image-to-image",
        inputAssetIds: u.assets,
        idempotencyKey: "shared-name",
      });
      const { body } = await checkAnswer(res);
      const { batch } = body as unknown as Batch;
      owned.set(u.userId, [
        ...u.assets,
        batch.taskId,
        ...batch.results.map((r) => r.job.id),
        u.apiKeyId,
        u.userId,
      ]);
    }
    // The same id with its first random hex digit changed: same shape and length, owned by nobody.
    const unknownLike = (id: string) =>
      id.replace(/_([0-9a-f])/, (_m, c: string) => `_${c === "0" ? "1" : "0"}`);

    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 2 }),
        fc.nat({ max: 1 }),
        fc.nat({ max: 6 }),
        fc.nat({ max: 2 }),
        fc.constantFrom("beta", "alpha-img2-official", "gamma-image-1.5"),
        async (me, step, which, position, modelId) => {
          const caller = users[me] as (typeof users)[0];
          const victim = users[(me + 1 + step) % 3] as (typeof users)[0];
          const foreign = (owned.get(victim.userId) as string[])[which] as string;
          const unknown = unknownLike(foreign);
          expect(unknown).not.toBe(foreign);
          const ask = (id: string) => {
            const refs =
              modelId === "gamma-image-1.5" ? [id] : [...caller.assets.slice(0, position), id];
            return post(server, "/api/generations", caller.key, {
              prompt: "reach",
              modelId,
              generationType: "image-to-image",
              inputAssetIds: refs,
            });
          };
          const before = await Promise.all(users.map((u) => snapshot(server, u.userId)));
          const a = await shape(await ask(foreign), foreign);
          const b = await shape(await ask(unknown), unknown);
          expect(a.status).toBe(400);
          expect(a).toEqual(b);
          expect(a.body).toContain('"code":"asset_not_found"');
          expect(await Promise.all(users.map((u) => snapshot(server, u.userId)))).toEqual(before);
        },
      ),
    );
    for (const u of users) {
      await checkLedger(server, u.userId);
    }
    expect(
      (await admin.ledger(users[0]?.userId as string)).filter((e) => e.kind === "debit"),
    ).toHaveLength(1);
  }, 60_000);

  it("S2/S5: idempotency keys are per user: the same key name never replays another user's task or reveals its body", async () => {
    const { server, users } = await world(2, 1000);
    const [a, b] = users as [(typeof users)[0], (typeof users)[0]];
    const body = { prompt: "same words", modelId: "beta", idempotencyKey: "order-1" };
    const first = await checkAnswer(await post(server, "/api/generations", a.key, body));
    const second = await checkAnswer(await post(server, "/api/generations", b.key, body));
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    const ta = (first.body as unknown as Batch).batch.taskId;
    const tb = (second.body as unknown as Batch).batch.taskId;
    expect(ta).not.toBe(tb);
    expect(second.text).not.toContain(ta);
    expect((await server.admin.task(tb)).userId).toBe(b.userId);
    // B reusing the name with another body is B's own business: it conflicts with B's task only.
    const third = await checkAnswer(
      await post(server, "/api/generations", b.key, { ...body, prompt: "other" }),
    );
    expect(third.status).toBe(409);
    expect(third.text).not.toContain(ta);
    expect((await snapshot(server, a.userId)).balance).toBe(975);
    expect((await snapshot(server, b.userId)).balance).toBe(975);
  }, 60_000);

  it("S2/S9/S10: ping and credits show only the caller, whichever users exist; a revoked key reaches nothing", async () => {
    const { server, admin, users } = await world(4, 100);
    await admin.grantCredits(users[2]?.userId as string, 900);
    for (const u of users) {
      const ping = await checkAnswer(await get(server, "/api/ping", u.key));
      expect(ping.body).toMatchObject({ userId: u.userId, apiKeyId: u.apiKeyId });
      const credits = await checkAnswer(await get(server, "/api/query/credits", u.key));
      expect(credits.body).toMatchObject({
        userId: u.userId,
        apiKeyId: u.apiKeyId,
        creditBalance: await admin.balance(u.userId),
      });
      for (const other of users) {
        if (other !== u) {
          expect(ping.text + credits.text).not.toContain(other.userId);
        }
      }
    }
    const victim = users[1] as (typeof users)[0];
    await admin.revokeApiKey(victim.apiKeyId);
    for (const path of ["/api/ping", "/api/query/credits"]) {
      const { status, text } = await checkAnswer(await get(server, path, victim.key));
      expect(status).toBe(401);
      expect(text).not.toContain(victim.userId);
    }
    const { status } = await checkAnswer(
      await post(server, "/api/generations", victim.key, { prompt: "x", modelId: "beta" }),
    );
    expect(status).toBe(401);
    expect(await admin.balance(victim.userId)).toBe(100);
  }, 60_000);
});
