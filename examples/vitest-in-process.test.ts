/**
 * Recipe: the reference server in process, in a Vitest suite: no network, no port, state set up
 * with fixtures and the admin methods, and checked through the same API a client uses.
 */
import { createReferenceServer } from "imagegen-pricing/server";
import { describe, expect, it } from "vitest";

const KEY = "ck_test_example_0000000000000001";

function api(server: ReturnType<typeof createReferenceServer>, path: string, body?: unknown) {
  return server.fetch(
    new Request(`http://test.local${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
}

describe("recipe: Vitest with the server in process", () => {
  it("S4: charges a generation, and S6: refunds a failed job once", async () => {
    const server = createReferenceServer({
      fixtures: { users: [{ id: "usr_example", credits: 100, apiKeys: [KEY] }] },
    });

    const accepted = await api(server, "/api/generations", {
      prompt: "a red bicycle",
      modelId: "beta",
      imageCount: 2,
    });
    expect(accepted.status).toBe(202);
    const body = await accepted.json();
    expect(body.billing).toEqual({ totalCreditCost: 50, balanceAfterCredits: 50 });

    const jobId = body.batch.results[0].job.id;
    expect(await server.admin.failJob(jobId)).toEqual({ refundedCredits: 25 });
    expect(await server.admin.failJob(jobId)).toEqual({ refundedCredits: 0 });
    expect(await server.admin.balance("usr_example")).toBe(75);

    const credits = await (await api(server, "/api/query/credits")).json();
    expect(credits).toMatchObject({
      creditBalance: 75,
      currency: "credits",
      userId: "usr_example",
    });
  });

  it("S4: a balance too small is 402 and nothing changes", async () => {
    const server = createReferenceServer({
      fixtures: { users: [{ id: "usr_poor", credits: 10, apiKeys: [KEY] }] },
    });
    const res = await api(server, "/api/generations", { prompt: "x", modelId: "beta" });
    expect(res.status).toBe(402);
    expect((await res.json()).error.code).toBe("insufficient_credits");
    expect(await server.admin.ledger("usr_poor")).toEqual([
      expect.objectContaining({ kind: "grant", credits: 10 }),
    ]);
  });
});
