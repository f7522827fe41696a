/**
 * The budget is a promise, and money is bounded under lost answers: runs against the reference
 * server over HTTP, some made wrong by a wrapper of its fetch handler.
 */
import { afterEach, describe, expect, it } from "vitest";
import { formatReport, runConformance, toJUnit } from "../../../src/conformance/index.js";
import { type ListeningReference, type ReferenceOptions, startReference } from "./reference.js";

const running: ListeningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function start(options: ReferenceOptions = {}): Promise<ListeningReference> {
  const ref = await startReference(options);
  running.push(ref);
  return ref;
}

/** The cheapest create (one 1K image of alpha-img2): 21 credits at multiplier 1.15. */
const CHEAPEST = { prompt: "a fox", modelId: "alpha-img2", resolution: "1K" };
const CHEAPEST_PRICE = 21;

/** A server that charges the cheapest create for every create it refuses with 400. */
const chargesRefusals: ReferenceOptions["wrap"] = (fetch) => async (request) => {
  const url = new URL(request.url);
  const auth = request.headers.get("authorization") ?? "";
  const copy = request.clone();
  const response = await fetch(request);
  if (url.pathname === "/api/generations" && response.status === 400 && copy.method === "POST") {
    await fetch(
      new Request(url, {
        method: "POST",
        headers: { authorization: auth, "content-type": "application/json" },
        body: JSON.stringify(CHEAPEST),
      }),
    );
  }
  return response;
};

describe("the budget", () => {
  it("N1: a refusal that charges is caught at that request, and the run stops charging (budget 0)", async () => {
    const ref = await start({ wrap: chargesRefusals });
    const before = await ref.balance();
    const report = await runConformance({ baseUrl: ref.url, key: ref.key, assets: ref.assets });
    const spent = before - (await ref.balance());
    expect(report.ok).toBe(false);
    expect(spent).toBe(CHEAPEST_PRICE); // one such request, and no more
    expect(report.spentCredits).toBe(spent);
    const n1 = report.checks.find((c) => c.rule === "N1");
    expect(n1?.status).toBe("failed");
    expect(n1?.failures[0]?.message).toMatch(/moved the balance by -21 credits/);
    const n2 = report.checks.find((c) => c.rule === "N2");
    expect(n2?.status).toBe("skipped");
    expect(n2?.reason).toMatch(/charging stopped/);
  });

  it("S4: with a budget, a run spends at most that budget plus one refused request that charged", async () => {
    const ref = await start({ wrap: chargesRefusals });
    const before = await ref.balance();
    const report = await runConformance({ baseUrl: ref.url, key: ref.key, budget: 100 });
    expect(before - (await ref.balance())).toBeLessThanOrEqual(100 + CHEAPEST_PRICE);
    expect(report.ok).toBe(false);
  });

  it("S4: on a correct server a small budget is kept, and the checks it cannot pay say so", async () => {
    const ref = await start();
    const before = await ref.balance();
    const report = await runConformance({ baseUrl: ref.url, key: ref.key, budget: 50, runs: 0 });
    const spent = before - (await ref.balance());
    expect(report.ok).toBe(true);
    expect(spent).toBeGreaterThan(0);
    expect(spent).toBeLessThanOrEqual(50);
    expect(report.spentCredits).toBe(spent);
    const v5 = report.checks.find((c) => c.rule === "V5");
    expect(v5?.status).toBe("passed"); // by its refusals; its accepted ends need more credits
    const p5 = report.checks.find((c) => c.rule === "P5");
    expect(p5?.reason ?? "").toMatch(/budget \(50\) leaves/);
  });
});

describe("uncertain outcomes", () => {
  it("S5, S4: a create whose answer is lost is retried with its key and charged once", async () => {
    let lost = 0;
    const ref = await start({
      wrap: (fetch) => async (request) => {
        const response = await fetch(request);
        if (
          new URL(request.url).pathname === "/api/generations" &&
          response.status === 202 &&
          lost < 2
        ) {
          lost += 1;
          throw new Error("the answer is lost"); // serve() closes the connection unanswered
        }
        return response;
      },
    });
    const before = await ref.balance();
    const report = await runConformance({
      baseUrl: ref.url,
      key: ref.key,
      assets: ref.assets,
      budget: 2000,
    });
    expect(lost).toBe(2);
    expect(report.checks.filter((c) => c.status === "failed")).toEqual([]);
    expect(report.spentCredits).toBe(before - (await ref.balance()));
  });
});

describe("secrets", () => {
  it("S1: a server that echoes the key fails S1, and the key is in no report, table or JUnit file", async () => {
    const ref = await start({
      wrap: (fetch) => async (request) => {
        const response = await fetch(request);
        if (new URL(request.url).pathname !== "/api/ping" || response.status !== 200) {
          return response;
        }
        const body = (await response.json()) as Record<string, unknown>;
        const key = (request.headers.get("authorization") ?? "").replace(/^Bearer /i, "");
        return Response.json({ ...body, service: `service for ${key}` });
      },
    });
    const report = await runConformance({ baseUrl: ref.url, key: ref.key });
    const s1 = report.checks.find((c) => c.rule === "S1");
    expect(s1?.status).toBe("failed");
    expect(s1?.failures[0]?.message).toMatch(/echoes the API key/);
    for (const text of [JSON.stringify(report), formatReport(report), toJUnit(report)]) {
      expect(text).not.toContain(ref.key);
      expect(text).not.toContain(ref.key.slice(8, 30));
    }
    expect(s1?.failures[0]?.curl).toContain('"$API_KEY"');
  });
});
