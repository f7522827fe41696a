/**
 * A direct hono app on `@hono/node-server` that accepts a generation the plain way: the key's
 * SHA-256 looked up in a Map, the body read with `c.req.json()`, checked and priced by the core
 * (`checkRequest`, `priceValidated`), the charge, the task, its idempotency claim and the debit kept
 * in Maps and an array, and the 202 body answered with `c.json`. It leaves out what the reference
 * server adds for a service and a test double: bounds on the body before it is parsed, the
 * `Idempotency-Key` header, replays, faults, the journal, counting requests in flight. What the
 * chosen libraries reach for this work, beside the reference server (`bench/http.ts compare`). Not a
 * baseline of a budget: it calls the core that the reference server calls, so that only the
 * reference server's own work separates the two.
 */
import { hash, randomUUID } from "node:crypto";
import { Hono } from "hono";
import { catalog } from "../src/models/catalog.js";
import { priceValidated } from "../src/pricing/computeCharge.js";
import { checkRequest } from "../src/request/checkRequest.js";

/** The app and the API key of its one user (credits to spare, multiplier 1.15). */
export function createDirectApp(): {
  fetch: (request: Request) => Response | Promise<Response>;
  key: string;
} {
  const key = `ck_test_${randomUUID()}`;
  const keys = new Map([[hash("sha256", key, "hex"), { userId: "usr_1", apiKeyId: "apk_1" }]]);
  const users = new Map([
    [
      "usr_1",
      {
        balance: 1e15,
        multiplier: "1.15",
        claims: new Map<string, string>(),
        ledger: [] as object[],
      },
    ],
  ]);
  const tasks = new Map<string, object>();
  const app = new Hono();
  app.post("/api/generations", async (c) => {
    const token = /^Bearer (.+)$/.exec(c.req.header("authorization") ?? "")?.[1];
    const caller = token === undefined ? undefined : keys.get(hash("sha256", token, "hex"));
    const user = caller && users.get(caller.userId);
    if (!caller || !user) {
      return c.json({ error: { code: "invalid_api_key" } }, 401);
    }
    const checked = checkRequest(await c.req.json(), { catalog });
    if (!checked.success) {
      return c.json({ error: { code: "invalid_request", issues: checked.issues } }, 400);
    }
    const request = checked.output;
    const claim = request.idempotencyKey;
    if (claim !== undefined && user.claims.has(claim)) {
      return c.json({ error: { code: "idempotency_key_reused" } }, 409);
    }
    const charge = priceValidated(request, { account: { multiplier: user.multiplier }, catalog });
    if (user.balance < charge.totalCreditCost) {
      return c.json({ error: { code: "insufficient_credits" } }, 402);
    }
    user.balance -= charge.totalCreditCost;
    const id = `task_${randomUUID()}`;
    const now = Date.now();
    const jobCredits = charge.lines.map((line) => line.credits);
    tasks.set(id, {
      id,
      userId: caller.userId,
      createdAt: now,
      request,
      jobCredits,
      total: charge.totalCreditCost,
      balanceAfter: user.balance,
    });
    if (claim !== undefined) {
      user.claims.set(claim, id);
    }
    user.ledger.push({ kind: "debit", credits: charge.totalCreditCost, at: now, taskId: id });
    const money = { totalCreditCost: charge.totalCreditCost, balanceAfterCredits: user.balance };
    const { imageCount, modelId, aspectRatio, resolution, prompt } = request;
    const results = jobCredits.map((_, i) => ({
      job: { id: `job_${id.slice(5)}_${i}`, status: "queued" },
      assets: [],
    }));
    c.header("request-id", `req_${randomUUID()}`);
    c.header("cache-control", "no-store");
    return c.json(
      {
        batch: {
          taskId: id,
          request: { imageCount, modelId, aspectRatio, resolution, prompt },
          results,
          ...money,
        },
        billing: money,
      },
      202,
    );
  });
  return { fetch: app.fetch, key };
}
