/**
 * The client against the reference server's faults (S17), in process (`fetch: server.fetch`) and
 * over a socket (`serve()`): a lost answer, 503 with `Retry-After`, 500 and a delay, alone and
 * mixed. Every run ends with the laws of `expectChargedOnce`: each create charged at most once,
 * exactly once when it resolved, one key on all its attempts, the ledger reconciled.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type Client,
  createClient,
  type GenerationInput,
  ImagegenError,
  type RetryEvent,
} from "../../src/client/index.js";
import { checkRequest, computeCharge } from "../../src/index.js";
import { serve } from "../../src/node/index.js";
import type { FaultInput, ReferenceServer } from "../../src/server/index.js";
import { type CreateOutcome, double, expectChargedOnce, rejection, tracked } from "./helpers.js";

const BODY = {
  prompt: "a lighthouse at dusk",
  modelId: "beta-pro",
  resolution: "4K",
  imageCount: 2,
} as const;
/** beta-pro at 4K is 100 credits an image. */
const COST = 200;

type Transport = "in process" | "over a socket";

/** A server with faults on and a client on it, in process or through `serve()`; `close` stops the socket. */
async function setupOn(
  transport: Transport,
  options: { maxRetries?: number; timeoutMs?: number; maxRetryDelayMs?: number } = {},
) {
  const d = await double({ credits: 10_000 });
  const retries: RetryEvent[] = [];
  const onRetry = (event: RetryEvent) => retries.push(event);
  if (transport === "in process") {
    const wire = tracked(d.server.fetch);
    const client = createClient({
      apiKey: d.key,
      baseUrl: "http://double.test",
      fetch: wire.fetch,
      maxRetryDelayMs: 0,
      onRetry,
      ...options,
    });
    return { ...d, client, retries, settle: wire.idle, close: async () => {} };
  }
  const running = await serve({ port: 0, server: d.server, handleSignals: false });
  const client = createClient({
    apiKey: d.key,
    baseUrl: running.url,
    maxRetryDelayMs: 0,
    onRetry,
    ...options,
  });
  return { ...d, client, retries, settle: async () => {}, close: running.close };
}

/** Runs one create, keeping how it ended and how many requests it sent. */
async function createOnce(
  client: Client,
  retries: RetryEvent[],
  body: GenerationInput,
  key: string,
): Promise<CreateOutcome> {
  const checked = checkRequest(body);
  if (!checked.success) {
    throw new Error("the test's body is valid");
  }
  const cost = computeCharge(checked.output).totalCreditCost;
  try {
    const accepted = await client.generations.create(body, { idempotencyKey: key });
    return {
      key,
      cost,
      attempts: retries.filter((r) => r.idempotencyKey === key).length + 1,
      accepted,
    };
  } catch (error) {
    if (!(error instanceof ImagegenError)) {
      throw error;
    }
    return { key, cost, attempts: error.attempts, error };
  }
}

const addFaults = async (server: ReferenceServer, faults: FaultInput[]) => {
  for (const fault of faults) {
    await server.admin.addFault({ path: "/api/generations", ...fault });
  }
};

afterEach(() => {
  vi.useRealTimers();
});

