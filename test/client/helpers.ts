/**
 * The client's tests' double: a reference server with its test-double controls on, a user with a
 * key, and a client on it; and the ledger's and journal's view of what the client's creates did.
 */
import { type Client, type ClientOptions, createClient } from "../../src/client/index.js";
import { createReferenceServer, type ReferenceServer } from "../../src/server/index.js";

/** The admin token of the tests' servers (turns the faults and the journal on). */
export const ADMIN_TOKEN = "client-tests-admin-token-0001";

/** A base URL for a client on `server.fetch`: any absolute URL works in process. */
export const IN_PROCESS = "http://double.test";

/** A reference server with faults on, one user with `credits`, its key, and a client on `server.fetch`. */
export async function double(options: { credits?: number; multiplier?: string; client?: Partial<ClientOptions> } = {}) {
  const server = createReferenceServer({ adminToken: ADMIN_TOKEN });
  const { userId } = await server.admin.createUser({
    credits: options.credits ?? 100_000,
    ...(options.multiplier === undefined ? {} : { multiplier: options.multiplier }),
  });
  const { key, apiKeyId } = await server.admin.createApiKey(userId);
  // No waiting between attempts: the schedules are the faults', not the clock's.
  const client = createClient({ apiKey: key, baseUrl: IN_PROCESS, fetch: server.fetch, maxRetryDelayMs: 0, ...options.client });
  return { server, admin: server.admin, userId, key, apiKeyId, client };
}

/** What the double recorded for a user: every debit and refund, and whether the ledger reconciles (S13). */
export async function ledgerOf(server: ReferenceServer, userId: string) {
  const entries = await server.admin.ledger(userId);
  const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((total, e) => total + e.credits, 0);
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

/** A client on the same server with other options (a second logical caller, or other retry bounds). */
export function clientOn(server: ReferenceServer, key: string, options: Partial<ClientOptions> = {}): Client {
  return createClient({ apiKey: key, baseUrl: IN_PROCESS, fetch: server.fetch, maxRetryDelayMs: 0, ...options });
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
