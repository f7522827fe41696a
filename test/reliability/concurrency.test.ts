/**
 * Reliability: concurrency. A thousand requests in flight at once, in process and over
 * loopback HTTP: one idempotency key charges once (S5), and a balance that covers N of a thousand
 * distinct requests accepts exactly N and leaves exactly the remainder (S4, S13).
 */
import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, serve } from "../../src/node/index.js";
import type { ReferenceServer } from "../../src/server/index.js";
import { BASE, checkAnswer, checkLedger, world } from "./helpers.js";

const N_REQUESTS = 1000;
const BETA_COST = 25; // beta, one image, multiplier 1 (P1)

const running: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

type Answer = { status: number; text: string; replayed: string | null };

/** Sends one JSON POST in process. */
async function inProcess(server: ReferenceServer, key: string, body: unknown): Promise<Answer> {
  const res = await server.fetch(
    new Request(`${BASE}/api/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  const replayed = res.headers.get("idempotent-replayed");
  const { status, text } = await checkAnswer(res);
  return { status, text, replayed };
}

/** Sends one JSON POST over a fresh loopback connection (no agent: a thousand sockets at once). */
function overHttp(url: string, key: string, body: unknown): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/generations`,
      {
        method: "POST",
        agent: false,
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const replayed = res.headers["idempotent-replayed"];
          resolve({
            status: res.statusCode ?? 0,
            text,
            replayed: typeof replayed === "string" ? replayed : null,
          });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

type Send = (key: string, body: unknown) => Promise<Answer>;

async function transports(): Promise<[string, (server: ReferenceServer) => Promise<Send>][]> {
  return [
    ["in process", async (server) => (key, body) => inProcess(server, key, body)],
    [
      "over loopback HTTP",
      async (server) => {
        // Every socket comes from 127.0.0.1: one address may hold all of them here.
        const r = await serve({
          port: 0,
          server,
          handleSignals: false,
          maxConnectionsPerAddress: N_REQUESTS,
        });
        running.push(r);
        return (key, body) => overHttp(r.url, key, body);
      },
    ],
  ];
}

describe("reliability: concurrency (S4, S5, S13)", async () => {
  for (const [name, connect] of await transports()) {
    it(`S5: ${N_REQUESTS} concurrent identical requests with one idempotency key charge exactly once (${name})`, async () => {
      const { server, admin, users } = await world(1, 10_000);
      const me = users[0] as (typeof users)[0];
      const send = await connect(server);
      const body = {
        prompt: "one fox, many clicks",
        modelId: "beta2",
        resolution: "4K",
        imageCount: 2,
        idempotencyKey: "burst-1",
      };
      const answers = await Promise.all(
        Array.from({ length: N_REQUESTS }, () => send(me.key, body)),
      );

      expect(answers.every((a) => a.status === 202)).toBe(true);
      expect(new Set(answers.map((a) => a.text)).size).toBe(1); // every answer is the original body, byte for byte
      expect(answers.filter((a) => a.replayed === "true")).toHaveLength(N_REQUESTS - 1);
      const debits = (await admin.ledger(me.userId)).filter((e) => e.kind === "debit");
      expect(debits).toHaveLength(1);
      expect(debits[0]?.credits).toBe(240);
      expect(await admin.balance(me.userId)).toBe(10_000 - 240);
      await checkLedger(server, me.userId);
    }, 60_000);

    it(`S4: ${N_REQUESTS} concurrent distinct requests against a balance covering N accept exactly N and leave the remainder (${name})`, async () => {
      const covered = 377;
      const remainder = BETA_COST - 1;
      const { server, admin, users } = await world(1, covered * BETA_COST + remainder);
      const me = users[0] as (typeof users)[0];
      const send = await connect(server);
      const answers = await Promise.all(
        Array.from({ length: N_REQUESTS }, (_, i) =>
          send(me.key, {
            prompt: `fox ${i}`,
            modelId: "beta",
            ...(i % 2 === 0 ? { idempotencyKey: `distinct-${i}` } : {}),
          }),
        ),
      );
      expect(answers.filter((a) => a.status === 202)).toHaveLength(covered);
      expect(answers.filter((a) => a.status === 402)).toHaveLength(N_REQUESTS - covered);
      expect(answers.filter((a) => a.status !== 202 && a.status !== 402)).toEqual([]);
      expect(await admin.balance(me.userId)).toBe(remainder);
      const ledger = await admin.ledger(me.userId);
      expect(ledger.filter((e) => e.kind === "debit")).toHaveLength(covered);
      // Every accepted answer reported a distinct balance: debits were serialized, none was lost.
      const after = answers
        .filter((a) => a.status === 202)
        .map(
          (a) =>
            (JSON.parse(a.text) as { billing: { balanceAfterCredits: number } }).billing
              .balanceAfterCredits,
        );
      expect(new Set(after).size).toBe(covered);
      expect(Math.min(...after)).toBe(remainder);
      await checkLedger(server, me.userId);
    }, 60_000);
  }

  it("S5: concurrent requests with one key and different bodies: exactly one task, the rest replay it or get 409", async () => {
    const { server, admin, users } = await world(1, 100_000);
    const me = users[0] as (typeof users)[0];
    const answers = await Promise.all(
      Array.from({ length: N_REQUESTS }, (_, i) =>
        inProcess(server, me.key, {
          prompt: `variant ${i % 4}`,
          modelId: "beta",
          idempotencyKey: "contested",
        }),
      ),
    );
    const accepted = answers.filter((a) => a.status === 202);
    expect(new Set(accepted.map((a) => a.text)).size).toBe(1);
    expect(accepted.filter((a) => a.replayed !== "true")).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(N_REQUESTS - accepted.length);
    expect(accepted.length).toBe(N_REQUESTS / 4); // the winner's own variant replays, the three others conflict
    expect((await admin.ledger(me.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
    expect(await admin.balance(me.userId)).toBe(100_000 - BETA_COST);
    await checkLedger(server, me.userId);
  }, 60_000);

  it("S4/S6: concurrent generations interleaved with job failures and grants keep balance = granted - debits + refunds", async () => {
    const { server, admin, users } = await world(3, 5_000);
    const jobs: string[] = [];
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < N_REQUESTS; i++) {
      const u = users[i % users.length] as (typeof users)[0];
      work.push(
        inProcess(server, u.key, {
          prompt: `p${i}`,
          modelId: "beta",
          imageCount: 1 + (i % 3),
        }).then(async (a) => {
          if (a.status === 202) {
            const results = (
              JSON.parse(a.text) as { batch: { results: { job: { id: string } }[] } }
            ).batch.results;
            for (const r of results) {
              jobs.push(r.job.id);
            }
          }
          // fail every job seen so far once more, and every other one twice: refunds stay once per job
          const job = jobs[i % Math.max(jobs.length, 1)];
          if (job !== undefined) {
            await admin.failJob(job);
          }
          if (i % 50 === 0) {
            await admin.grantCredits(u.userId, 100);
          }
        }),
      );
    }
    await Promise.all(work);
    for (const u of users) {
      await checkLedger(server, u.userId);
    }
  }, 60_000);
});