describe.each<Transport>(["in process", "over a socket"])(
  "the client against the double's faults, %s",
  (transport) => {
    it("S17, S5: a lost answer (carried out, then no answer) is retried with the same key and resolves as the original task, charged once", async () => {
      const s = await setupOn(transport);
      try {
        await addFaults(s.server, [{ kind: "lose_answer" }]);
        const outcome = await createOnce(s.client, s.retries, BODY, "lost-1");
        expect(outcome.accepted?.billing.totalCreditCost).toBe(COST);
        expect(outcome.attempts).toBe(2);
        expect(s.retries[0]?.error.code).toBe("connection_error");
        const journal = (await s.admin.requests())
          .filter((r) => r.path === "/api/generations")
          .reverse();
        expect(journal.map((r) => [r.status, r.idempotencyKey])).toEqual([
          [0, "lost-1"],
          [202, "lost-1"],
        ]);
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
      } finally {
        await s.close();
      }
    });

    it("S17: 503 with Retry-After and 500 change nothing on the service; the retries resolve, charged once, every attempt under one key", async () => {
      // The 503 asks for 1 s: within the cap, so it is waited as asked.
      const s = await setupOn(transport, { maxRetries: 2, maxRetryDelayMs: 1000 });
      try {
        await addFaults(s.server, [
          { kind: "unavailable", retryAfterMs: 1000 },
          { kind: "internal" },
        ]);
        const outcome = await createOnce(s.client, s.retries, BODY, "flaky-1");
        expect(outcome.accepted).toBeDefined();
        expect(s.retries.map((r) => [r.error.code, r.error.status])).toEqual([
          ["service_unavailable", 503],
          ["internal_error", 500],
        ]);
        expect(s.retries[0]?.error.retryAfterMs).toBe(1000);
        // The journal shows the key of the attempts the faults answered too: the client sends it as a header.
        const journal = (await s.admin.requests())
          .filter((r) => r.path === "/api/generations")
          .reverse();
        expect(journal.map((r) => [r.status, r.idempotencyKey])).toEqual([
          [503, "flaky-1"],
          [500, "flaky-1"],
          [202, "flaky-1"],
        ]);
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
      } finally {
        await s.close();
      }
    });

    it("S17: a delayed answer within the attempt's time resolves on the first attempt", async () => {
      const s = await setupOn(transport);
      try {
        await addFaults(s.server, [{ kind: "delay", delayMs: 20 }]);
        const outcome = await createOnce(s.client, s.retries, BODY, "slow-1");
        expect(outcome).toMatchObject({
          attempts: 1,
          accepted: { billing: { totalCreditCost: COST } },
        });
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
      } finally {
        await s.close();
      }
    });

    it("S17, S5: lost, unavailable, internal and lost again, mixed: the fifth attempt resolves as the task the first lost answer made", async () => {
      const s = await setupOn(transport, { maxRetries: 4, maxRetryDelayMs: 1000 });
      try {
        await addFaults(s.server, [
          { kind: "lose_answer" },
          { kind: "unavailable", retryAfterMs: 1000 },
          { kind: "internal" },
          { kind: "lose_answer" },
        ]);
        const outcome = await createOnce(s.client, s.retries, BODY, "mixed-1");
        expect(outcome.attempts).toBe(5);
        const journal = (await s.admin.requests())
          .filter((r) => r.path === "/api/generations")
          .reverse();
        expect(journal.map((r) => r.status)).toEqual([0, 503, 500, 0, 202]);
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
        expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
      } finally {
        await s.close();
      }
    });

    it("S5: a create whose retries ran out on lost answers rejects, charged once; creating again with its key gets that task, charged nothing more", async () => {
      const s = await setupOn(transport, { maxRetries: 1 });
      try {
        await addFaults(s.server, [{ kind: "lose_answer", times: 2 }]);
        const outcome = await createOnce(s.client, s.retries, BODY, "gave-up-1");
        expect(outcome.error).toMatchObject({
          code: "connection_error",
          attempts: 2,
          idempotencyKey: "gave-up-1",
        });
        expect(outcome.error?.message).toContain("gave up after 2 attempts");
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
        const balance = await s.admin.balance(s.userId);
        expect(balance).toBe(10_000 - COST);

        const again = await s.client.generations.create(BODY, {
          idempotencyKey: outcome.error?.idempotencyKey as string,
        });
        expect(again.billing.totalCreditCost).toBe(COST);
        expect(await s.admin.balance(s.userId)).toBe(balance);
      } finally {
        await s.close();
      }
    });

    it("S17: a 503 asking a longer wait than maxRetryDelayMs rejects at once with that wait, nothing charged; its key later resolves", async () => {
      const s = await setupOn(transport, { maxRetries: 2, maxRetryDelayMs: 1000 });
      try {
        await addFaults(s.server, [{ kind: "unavailable", retryAfterMs: 30_000 }]);
        const outcome = await createOnce(s.client, s.retries, BODY, "down-1");
        expect(outcome.error).toMatchObject({
          code: "service_unavailable",
          status: 503,
          attempts: 1,
          retryAfterMs: 30_000,
          idempotencyKey: "down-1",
        });
        expect(outcome.error?.requestId).toMatch(/^req_/);
        expect(s.retries).toEqual([]);
        await s.settle();
        await expectChargedOnce(s.server, s.userId, [outcome]);
        expect(await s.admin.balance(s.userId)).toBe(10_000);
        // When the caller's own schedule says so: the same key, charged once.
        const later = await s.client.generations.create(BODY, { idempotencyKey: "down-1" });
        expect(later.billing.totalCreditCost).toBe(COST);
        expect(await s.admin.balance(s.userId)).toBe(10_000 - COST);
      } finally {
        await s.close();
      }
    });
  },
);

