/**
 * A second, small implementation of the service interface, for the proof of the conformance kit.
 *
 * It follows everything the interface states and charges exactly right, but wherever the
 * interface is silent it chooses otherwise than the reference server: refusals are 422 (a key 403,
 * too few credits 403, a body too large 413) with `{ error: { message, type } }` and no `code`; no
 * `Request-Id` or `Idempotent-Replayed` header; a quote answers `{ credits }` alone and ignores
 * unknown fields; `null` for an optional field is the field left out; the `Bearer` scheme is
 * case-sensitive; a reused key with another body is refused 422; a quality level on a model whose
 * price does not vary by quality is accepted at that price; references on text-to-image are
 * ignored; a foreign asset is left uncharged; a body without `Content-Type` is read as JSON; an
 * unknown route and a wrong method are both 404. The `breaks` option turns on exactly one bug
 * (see `breaks.ts`). State lives in Maps, as a test double's should.
 */
import { Decimal } from "decimal.js";
import { checkRequest } from "../../../src/index.js";
import type { GenerationRequest } from "../../../src/types.js";
import {
  ALL_RATIOS,
  isQualityModel,
  ORACLE_MAX_REFS,
  ORACLE_MODEL_IDS,
  ORACLE_PRICES,
  ORACLE_SURCHARGE,
  type OracleModel,
  oracleDefaultResolution,
} from "../../oracle/seed.js";
import type { Break } from "./breaks.js";

/** Options of {@link createServiceDouble}. */
export type DoubleOptions = {
  /** The caller's starting balance (default 100,000). */
  credits?: number;
  /** The caller's multiplier, a plain decimal (default "1.25": many amounts end in .5). */
  multiplier?: string;
  /** Serve the admin routes behind this token. */
  adminToken?: string;
  /** The one bug to have. */
  breaks?: Break;
  /**
   * How many accepted creates lose their answer (default 0): each is carried out in full, then the
   * connection closes with no answer, as a network that drops it would.
   */
  loseAnswers?: number;
};

/** A user of the double. */
type User = {
  userId: string;
  apiKeyId: string;
  key: string;
  multiplier: string;
  balance: number;
  assets: Set<string>;
  ledger: LedgerEntry[];
  claims: Map<string, Claim>;
};

/** A ledger entry, shaped like the reference server's. */
type LedgerEntry = {
  kind: "grant" | "debit" | "refund";
  credits: number;
  at: string;
  taskId?: string;
  jobId?: string;
};

/** What an idempotency key holds: the request it was used for and the 202 body it got. */
type Claim = { fingerprint: string; body: unknown; credits: number };

/**
 * A job: its owner and the credits it was charged, refundable once; with what a buggy refund reads
 * instead (its amount before the multiplier, its task's total).
 */
type Job = {
  user: User;
  taskId: string;
  credits: number;
  unscaled: number;
  taskTotal: number;
  failed: boolean;
};

/** The double: its fetch handler, the caller's key and assets, and its state for the tests. */
export type ServiceDouble = {
  fetch: (request: Request) => Promise<Response>;
  /** The caller's API key and ids. */
  key: string;
  userId: string;
  apiKeyId: string;
  multiplier: string;
  /** Assets the caller owns. */
  assets: string[];
  /** An asset another user owns. */
  foreignAsset: string;
  /** The caller's balance now, read from the state itself. */
  balance: () => number;
  /** The largest single debit so far. */
  largestDebit: () => number;
  /** How many answers were lost so far (`loseAnswers`). */
  lostAnswers: () => number;
};

const BODY_LIMIT = 1024 * 1024;

const QUALITIES = ["low", "medium", "high"];

