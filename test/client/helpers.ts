/**
 * The client's tests' double: a reference server with its test-double controls on, a user with a
 * key, and a client on it; and the ledger's and journal's view of what the client's creates did.
 */
import { expect } from "vitest";
import {
  type ClientOptions,
  createClient,
  type GenerationAccepted,
  type ImagegenError,
} from "../../src/client/index.js";
import { createReferenceServer, type ReferenceServer } from "../../src/server/index.js";

/** The admin token of the tests' servers (turns the faults and the journal on). */
export const ADMIN_TOKEN = "client-tests-admin-token-0001";

/** A base URL for a client on `server.fetch`: any absolute URL works in process. */
export const IN_PROCESS = "http://double.test";

/** A reference server with faults on, one user with `credits`, its key, and a client on `server.fetch`. */
export async function double(
  options: { credits?: number; multiplier?: string; client?: Partial<ClientOptions> } = {},
) {
  const server = createReferenceServer({ adminToken: ADMIN_TOKEN });
  const { userId } = await server.admin.createUser({
    credits: options.credits ?? 100_000,
    ...(options.multiplier === undefined ? {} : { multiplier: options.multiplier }),
  });
  const { key, apiKeyId } = await server.admin.createApiKey(userId);
  // No waiting between attempts: the schedules are the faults', not the clock's.
  const client = createClient({
    apiKey: key,
    baseUrl: IN_PROCESS,
    fetch: server.fetch,
    maxRetryDelayMs: 0,
    ...options.client,
  });
  return { server, admin: server.admin, userId, key, apiKeyId, client };
}

/** What the double recorded for a user: every debit and refund, and whether the ledger reconciles (S13). */
export async function ledgerOf(server: ReferenceServer, userId: string) {
  const entries = await server.admin.ledger(userId);
  const sum = (kind: string) =>
    entries.filter((e) => e.kind === kind).reduce((total, e) => total + e.credits, 0);
  const balance = await server.admin.balance(userId);
  return {
    debits: entries.filter((e) => e.kind === "debit"),
    debited: sum("debit"),
    reconciles: balance === sum("grant") - sum("debit") + sum("refund"),
  };
}

/** The journal's entries for POST /api/generations, oldest first. */
export async function createAttempts(server: ReferenceServer) {
  const all = await server.admin.requests({ limit: 1000 });
  return all.filter((r) => r.method === "POST" && r.path === "/api/generations").reverse();
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to reject");
}

/** A fetch on `server.fetch` that keeps every request it sends, so that a test can wait for the ones a client gave up on. */
export function tracked(fetch: (request: Request) => Promise<Response>) {
  const pending = new Set<Promise<unknown>>();
  return {
    fetch: (request: Request) => {
      const answer = fetch(request);
      const settled = answer.then(
        () => undefined,
        () => undefined,
      );
      pending.add(settled);
      void settled.then(() => pending.delete(settled));
      return answer;
    },
    /** Resolves once every request sent so far has been answered (or its answer lost). */
    idle: async () => {
      while (pending.size > 0) {
        await Promise.all(pending);
      }
    },
  };
}

/** One logical create as the test saw it: its key, what it was to cost, and how it ended. */
export type CreateOutcome = {
  key: string;
  /** What the task costs if accepted (computeCharge's total at the account's multiplier). */
  cost: number;
  /** Requests sent for it. */
  attempts: number;
  accepted?: GenerationAccepted;
  error?: ImagegenError;
};

/**
 * The laws of a run of creates against the double, whatever the faults did: each logical create is
 * charged at most once, and exactly once (its own task, its own amount) when it resolved; what was
 * debited lies between the sum of the confirmed creates and the sum of all attempted; the journal
 * shows every attempt of a create with that create's key, and nothing else; the ledger reconciles.
 */
export async function expectChargedOnce(
  server: ReferenceServer,
  userId: string,
  outcomes: CreateOutcome[],
) {
  const ledger = await ledgerOf(server, userId);
  expect(ledger.reconciles, "balance = grants - debits + refunds").toBe(true);
  const tasks = await Promise.all(ledger.debits.map((d) => server.admin.task(d.taskId as string)));
  const keys = new Set(outcomes.map((o) => o.key));
  expect(
    tasks.filter((t) => !keys.has(t.request.idempotencyKey as string)).map((t) => t.taskId),
    "tasks of no create",
  ).toEqual([]);
  for (const o of outcomes) {
    const own = tasks.filter((t) => t.request.idempotencyKey === o.key);
    expect(own.length, `tasks of create ${o.key}`).toBeLessThanOrEqual(1);
    if (o.accepted) {
      expect(
        own.map((t) => t.taskId),
        `the task create ${o.key} resolved to`,
      ).toEqual([o.accepted.batch.taskId]);
      expect(own[0]?.totalCreditCost).toBe(o.accepted.billing.totalCreditCost);
      expect(o.accepted.billing.totalCreditCost).toBe(o.cost);
    } else if (own[0]) {
      expect(own[0].totalCreditCost).toBe(o.cost);
    }
  }
  const confirmed = outcomes.reduce((sum, o) => sum + (o.accepted ? o.cost : 0), 0);
  const attempted = outcomes.reduce((sum, o) => sum + (o.attempts > 0 ? o.cost : 0), 0);
  expect(ledger.debited).toBeGreaterThanOrEqual(confirmed);
  expect(ledger.debited).toBeLessThanOrEqual(attempted);

  const journal = await createAttempts(server);
  const sentKeys = journal.map((entry) => entry.idempotencyKey);
  for (const o of outcomes) {
    expect(
      sentKeys.filter((k) => k === o.key).length,
      `attempts of create ${o.key} in the journal`,
    ).toBe(o.attempts);
  }
  expect(journal.length, "journal entries of no create").toBe(
    outcomes.reduce((sum, o) => sum + o.attempts, 0),
  );
}