describe("the client against the double's faults, in process, with the clock", () => {
  it("S17: the double's Retry-After is honoured: the retry waits the seconds it names", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const d = await double({ credits: 10_000 });
    let retried: (event: RetryEvent) => void = () => {};
    const told = new Promise<RetryEvent>((resolve) => {
      retried = resolve;
    });
    const client = createClient({
      apiKey: d.key,
      baseUrl: "http://double.test",
      fetch: d.server.fetch,
      onRetry: retried,
    });
    await addFaults(d.server, [{ kind: "unavailable", retryAfterMs: 2000 }]);
    const done = client.generations.create(BODY, { idempotencyKey: "wait-1" });
    // Told of the 503, the client is now waiting on its timer.
    expect((await told).delayMs).toBe(2000);
    await vi.advanceTimersByTimeAsync(1999);
    expect((await d.admin.requests()).map((r) => r.status)).toEqual([503]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await done).billing.totalCreditCost).toBe(COST);
    expect((await d.admin.requests()).map((r) => r.status)).toEqual([202, 503]);
  });

  it("S17, S5: an answer delayed past the attempt's time: the attempt is cut, the retry replays the task the first one made, charged once", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const s = await setupOn("in process", { timeoutMs: 50 });
    await addFaults(s.server, [{ kind: "delay", delayMs: 300 }]);
    const done = createOnce(s.client, s.retries, BODY, "late-1");
    // The first attempt is carried out in full, then its answer held on the (fake) clock.
    for (let i = 0; i < 10_000 && (await s.admin.balance(s.userId)) === 10_000; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await s.admin.balance(s.userId)).toBe(10_000 - COST);
    await vi.advanceTimersByTimeAsync(50);
    const outcome = await done;
    expect(s.retries.map((r) => r.error.code)).toEqual(["timeout"]);
    expect(outcome).toMatchObject({
      attempts: 2,
      accepted: { billing: { totalCreditCost: COST } },
    });
    await vi.advanceTimersByTimeAsync(300);
    await s.settle();
    await expectChargedOnce(s.server, s.userId, [outcome]);
  });

  it("S5: a second caller with the same key while the first is still in flight is answered with the same task, charged once", async () => {
    const s = await setupOn("in process");
    await addFaults(s.server, [{ kind: "delay", delayMs: 50 }]);
    const [a, b] = await Promise.all([
      s.client.generations.create(BODY, { idempotencyKey: "twin-1" }),
      s.client.generations.create(BODY, { idempotencyKey: "twin-1" }),
    ]);
    expect(b).toEqual(a);
    await s.settle();
    expect((await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit")).toHaveLength(1);
  });

  it("the rejection of a create that never reached the service says so: an abort before sending is 0 attempts and nothing charged", async () => {
    const s = await setupOn("in process");
    const error = await rejection(
      s.client.generations.create(BODY, { signal: AbortSignal.abort() }),
    );
    expect(error).toMatchObject({ code: "aborted", attempts: 0 });
    expect(await s.admin.requests()).toEqual([]);
  });
});