/** Makes a fresh service double with one caller (4 assets) and one other user (1 asset). */
export function createServiceDouble(options: DoubleOptions = {}): ServiceDouble {
  const breaks = options.breaks;
  const multiplier = options.multiplier ?? "1.25";
  const users = new Map<string, User>();
  const byKey = new Map<string, User>();
  const owners = new Map<string, User>();
  /** Adds a user with a key and `assets` assets. */
  function addUser(name: string, credits: number, multiplier: string, assets: number): User {
    const user = makeUser(name, credits, multiplier, assets);
    users.set(user.userId, user);
    byKey.set(user.key, user);
    for (const asset of user.assets) {
      owners.set(asset, user);
    }
    return user;
  }
  const caller = addUser("alice", options.credits ?? 100_000, multiplier, 4);
  const other = addUser("bob", 1_000, "1", 1);
  const jobs = new Map<string, Job>();
  const stored = new Map<string, { request: GenerationRequest; jobIds: string[] }>();
  let tasks = 0;
  let lastDebit = 0;
  let lost = 0;

  /** The per-image price of a cell for an account, or null where the interface gives none. */
  function perImage(spec: PriceSpec, account: string, forQuote: boolean): number | null {
    const model = spec.modelId as OracleModel;
    // Models whose price does not vary by quality take any of the three levels at their price.
    const cells = ORACLE_PRICES[model][spec.resolution];
    let base = cells?.[isQualityModel(model) ? spec.quality : "low"];
    if (breaks === "price-cell" && model === "beta2" && spec.resolution === "4K") {
      base = 100;
    }
    if (base === undefined) {
      if (!(breaks === "unpriceable-fallback" && forQuote)) {
        return null;
      }
      base = Math.min(...Object.values(ORACLE_PRICES[model]).flatMap((c) => Object.values(c)));
    }
    const surcharge =
      breaks === "surcharge-five" && ORACLE_SURCHARGE[model] > 0 ? 5 : ORACLE_SURCHARGE[model];
    const unscaled = new Decimal(base + surcharge * spec.references);
    const ignore =
      breaks === "multiplier-ignored" || (breaks === "quote-without-multiplier" && forQuote);
    const mode = breaks === "rounding-half-even" ? Decimal.ROUND_HALF_EVEN : Decimal.ROUND_HALF_UP;
    return unscaled
      .times(ignore ? 1 : account)
      .toDecimalPlaces(0, mode)
      .toNumber();
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname}`;
    if (url.pathname.startsWith("/admin/") && options.adminToken !== undefined) {
      return admin(request, url.pathname);
    }
    if (route === "GET /api/ping") {
      return ping(request);
    }
    if (route === "GET /api/query/credits") {
      return credits(request);
    }
    if (route === "POST /api/pricing/quote") {
      return quoteRoute(request);
    }
    if (route === "POST /api/generations") {
      return generate(request);
    }
    return refuse(404, "not_found", `There is no ${request.method} ${url.pathname}.`);
  }

  /** The caller of a request, or the refusal: `Bearer` exactly, then a known key. */
  function authenticate(request: Request): User | Response {
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer ([^\s]+)$/.exec(header);
    const user = match ? byKey.get(match[1] ?? "") : undefined;
    if (user) {
      return user;
    }
    if (breaks === "auth-error-not-json") {
      return new Response("Unauthorized", {
        status: 403,
        headers: { "content-type": "text/plain" },
      });
    }
    return refuse(403, "authentication", "Send a valid API key as Authorization: Bearer <key>.");
  }

  function ping(request: Request): Response {
    const user = authenticate(request);
    if (user instanceof Response) {
      return user;
    }
    return json(200, {
      ok: true,
      service: "proof-double",
      authProvider: breaks === "ping-body-wrong" ? "apiKey" : "api_key",
      userId: user.userId,
      apiKeyId: user.apiKeyId,
    });
  }

  function credits(request: Request): Response {
    const user = breaks === "credits-without-auth" ? caller : authenticate(request);
    if (user instanceof Response) {
      return user;
    }
    const shown =
      breaks === "balance-lags" && user === caller ? user.balance + lastDebit : user.balance;
    return json(200, {
      creditBalance: shown,
      currency: breaks === "credits-body-wrong" ? "credit" : "credits",
      userId: user.userId,
      apiKeyId: user.apiKeyId,
    });
  }

  async function quoteRoute(request: Request): Promise<Response> {
    const user = breaks === "quote-without-auth" ? caller : authenticate(request);
    if (user instanceof Response) {
      return user;
    }
    const body = await readJson(request);
    if (body instanceof Response) {
      return body;
    }
    if (!isObject(body)) {
      return refuse(422, "invalid_request", "A quote request is a JSON object.");
    }
    const spec = readSpec(body);
    return json(200, { credits: spec ? perImage(spec, user.multiplier, true) : null });
  }

  async function generate(request: Request): Promise<Response> {
    const user = authenticate(request);
    if (user instanceof Response) {
      return user;
    }
    const raw = await readJson(request);
    if (raw instanceof Response) {
      if (breaks === "json-error-not-json") {
        return new Response("Bad JSON", { status: 422, headers: { "content-type": "text/plain" } });
      }
      return raw;
    }
    const read = readGeneration(raw, breaks);
    if (!read.ok) {
      if (breaks === "ratio-refusal-charges" && read.chargeable) {
        debit(
          user,
          priceRequest(read.chargeable, user, read.chargeable.inputAssetIds.length).total,
        );
      }
      return refuse(422, "invalid_request", read.message);
    }
    const { request: normalized, rawReferences } = read;
    const { idempotencyKey, ...rest } = normalized;
    const key = idempotencyKey ?? `auto_${crypto.randomUUID()}`;
    const fingerprint = JSON.stringify(rest);
    const claimed = user.claims.get(key);
    if (claimed) {
      if (claimed.fingerprint !== fingerprint) {
        return refuse(422, "invalid_request", "This idempotency key was used for another request.");
      }
      if (breaks === "replay-charges") {
        debit(user, claimed.credits);
      }
      return json(202, claimed.body);
    }
    if (breaks === "concurrent-keys-charge-twice") {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const owned = normalized.inputAssetIds.filter((id) => owners.get(id) === user);
    if (normalized.generationType === "image-to-image" && owned.length === 0) {
      return refuse(422, "invalid_request", "None of the references is an asset of yours.");
    }
    let references = owned.length;
    if (breaks === "foreign-asset-charged") {
      references = normalized.inputAssetIds.length;
    }
    if (breaks === "references-not-deduplicated") {
      references = rawReferences;
    }
    const charge = priceRequest(normalized, user, references);
    if (charge.total > user.balance) {
      return refuse(403, "balance", `This task costs ${charge.total} credits; you have fewer.`);
    }
    const before = user.balance;
    tasks += 1;
    const taskId = `task_${tasks}`;
    const unscaled = perImage({ ...normalized, references }, "1", false) ?? 0;
    const results = charge.lines.map((credits, index) => {
      const id = `job_${tasks}x${index}`;
      jobs.set(id, { user, taskId, credits, unscaled, taskTotal: charge.total, failed: false });
      const status = breaks === "job-status-wrong" ? "pending" : "queued";
      return { job: { id, status }, assets: [] };
    });
    stored.set(taskId, {
      request: { ...normalized, idempotencyKey: key },
      jobIds: results.map((result) => result.job.id),
    });
    debit(user, charge.total, taskId);
    const body = {
      batch: {
        request: {
          imageCount: normalized.imageCount,
          modelId: normalized.modelId,
          aspectRatio: normalized.aspectRatio,
          resolution: normalized.resolution,
          prompt: normalized.prompt,
        },
        results,
        totalCreditCost: charge.total,
        balanceAfterCredits: breaks === "accepted-body-disagrees" ? before : user.balance,
      },
      billing: { totalCreditCost: charge.total, balanceAfterCredits: user.balance },
    };
    user.claims.set(key, { fingerprint, body, credits: charge.total });
    if (lost < (options.loseAnswers ?? 0)) {
      lost += 1;
      throw new Error("the answer is lost"); // serve() closes the connection unanswered
    }
    return json(202, body);
  }

  /** The lines and total of a checked request for a user with `references` charged. */
  function priceRequest(request: GenerationRequest, user: User, references: number) {
    const spec = { ...request, references };
    const amount = perImage(spec, user.multiplier, false) ?? 0;
    const lines = Array.from({ length: request.imageCount }, () => amount);
    let total = lines.reduce((sum, line) => sum + line, 0);
    if (breaks === "total-rounded-once") {
      const unscaled = new Decimal(perImage(spec, "1", false) ?? 0).times(request.imageCount);
      total = halfUp(unscaled.times(user.multiplier));
    }
    return { lines, total };
  }

  /** Takes credits from a user, with its ledger entry. */
  function debit(user: User, credits: number, taskId?: string): void {
    user.balance -= credits;
    if (user === caller) {
      lastDebit = credits;
    }
    const written = breaks === "ledger-debit-short" ? credits - 1 : credits;
    user.ledger.push({
      kind: "debit",
      credits: written,
      at: new Date().toISOString(),
      ...(taskId && { taskId }),
    });
  }

  /**
   * The admin routes of the reference server that the kit uses: make a user and an asset, read a
   * user and a ledger, set a multiplier, fail a job.
   */
  async function admin(request: Request, path: string): Promise<Response> {
    if (request.headers.get("authorization") !== `Bearer ${options.adminToken}`) {
      return refuse(403, "authentication", "Send the admin token.");
    }
    const route = `${request.method} ${path.replace(/\/(usr|job|task)_[^/]+/, "/$1")}`;
    const id = decodeURIComponent(/\/((?:usr|job|task)_[^/]+)/.exec(path)?.[1] ?? "");
    const user = users.get(id);
    const job = jobs.get(id);
    const task = stored.get(id);
    const body = request.method === "GET" ? {} : await readJson(request);
    if (route === "POST /admin/users" && isObject(body) && Number.isSafeInteger(body.credits)) {
      const made = addUser(
        `u${users.size + 1}`,
        body.credits as number,
        String(body.multiplier ?? "1"),
        0,
      );
      return json(201, { userId: made.userId });
    }
    if (route === "POST /admin/users/usr/assets" && user) {
      const assetId = `ast_${user.userId}_${user.assets.size + 1}`;
      user.assets.add(assetId);
      owners.set(assetId, user);
      return json(201, { assetId });
    }
    if (route === "PUT /admin/users/usr/multiplier" && user && isObject(body)) {
      user.multiplier = String(body.multiplier);
      return json(200, { userId: user.userId, multiplier: user.multiplier });
    }
    if (route === "GET /admin/users/usr" && user) {
      return json(200, { userId: user.userId, balance: user.balance, multiplier: user.multiplier });
    }
    if (route === "GET /admin/users/usr/ledger" && user) {
      return json(200, { entries: user.ledger });
    }
    if (route === "GET /admin/jobs/job" && job) {
      return json(200, jobView(id, job));
    }
    if (route === "GET /admin/tasks/task" && task) {
      const { request: saved, jobIds } = task;
      const shown = jobIds.map((jobId) => jobView(jobId, jobs.get(jobId) as Job));
      return json(200, {
        taskId: id,
        aspectRatio: saved.aspectRatio,
        resolution: saved.resolution,
        quality: saved.quality,
        background: breaks === "task-stores-no-background" ? undefined : saved.background,
        jobs: shown,
        request: saved,
      });
    }
    if (route === "POST /admin/jobs/job/fail" && job) {
      if (job.failed && breaks !== "refund-twice") {
        return json(200, { refundedCredits: 0 });
      }
      let refund = job.credits;
      if (breaks === "refund-whole-task") {
        refund = job.taskTotal;
      }
      if (breaks === "refund-at-current-multiplier") {
        refund = halfUp(new Decimal(job.unscaled).times(job.user.multiplier));
      }
      job.failed = true;
      job.user.balance += refund;
      job.user.ledger.push({ kind: "refund", credits: refund, at: new Date().toISOString() });
      return json(200, { refundedCredits: refund });
    }
    return refuse(404, "not_found", "No such admin route, user or job.");
  }

  /** A job as the admin API shows it. */
  function jobView(jobId: string, job: Job) {
    const status = job.failed ? "failed" : "queued";
    return { jobId, taskId: job.taskId, status, credits: job.credits };
  }

  return {
    fetch: handle,
    key: caller.key,
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
    multiplier,
    assets: [...caller.assets],
    foreignAsset: [...other.assets][0] ?? "",
    balance: () => caller.balance,
    lostAnswers: () => lost,
    largestDebit: () =>
      Math.max(0, ...caller.ledger.filter((e) => e.kind === "debit").map((e) => e.credits)),
  };
}

function makeUser(name: string, credits: number, multiplier: string, assets: number): User {
  return {
    userId: `usr_${name}`,
    apiKeyId: `apk_${name}`,
    key: `ck_test_${name}_proof_double_0001`,
    multiplier,
    balance: credits,
    assets: new Set(Array.from({ length: assets }, (_, i) => `ast_${name}_${i + 1}`)),
    ledger: [{ kind: "grant", credits, at: new Date().toISOString() }],
    claims: new Map(),
  };
}

/** What prices one image: the model, its cell, and the references charged. */
type PriceSpec = { modelId: string; resolution: string; quality: string; references: number };

/**
 * Reads a quote spec leniently: unknown fields ignored, `null` as absent, strings trimmed; a spec
 * that names no priceable combination (or is malformed) is `undefined`, answered `credits: null`.
 */
function readSpec(body: Record<string, unknown>): PriceSpec | undefined {
  const field = (name: string) => {
    const value = body[name];
    return typeof value === "string" ? value.trim() : value === null ? undefined : value;
  };
  const modelId = field("modelId");
  if (field("kind") !== "image" || !(ORACLE_MODEL_IDS as readonly unknown[]).includes(modelId)) {
    return undefined;
  }
  const model = modelId as OracleModel;
  const resolution = field("resolution") ?? oracleDefaultResolution(model);
  const quality = field("quality") ?? "low";
  const references = field("referenceImageCount") ?? 0;
  if (
    typeof resolution !== "string" ||
    typeof quality !== "string" ||
    !QUALITIES.includes(quality) ||
    typeof references !== "number" ||
    !Number.isInteger(references) ||
    references < 0 ||
    references > Math.min(14, ORACLE_MAX_REFS[model])
  ) {
    return undefined;
  }
  return { modelId: model, resolution, quality, references };
}

/** A generation request read: the checked request, or why it is refused. */
type ReadGeneration =
  | { ok: true; request: GenerationRequest; rawReferences: number }
  | { ok: false; message: string; chargeable?: GenerationRequest };

/**
 * Checks a generation body with the package's core, after this implementation's own choices
 * (`null` is absent, quality free on models priced without it, references ignored on
 * text-to-image) and the bug of `breaks`, if it is a validation bug.
 */
function readGeneration(raw: unknown, breaks: Break | undefined): ReadGeneration {
  if (!isObject(raw)) {
    return { ok: false, message: "The body must be a JSON object." };
  }
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== null || name === "prompt") {
      body[name] = value;
    }
  }
  const trimmed = (name: string) => {
    const value = body[name];
    return typeof value === "string" ? value.trim() : value;
  };
  if (breaks === "strings-not-trimmed") {
    const padded = Object.entries(body).find(
      ([, value]) => typeof value === "string" && value !== value.trim(),
    );
    if (padded) {
      return { ok: false, message: `${padded[0]} is not one of its values.` };
    }
  }
  const modelId = trimmed("modelId") ?? "alpha-img2-official";
  const knownModel = (ORACLE_MODEL_IDS as readonly unknown[]).includes(modelId);
  // After the check the request is patched back to what a bug lets through.
  const patch: Partial<GenerationRequest> = {};
  if (
    knownModel &&
    !isQualityModel(modelId as string) &&
    QUALITIES.includes(trimmed("quality") as string)
  ) {
    body.quality = "low";
  }
  if ((trimmed("generationType") ?? "text-to-image") === "text-to-image") {
    const ids = body.inputAssetIds;
    if (Array.isArray(ids) && ids.every((id) => typeof id === "string" && id.trim() !== "")) {
      delete body.inputAssetIds;
    }
  }
  const limit = knownModel ? maxImages(modelId as OracleModel) : 0;
  if (breaks === "image-count-off-by-one" && body.imageCount === limit + 1) {
    body.imageCount = 1;
    patch.imageCount = limit + 1;
  }
  if (breaks === "image-count-zero-accepted" && body.imageCount === 0) {
    body.imageCount = 1;
    patch.imageCount = 0;
  }
  const prompt = trimmed("prompt");
  if (
    breaks === "prompt-off-by-one" &&
    typeof prompt === "string" &&
    [...prompt].length === 12001
  ) {
    body.prompt = "x";
    patch.prompt = prompt;
  }
  const key = trimmed("idempotencyKey");
  if (
    breaks === "idempotency-key-off-by-one" &&
    typeof key === "string" &&
    [...key].length === 129
  ) {
    body.idempotencyKey = "x";
    patch.idempotencyKey = key;
  }
  if (breaks === "unknown-field-accepted") {
    for (const name of Object.keys(body)) {
      if (!FIELDS.includes(name)) {
        delete body[name];
      }
    }
  }
  if (breaks === "quality-auto-accepted" && trimmed("quality") === "auto") {
    body.quality = "low";
  }
  if (breaks === "alpha-img2-2k-accepted" && modelId === "alpha-img2") {
    if (trimmed("resolution") === "2K" || trimmed("resolution") === "4K") {
      body.resolution = "1K";
    }
  }
  if (breaks === "background-on-beta2" && modelId === "beta2") {
    if (trimmed("background") === "transparent" || trimmed("background") === "opaque") {
      body.background = "auto";
    }
  }
  if (breaks === "gamma-two-references" && modelId === "gamma-image-1.5") {
    const ids = body.inputAssetIds;
    if (Array.isArray(ids) && new Set(ids.map((id) => String(id).trim())).size === 2) {
      body.inputAssetIds = ids.slice(0, 1);
      patch.inputAssetIds = [...new Set(ids.map((id) => String(id).trim()))];
    }
  }
  const checked = checkRequest(body);
  if (!checked.success) {
    const message = checked.issues.map((issue) => `${issue.path}: ${issue.message}`).join(" ");
    // A ratio of the public lists (N7) that the model does not offer (V1), and nothing else wrong.
    const ratio = trimmed("aspectRatio");
    const onlyRatio =
      ALL_RATIOS.includes(ratio as string) &&
      checked.issues.every((issue) => issue.path === "aspectRatio");
    if (breaks === "ratio-refusal-charges" && onlyRatio) {
      const { aspectRatio: _, ...rest } = body;
      const again = checkRequest(rest);
      if (again.success) {
        return { ok: false, message, chargeable: again.output };
      }
    }
    return { ok: false, message };
  }
  const sent = raw.inputAssetIds;
  const rawReferences = Array.isArray(sent) ? sent.length : 0;
  return { ok: true, request: { ...checked.output, ...patch }, rawReferences };
}

const FIELDS = [
  "prompt",
  "modelId",
  "generationType",
  "aspectRatio",
  "resolution",
  "quality",
  "background",
  "imageCount",
  "inputAssetIds",
  "idempotencyKey",
];

function maxImages(model: OracleModel): number {
  return model === "alpha-img2" ? 8 : model === "gamma-image-1.5" ? 10 : 4;
}

/** Reads a JSON body of at most 1 MiB, whatever its `Content-Type`. */
async function readJson(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.length > BODY_LIMIT) {
    return refuse(413, "too_large", "The body is larger than 1 MiB.");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return refuse(422, "invalid_json", "The body is not JSON.");
  }
}

/** A decimal rounded half-up to a whole credit. */
function halfUp(amount: Decimal): number {
  return amount.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** This implementation's error shape: a message and a type, no code. */
function refuse(status: number, type: string, message: string): Response {
  return json(status, { error: { message, type } });
}
