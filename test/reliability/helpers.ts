/**
 * Shared pieces of the reliability suite: a world of users, keys and assets on one reference
 * server (made by the server suite's `makeServer`), request builders, an independent price oracle
 * (with a scheduled price change applied to it, P8) and the ledger invariants (S4, S6, S13) checked
 * after every step.
 */
import { Decimal } from "decimal.js";
import { expect } from "vitest";
import { type Catalog, defineCatalog } from "../../src/index.js";
import type { LogEntry, ReferenceServer, ReferenceServerOptions } from "../../src/server/index.js";
import { ORACLE_PRICES, ORACLE_SURCHARGE, type OracleModel } from "../oracle/seed.js";
import { makeServer } from "../server/helpers.js";

export const BASE = "http://reliability.test";

export type UserHandle = {
  userId: string;
  key: string;
  apiKeyId: string;
  assets: string[];
};

/** A server with `users` users, each with one key and two assets, and a log that is captured. */
export async function world(count: number, credits: number, options: ReferenceServerOptions = {}) {
  const logs: LogEntry[] = [];
  const server = await makeServer({ log: (e) => logs.push(e), ...options });
  const users: UserHandle[] = [];
  for (let i = 0; i < count; i++) {
    const { userId } = await server.admin.createUser({ credits });
    const { key, apiKeyId } = await server.admin.createApiKey(userId);
    users.push({
      userId,
      key,
      apiKeyId,
      assets: [
        (await server.admin.createAsset(userId)).assetId,
        (await server.admin.createAsset(userId)).assetId,
      ],
    });
  }
  return { server, admin: server.admin, users, logs };
}

