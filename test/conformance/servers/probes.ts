/**
 * One probe per bug of the service double: a few requests over HTTP whose outcome a correct server
 * and the broken one answer differently. The sanity tests run each probe on both.
 */
import type { Break } from "./breaks.js";
import type { ListeningDouble } from "./http.js";

/** An answer: its status, its headers and its body read as JSON (or text when it is not). */
export type Answer = { status: number; headers: Headers; body: unknown; text: string };

/**
 * Sends one request to a listening double with its caller's key (or `auth`).
 *
 * @param d - The double.
 * @param method - The HTTP method.
 * @param path - The path, such as `/api/ping`.
 * @param body - A JSON body, if any.
 * @param auth - The `Authorization` header (default: the caller's Bearer key; null: none).
 * @returns The answer.
 */
export async function call(
  d: ListeningDouble,
  method: string,
  path: string,
  body?: unknown,
  auth: string | null = `Bearer ${d.key}`,
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (auth !== null) {
    headers.authorization = auth;
  }
  if (body !== undefined) {
    headers["content-type"] = "application/json";
  }
  const response = await fetch(`${d.baseUrl}${path}`, {
    method,
    headers,
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a body that is not JSON stays text
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Reads a path of a JSON value, such as `billing.totalCreditCost`. */
export function at(value: unknown, path: string): unknown {
  let here = value;
  for (const name of path.split(".")) {
    here = typeof here === "object" && here !== null ? Reflect.get(here, name) : undefined;
  }
  return here;
}

/** The admin token of every double the probes start with admin routes. */
export const ADMIN_TOKEN = "proof-admin-token-0001";
const ADMIN = `Bearer ${ADMIN_TOKEN}`;
const SIGN = { grant: 1, debit: -1, refund: 1 } as const;

const quoteOf = async (d: ListeningDouble, spec: Record<string, unknown>) =>
  at((await call(d, "POST", "/api/pricing/quote", { kind: "image", ...spec })).body, "credits");

const create = (d: ListeningDouble, body: Record<string, unknown>) =>
  call(d, "POST", "/api/generations", { prompt: "a lighthouse", ...body });

/** The status of a create, and the credits it moved. */
async function createdStatus(d: ListeningDouble, body: Record<string, unknown>) {
  const before = d.balance();
  const answer = await create(d, body);
  return { status: answer.status, charged: before - d.balance() };
}

/** What a correct server answers, the probe, and the rule the bug breaks. */
type Probe = { correct: unknown; show: (d: ListeningDouble) => Promise<unknown> };

/** The probes, one per bug; every double has multiplier 1.25. */
export const PROBES: Record<Break, Probe> = {
  "price-cell": {
    correct: 150,
    show: (d) => quoteOf(d, { modelId: "beta2", resolution: "4K" }),
  },
  "rounding-half-even": {
    correct: 23, // 18 x 1.25 = 22.5, half-up
    show: (d) => quoteOf(d, { modelId: "alpha-img2-official", resolution: "1K" }),
  },
  "surcharge-five": {
    correct: 35, // (18 + 10) x 1.25
    show: (d) => quoteOf(d, { modelId: "alpha-img2-5-flare", referenceImageCount: 1 }),
  },
  "multiplier-ignored": {
    correct: 100,
    show: (d) => quoteOf(d, { modelId: "beta2", resolution: "2K" }),
  },
  "quote-without-multiplier": {
    correct: [75, 75],
    show: async (d) => [
      await quoteOf(d, { modelId: "beta2", resolution: "1K" }),
      at((await create(d, { modelId: "beta2", resolution: "1K" })).body, "billing.totalCreditCost"),
    ],
  },
  "unpriceable-fallback": {
    correct: null,
    show: (d) => quoteOf(d, { modelId: "alpha-img2", resolution: "2K" }),
  },
  "total-rounded-once": {
    correct: 46, // 2 x round(22.5), not round(45)
    show: async (d) =>
      at((await create(d, { resolution: "1K", imageCount: 2 })).body, "billing.totalCreditCost"),
  },
  "image-count-off-by-one": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { modelId: "beta", imageCount: 5 }),
  },
  "prompt-off-by-one": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { prompt: "p".repeat(12001) }),
  },
  "idempotency-key-off-by-one": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { idempotencyKey: "k".repeat(129) }),
  },
  "unknown-field-accepted": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { credits: 1 }),
  },
  "quality-auto-accepted": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { quality: "auto" }),
  },
  "alpha-img2-2k-accepted": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { modelId: "alpha-img2", resolution: "2K" }),
  },
  "image-count-zero-accepted": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { imageCount: 0 }),
  },
  "ratio-refusal-charges": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { modelId: "gamma-image-1.5", aspectRatio: "4:3" }),
  },
  "strings-not-trimmed": {
    correct: { status: 202, charged: 31 }, // beta: 25 x 1.25 = 31.25
    show: (d) => createdStatus(d, { modelId: " beta " }),
  },
  "gamma-two-references": {
    correct: { status: 422, charged: 0 },
    show: (d) =>
      createdStatus(d, {
        modelId: "gamma-image-1.5",
        generationType: "image-to-image",
        inputAssetIds: d.assets.slice(0, 2),
      }),
  },
  "background-on-beta2": {
    correct: { status: 422, charged: 0 },
    show: (d) => createdStatus(d, { modelId: "beta2", background: "transparent" }),
  },
  "references-not-deduplicated": {
    correct: { status: 202, charged: 35 },
    show: (d) =>
      createdStatus(d, {
        resolution: "1K",
        generationType: "image-to-image",
        inputAssetIds: [d.assets[0], d.assets[0]],
      }),
  },
  "foreign-asset-charged": {
    correct: { status: 202, charged: 35 },
    show: (d) =>
      createdStatus(d, {
        resolution: "1K",
        generationType: "image-to-image",
        inputAssetIds: [d.assets[0], d.foreignAsset],
      }),
  },
  "replay-charges": {
    correct: 23,
    show: async (d) => {
      const before = d.balance();
      await create(d, { resolution: "1K", idempotencyKey: "probe-replay" });
      await create(d, { resolution: "1K", idempotencyKey: "probe-replay" });
      return before - d.balance();
    },
  },
  "concurrent-keys-charge-twice": {
    correct: 23,
    show: async (d) => {
      const before = d.balance();
      const body = { resolution: "1K", idempotencyKey: "probe-concurrent" };
      await Promise.all([create(d, body), create(d, body), create(d, body)]);
      return before - d.balance();
    },
  },
  "balance-lags": {
    correct: true,
    show: async (d) => {
      const accepted = await create(d, { resolution: "1K" });
      const shown = at((await call(d, "GET", "/api/query/credits")).body, "creditBalance");
      return shown === at(accepted.body, "billing.balanceAfterCredits");
    },
  },
  "accepted-body-disagrees": {
    correct: true,
    show: async (d) => {
      const { body } = await create(d, { resolution: "1K" });
      return at(body, "batch.balanceAfterCredits") === at(body, "billing.balanceAfterCredits");
    },
  },
  "quote-without-auth": {
    correct: 403,
    show: async (d) =>
      (await call(d, "POST", "/api/pricing/quote", { kind: "image", modelId: "beta" }, null))
        .status,
  },
  "credits-without-auth": {
    correct: 403,
    show: async (d) => (await call(d, "GET", "/api/query/credits", undefined, null)).status,
  },
  "ping-body-wrong": {
    correct: "api_key",
    show: async (d) => at((await call(d, "GET", "/api/ping")).body, "authProvider"),
  },
  "credits-body-wrong": {
    correct: "credits",
    show: async (d) => at((await call(d, "GET", "/api/query/credits")).body, "currency"),
  },
  "auth-error-not-json": {
    correct: "string",
    show: async (d) => {
      const answer = await call(
        d,
        "GET",
        "/api/ping",
        undefined,
        "Bearer ck_test_unknown_key_0000000001",
      );
      return typeof at(answer.body, "error.message");
    },
  },
  "json-error-not-json": {
    correct: "string",
    show: async (d) => {
      const response = await fetch(`${d.baseUrl}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${d.key}`, "content-type": "application/json" },
        body: '{"prompt": ',
      });
      const text = await response.text();
      return text.startsWith("{") ? typeof at(JSON.parse(text), "error.message") : "text";
    },
  },
  "job-status-wrong": {
    correct: "queued",
    show: async (d) =>
      at((await create(d, { resolution: "1K" })).body, "batch.results.0.job.status"),
  },
  "task-stores-no-background": {
    correct: "opaque",
    show: async (d) => {
      const { body } = await create(d, { resolution: "1K", background: "opaque" });
      const job = at(body, "batch.results.0.job.id") as string;
      const taskId = at(
        (await call(d, "GET", `/admin/jobs/${job}`, undefined, ADMIN)).body,
        "taskId",
      );
      const task = await call(d, "GET", `/admin/tasks/${String(taskId)}`, undefined, ADMIN);
      return at(task.body, "background");
    },
  },
  "refund-whole-task": {
    correct: 23,
    show: async (d) => {
      const { body } = await create(d, { resolution: "1K", imageCount: 2 });
      const job = at(body, "batch.results.0.job.id") as string;
      const answer = await call(d, "POST", `/admin/jobs/${job}/fail`, undefined, ADMIN);
      return at(answer.body, "refundedCredits");
    },
  },
  "refund-at-current-multiplier": {
    correct: 23,
    show: async (d) => {
      const { body } = await create(d, { resolution: "1K" });
      const job = at(body, "batch.results.0.job.id") as string;
      const path = `/admin/users/${d.userId}/multiplier`;
      await call(d, "PUT", path, { multiplier: "3" }, ADMIN);
      const answer = await call(d, "POST", `/admin/jobs/${job}/fail`, undefined, ADMIN);
      return at(answer.body, "refundedCredits");
    },
  },
  "refund-twice": {
    correct: [23, 0],
    show: async (d) => {
      const { body } = await create(d, { resolution: "1K" });
      const job = at(body, "batch.results.0.job.id") as string;
      const refunds = [];
      for (let i = 0; i < 2; i++) {
        const answer = await call(d, "POST", `/admin/jobs/${job}/fail`, undefined, ADMIN);
        refunds.push(at(answer.body, "refundedCredits"));
      }
      return refunds;
    },
  },
  "ledger-debit-short": {
    correct: true,
    show: async (d) => {
      await create(d, { resolution: "1K" });
      const ledger = await call(d, "GET", `/admin/users/${d.userId}/ledger`, undefined, ADMIN);
      const entries = at(ledger.body, "entries") as { kind: keyof typeof SIGN; credits: number }[];
      const sum = entries.reduce((total, entry) => total + SIGN[entry.kind] * entry.credits, 0);
      return sum === d.balance();
    },
  },
};