/** A JSON POST with a Bearer key. */
export function post(
  server: ReferenceServer,
  path: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return server.fetch(
    new Request(BASE + path, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

/** A GET with a Bearer key. */
export function get(server: ReferenceServer, path: string, key: string) {
  return server.fetch(new Request(BASE + path, { headers: { authorization: `Bearer ${key}` } }));
}

/**
 * A scheduled price change as data (P8): credits added to every base price of some models, and new
 * per-reference surcharges. The tests apply it to the hand-typed oracle (what the server must charge
 * from then on, {@link oracleCredits}) and to the built-in catalog (what the server is given,
 * {@link changedCatalog}), so the expected prices never come from `src/`.
 */
export type PriceChange = {
  /** The new catalog's version: the UTC date it takes effect. */
  readonly version: string;
  readonly addCredits: Partial<Record<OracleModel, number>>;
  readonly surcharge: Partial<Record<OracleModel, number>>;
};

/** The change the model-based sequences cross: some prices up, one down, one surcharge up. */
export const PRICE_CHANGE: PriceChange = {
  version: "2027-01-01",
  addCredits: { "alpha-img2": 3, "alpha-img2-official": 7, beta2: 10, "gamma-image-1.5": -5 },
  surcharge: { "alpha-img2-official": 13 },
};

/**
 * The expected per-output charge (P3, P4): half-up of (base + surcharge x refs) x multiplier, in
 * decimal.js, from the oracle's prices, or from the oracle's prices after `change` when given.
 */
export function oracleCredits(
  model: OracleModel,
  resolution: string,
  quality: string,
  refs: number,
  multiplier: string,
  change?: PriceChange,
): number {
  const cell = ORACLE_PRICES[model][resolution]?.[quality];
  if (cell === undefined) {
    throw new Error(`oracle: ${model} ${resolution} ${quality} is not priceable`);
  }
  const base = cell + (change?.addCredits[model] ?? 0);
  const surcharge = change?.surcharge[model] ?? ORACLE_SURCHARGE[model];
  return new Decimal(base + surcharge * refs)
    .times(new Decimal(multiplier))
    .toDecimalPlaces(0, Decimal.ROUND_HALF_UP)
    .toNumber();
}

/**
 * A catalog made from `base` by a {@link PriceChange}: its version, every price of a changed model
 * moved by the same credits, the new surcharges; checked with `defineCatalog`.
 */
export function changedCatalog(base: Catalog, change: PriceChange): Catalog {
  const models = Object.fromEntries(
    Object.entries(base.models).map(([id, spec]) => {
      const add = change.addCredits[id as OracleModel] ?? 0;
      const prices = Object.fromEntries(
        Object.entries(spec.prices).map(([resolution, row]) => [
          resolution,
          Object.fromEntries(
            Object.entries(row ?? {}).map(([quality, credits]) => [quality, credits + add]),
          ),
        ]),
      );
      const referenceSurchargeCredits =
        change.surcharge[id as OracleModel] ?? spec.referenceSurchargeCredits;
      return [id, { ...spec, prices, referenceSurchargeCredits }];
    }),
  );
  return defineCatalog({ ...base, version: change.version, models });
}

/** A state snapshot of one user: balance and ledger length. */
export async function snapshot(server: ReferenceServer, userId: string) {
  return {
    balance: await server.admin.balance(userId),
    entries: (await server.admin.ledger(userId)).length,
  };
}

/**
 * The ledger invariants of one user (S4, S6, S13): the balance equals granted - debits + refunds and
 * is never negative; every refund names a job, no job is refunded twice, and each refund equals the
 * job's stored charge; every debit equals its task's stored total.
 */
export async function checkLedger(
  server: ReferenceServer,
  userId: string,
): Promise<{ granted: number; debited: number; refunded: number }> {
  const balance = await server.admin.balance(userId);
  const ledger = await server.admin.ledger(userId);
  let granted = 0;
  let debited = 0;
  let refunded = 0;
  const refundedJobs = new Set<string>();
  const debitedTasks = new Set<string>();
  for (const entry of ledger) {
    expect(Number.isSafeInteger(entry.credits) && entry.credits > 0).toBe(true);
    if (entry.kind === "grant") {
      granted += entry.credits;
    } else if (entry.kind === "debit") {
      debited += entry.credits;
      expect(entry.taskId).toBeDefined();
      const taskId = entry.taskId as string;
      expect(debitedTasks.has(taskId)).toBe(false);
      debitedTasks.add(taskId);
      expect((await server.admin.task(taskId)).totalCreditCost).toBe(entry.credits);
    } else {
      refunded += entry.credits;
      expect(entry.jobId).toBeDefined();
      const jobId = entry.jobId as string;
      expect(refundedJobs.has(jobId)).toBe(false);
      refundedJobs.add(jobId);
      const job = await server.admin.job(jobId);
      expect(job.status).toBe("failed");
      expect(entry.credits).toBe(job.credits);
    }
  }
  expect(balance).toBe(granted - debited + refunded);
  expect(balance).toBeGreaterThanOrEqual(0);
  return { granted, debited, refunded };
}

/**
 * Checks the envelope of an answer (S12): never 5xx, always JSON with a `Request-Id`, and a failure
 * carries `error.message` (a non-empty string), `error.code` and the same `requestId`. The answer
 * to a `HEAD` has the same headers and no body.
 *
 * @returns The parsed body (`{}` for a HEAD).
 */
export async function checkAnswer(
  res: Response,
  options: { head?: boolean } = {},
): Promise<{ status: number; body: Record<string, unknown>; text: string }> {
  expect(res.status).toBeLessThan(500);
  const requestId = res.headers.get("request-id");
  expect(requestId).toMatch(/^req_[0-9a-f]+$/);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const text = await res.text();
  if (options.head) {
    expect(text).toBe("");
    return { status: res.status, body: {}, text };
  }
  const body = JSON.parse(text) as Record<string, unknown>;
  if (res.status >= 400) {
    const error = body.error as
      | { message?: unknown; code?: unknown; requestId?: unknown }
      | undefined;
    expect(typeof error?.message).toBe("string");
    expect(String(error?.message).length).toBeGreaterThan(0);
    expect(typeof error?.code).toBe("string");
    expect(error?.requestId).toBe(requestId);
  }
  return { status: res.status, body, text };
}
