/**
 * Reliability: model-based testing. Random sequences of generation requests (valid and invalid,
 * with and without idempotency keys, replays, a key reused with another body, foreign references),
 * quotes, job failures (repeated too), multiplier changes, grants, key revocations, a moving clock
 * that expires idempotency claims (with a window) and crosses a scheduled price change, and
 * concurrent bursts, run against the server and against a small model of the ledger built from the
 * hand-typed price oracle (with the same change applied to it from its instant). After every step
 * the server must agree with the model (P8, S4-S7, S11, S13).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { catalog } from "../../src/index.js";
import type { ReferenceServer } from "../../src/server/index.js";
import {
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  type OracleModel,
  oracleDefaultResolution,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import {
  BASE,
  changedCatalog,
  checkAnswer,
  checkLedger,
  oracleCredits,
  PRICE_CHANGE,
  type PriceChange,
  world,
} from "./helpers.js";

const TTL = 1000;
/** When {@link PRICE_CHANGE} takes effect: its version date at 00:00 UTC (P8). */
const CHANGE_AT = Date.UTC(2027, 0, 1);
/** The server's history: the built-in catalog, then the same with the change. */
const HISTORY = [catalog, changedCatalog(catalog, PRICE_CHANGE)];
/** The change in force at an instant, by the model's own reading of P8: from its first millisecond on. */
const changeAt = (now: number): PriceChange | undefined =>
  now >= CHANGE_AT ? PRICE_CHANGE : undefined;
/** What the sequences did, so that the test can show it reached every outcome (and bench/README.md its figures). */
const stats = new Map<string, number>();
const count = (what: string, n = 1) => stats.set(what, (stats.get(what) ?? 0) + n);
const USERS = 2;
const MODELS: OracleModel[] = [
  "alpha-img2",
  "alpha-img2-official",
  "alpha-img2-5-flare",
  "beta-pro",
  "beta2",
  "beta",
  "gamma-image-1.5",
];

type Spec = {
  model: OracleModel;
  resolution: string;
  quality: string;
  imageCount: number;
  refs: number;
  prompt: string;
};
type Variant =
  | "valid"
  | "unknown_field"
  | "zero_images"
  | "blank_prompt"
  | "unknown_model"
  | "foreign_asset";

type ModelUser = {
  balance: number;
  granted: number;
  charged: number;
  refunded: number;
  multiplier: string;
  revoked: boolean[];
  records: Map<string, { fp: string; text: string; expiresAt: number; spec: Spec; at: number }>;
};
type Model = {
  now: number;
  users: ModelUser[];
  jobs: { jobId: string; user: number; credits: number; failed: boolean; at: number }[];
  bursts: number;
};
type Real = {
  server: ReferenceServer;
  clock: { now: number };
  users: { userId: string; keys: { key: string; apiKeyId: string }[]; assets: string[] }[];
};

const spec: fc.Arbitrary<Spec> = fc.constantFrom(...MODELS).chain((model) =>
  fc.record({
    model: fc.constant(model),
    resolution: fc.constantFrom(...oracleResolutions(model)),
    quality: fc.constantFrom(...oracleQualities(model)),
    imageCount: fc.integer({ min: 1, max: Math.min(3, ORACLE_MAX_IMAGES[model]) }),
    refs: fc.integer({ min: 0, max: Math.min(2, ORACLE_MAX_REFS[model]) }),
    prompt: fc.constantFrom("a fox", " a fox ", "two cats"),
  }),
);

const ownIds = (real: Real, user: number, s: Spec) =>
  (real.users[user]?.assets ?? []).slice(0, s.refs);

/** Renders a request body; `loose` sends defaults explicitly, pads strings and repeats a reference. */
function render(
  s: Spec,
  ids: string[],
  key: string | undefined,
  loose: boolean,
  variant: Variant,
): Record<string, unknown> {
  const pad = (v: string) => (loose ? ` ${v}\t` : v);
  const body: Record<string, unknown> = { prompt: pad(s.prompt), modelId: pad(s.model) };
  if (loose || s.resolution !== oracleDefaultResolution(s.model)) {
    body.resolution = pad(s.resolution);
  }
  if (loose || s.quality !== "low") {
    body.quality = pad(s.quality);
  }
  if (loose || s.imageCount !== 1) {
    body.imageCount = s.imageCount;
  }
  if (ids.length > 0) {
    body.generationType = pad("image-to-image");
    body.inputAssetIds = loose ? [...ids.map(pad), ids[0]] : ids;
  } else if (loose) {
    body.generationType = "text-to-image";
    body.inputAssetIds = [];
  }
  if (key !== undefined) {
    body.idempotencyKey = pad(key);
  }
  if (variant === "unknown_field") {
    body.totalCreditCost = 0;
  }
  if (variant === "zero_images") {
    body.imageCount = 0;
  }
  if (variant === "blank_prompt") {
    body.prompt = "  \t ";
  }
  if (variant === "unknown_model") {
    body.modelId = "alpha-img3";
  }
  return body;
}

const fingerprint = (s: Spec, ids: string[]) =>
  JSON.stringify([s.prompt.trim(), s.model, s.resolution, s.quality, s.imageCount, ids]);

async function send(real: Real, key: string, body: unknown) {
  const res = await real.server.fetch(
    new Request(`${BASE}/api/generations`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  const replayed = res.headers.get("idempotent-replayed") === "true";
  const answer = await checkAnswer(res);
  return { ...answer, replayed };
}

/** What the model says a generation request gets, and the state change of a 202. */
function expectOutcome(
  m: Model,
  user: number,
  keyIdx: number,
  s: Spec,
  ids: string[],
  key: string | undefined,
  variant: Variant,
) {
  const u = m.users[user] as ModelUser;
  if (u.revoked[keyIdx]) {
    return { status: 401 } as const;
  }
  if (variant !== "valid" && variant !== "foreign_asset") {
    return { status: 400, code: "invalid_request" } as const;
  }
  const record = key === undefined ? undefined : u.records.get(key.trim());
  if (record && record.expiresAt > m.now) {
    return record.fp === fingerprint(s, ids)
      ? ({ status: 202, replay: record.text } as const)
      : ({ status: 409 } as const);
  }
  if (variant === "foreign_asset") {
    return { status: 400, code: "asset_not_found" } as const;
  }
  const perOutput = oracleCredits(
    s.model,
    s.resolution,
    s.quality,
    new Set(ids).size,
    u.multiplier,
    changeAt(m.now),
  );
  const cost = perOutput * s.imageCount;
  if (cost > u.balance) {
    return { status: 402 } as const;
  }
  return { status: 202, cost, perOutput } as const;
}

/** Applies an accepted (new) task to the model and checks its 202 body against it. */
function accept(
  m: Model,
  user: number,
  cost: number,
  perOutput: number,
  body: Record<string, unknown>,
) {
  const u = m.users[user] as ModelUser;
  u.balance -= cost;
  u.charged += cost;
  const { batch, billing } = body as {
    batch: { results: { job: { id: string; status: string } }[] };
    billing: { totalCreditCost: number; balanceAfterCredits: number };
  };
  expect(billing).toEqual({ totalCreditCost: cost, balanceAfterCredits: u.balance });
  for (const r of batch.results) {
    expect(r.job.status).toBe("queued");
    m.jobs.push({ jobId: r.job.id, user, credits: perOutput, failed: false, at: m.now });
  }
  count(m.now >= CHANGE_AT ? "task after change" : "task before change");
}

/** The invariants after every step, for every user. */
async function checkAll(m: Model, real: Real) {
  for (const [i, u] of m.users.entries()) {
    const userId = real.users[i]?.userId as string;
    expect(await real.server.admin.balance(userId)).toBe(u.balance);
    expect(u.balance).toBe(u.granted - u.charged + u.refunded);
    expect(u.balance).toBeGreaterThanOrEqual(0);
    expect(await checkLedger(real.server, userId)).toEqual({
      granted: u.granted,
      debited: u.charged,
      refunded: u.refunded,
    });
  }
}

class GenerateCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly keyIdx: number,
    readonly spec: Spec,
    readonly key: string | undefined,
    readonly loose: boolean,
    readonly variant: Variant,
    /**
     * Reuse one of the user's recorded requests: "replay" it (maybe rendered differently), "reuse"
     * its key with another prompt, or retry the "latest" one accepted.
     */
    readonly fromRecord: "replay" | "reuse" | "latest" | undefined,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const u = m.users[this.user] as ModelUser;
    const keys = real.users[this.user]?.keys ?? [];
    const keyIdx = this.keyIdx % keys.length;
    let s = this.spec;
    let key = this.key;
    let variant = this.variant;
    const recorded = [...u.records.entries()];
    if (this.fromRecord && recorded.length > 0) {
      const [name, record] =
        this.fromRecord === "latest"
          ? recorded.reduce((a, b) => (b[1].at >= a[1].at ? b : a))
          : (recorded[this.keyIdx % recorded.length] as (typeof recorded)[0]);
      key = name;
      variant = "valid";
      s =
        this.fromRecord === "reuse"
          ? { ...record.spec, prompt: `${record.spec.prompt.trim()} again` }
          : record.spec;
    }
    const other = real.users[(this.user + 1) % USERS]?.assets[0] as string;
    const own = ownIds(real, this.user, s);
    const ids = variant === "foreign_asset" ? [other, ...own.slice(1)] : own;
    const body = render(
      variant === "foreign_asset" && s.refs === 0 ? { ...s, refs: 1 } : s,
      ids,
      key,
      this.loose,
      variant,
    );
    const expected = expectOutcome(m, this.user, keyIdx, s, ids, key, variant);
    const got = await send(real, keys[keyIdx]?.key as string, body);
    count("requests");
    count(`status ${got.status}${got.replayed ? " replay" : ""}`);
    if (
      key !== undefined &&
      u.records.has(key.trim()) &&
      !("replay" in expected) &&
      expected.status !== 409
    ) {
      count("expired key reused");
    }
    expect(got.status).toBe(expected.status);
    if ("code" in expected) {
      expect((got.body.error as { code: string }).code).toBe(expected.code);
    }
    if (expected.status === 202 && "replay" in expected) {
      expect(got.text).toBe(expected.replay); // S5: the original body, byte for byte (P8: whatever the prices now)
      expect(got.replayed).toBe(true);
      if ((u.records.get((key as string).trim())?.at ?? m.now) < CHANGE_AT && m.now >= CHANGE_AT) {
        count("replay across change");
      }
    } else if (expected.status === 202) {
      expect(got.replayed).toBe(false);
      accept(m, this.user, expected.cost, expected.perOutput, got.body);
      if (key !== undefined) {
        u.records.set(key.trim(), {
          fp: fingerprint(s, ids),
          text: got.text,
          expiresAt: m.now + TTL,
          spec: s,
          at: m.now,
        });
      }
    }
    await checkAll(m, real);
  }
  toString = () =>
    `generate(u${this.user}, k${this.keyIdx}, ${JSON.stringify(this.spec)}, ${this.key}, ${this.loose}, ${this.variant}, ${this.fromRecord})`;
}

class FailJobCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pick: number,
    readonly times: number,
  ) {}
  check = (m: Readonly<Model>) => m.jobs.length > 0;
  async run(m: Model, real: Real) {
    const job = m.jobs[this.pick % m.jobs.length] as Model["jobs"][0];
    expect((await real.server.admin.job(job.jobId)).credits).toBe(job.credits); // S7: the stored charge, whatever the prices now
    for (let i = 0; i < this.times; i++) {
      const { refundedCredits } = await real.server.admin.failJob(job.jobId);
      expect(refundedCredits).toBe(job.failed ? 0 : job.credits); // S6: once, exactly the charge
      count(job.failed ? "repeated failure (no refund)" : "refund");
      if (!job.failed && job.at < CHANGE_AT && m.now >= CHANGE_AT) {
        count("refund across change");
      }
      if (!job.failed) {
        const u = m.users[job.user] as ModelUser;
        u.balance += job.credits;
        u.refunded += job.credits;
        job.failed = true;
      }
    }
    await checkAll(m, real);
  }
  toString = () => `failJob(${this.pick}, x${this.times})`;
}

class MultiplierCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly multiplier: string | number,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    await real.server.admin.setPriceMultiplier(
      real.users[this.user]?.userId as string,
      this.multiplier,
    );
    (m.users[this.user] as ModelUser).multiplier = String(this.multiplier).trim();
    await checkAll(m, real);
  }
  toString = () => `multiplier(u${this.user}, ${this.multiplier})`;
}

class GrantCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly credits: number,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    await real.server.admin.grantCredits(real.users[this.user]?.userId as string, this.credits);
    const u = m.users[this.user] as ModelUser;
    u.balance += this.credits;
    u.granted += this.credits;
    await checkAll(m, real);
  }
  toString = () => `grant(u${this.user}, ${this.credits})`;
}

class KeyCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly action: "revoke" | "create",
    readonly keyIdx: number,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const r = real.users[this.user] as Real["users"][0];
    const u = m.users[this.user] as ModelUser;
    if (this.action === "create") {
      r.keys.push(await real.server.admin.createApiKey(r.userId));
      u.revoked.push(false);
    } else {
      const i = this.keyIdx % r.keys.length;
      await real.server.admin.revokeApiKey(r.keys[i]?.apiKeyId as string);
      u.revoked[i] = true;
    }
    await checkAll(m, real);
  }
  toString = () => `key(u${this.user}, ${this.action}, ${this.keyIdx})`;
}

class ClockCmd implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(m: Model, real: Real) {
    moveClock(m, real, m.now + this.ms);
    await checkAll(m, real);
  }
  toString = () => `clock(+${this.ms})`;
}

/** Moves both clocks forward to `to`, counting a crossing of the scheduled change. */
function moveClock(m: Model, real: Real, to: number) {
  if (m.now < CHANGE_AT && to >= CHANGE_AT) {
    count("clock crossed the change");
  }
  m.now = to;
  real.clock.now = to;
}

/**
 * Time passes up to the scheduled change: to a millisecond before, at or after it (or a second
 * before, or a day after), never back; then, maybe, a user retries the last request they sent with a
 * key, as a client does after a timeout (a replay while the key lives, whatever the prices now).
 */
class TimePassesCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly offset: number,
    readonly retry: { user: number; spec: Spec; loose: boolean } | undefined,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    moveClock(m, real, Math.max(m.now, CHANGE_AT + this.offset));
    await checkAll(m, real);
    const r = this.retry;
    if (r === undefined || (m.users[r.user] as ModelUser).records.size === 0) {
      return;
    }
    const keyIdx = Math.max(0, (m.users[r.user] as ModelUser).revoked.indexOf(false));
    await new GenerateCmd(r.user, keyIdx, r.spec, undefined, r.loose, "valid", "latest").run(
      m,
      real,
    );
  }
  toString = () =>
    `timePasses(change ${this.offset >= 0 ? "+" : ""}${this.offset} ms${this.retry ? `, then u${this.retry.user} retries (loose=${this.retry.loose})` : ""})`;
}

/** A quote: the oracle's price at the model's clock, the version in force, and the next change while it is ahead (P8, S11). */
class QuoteCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly keyIdx: number,
    readonly spec: Spec,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const u = m.users[this.user] as ModelUser;
    const keys = real.users[this.user]?.keys ?? [];
    const keyIdx = this.keyIdx % keys.length;
    const s = this.spec;
    const res = await real.server.fetch(
      new Request(`${BASE}/api/pricing/quote`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${keys[keyIdx]?.key}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({
          kind: "image",
          modelId: s.model,
          resolution: s.resolution,
          quality: s.quality,
          referenceImageCount: s.refs,
        }),
      }),
    );
    const got = await checkAnswer(res);
    count("requests");
    if (u.revoked[keyIdx]) {
      expect(got.status).toBe(401);
    } else {
      expect(got.status).toBe(200);
      const credits = (change: PriceChange | undefined) =>
        oracleCredits(s.model, s.resolution, s.quality, s.refs, u.multiplier, change);
      const after = m.now >= CHANGE_AT;
      count(after ? "quote after change" : "quote before change");
      expect(got.body).toMatchObject({
        credits: credits(changeAt(m.now)),
        catalogVersion: after ? PRICE_CHANGE.version : catalog.version,
      });
      if (after) {
        expect(got.body).not.toHaveProperty("nextChange");
      } else {
        expect(got.body.nextChange).toEqual({
          version: PRICE_CHANGE.version,
          effectiveAt: new Date(CHANGE_AT).toISOString(),
          credits: credits(PRICE_CHANGE),
        });
      }
    }
    await checkAll(m, real);
  }
  toString = () => `quote(u${this.user}, k${this.keyIdx}, ${JSON.stringify(this.spec)})`;
}

/** Brings the balance to exactly one credit short of (or exactly at) a task's cost, then asks for it (S4's edge). */
class BoundaryCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly spec: Spec,
    readonly short: boolean,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const u = m.users[this.user] as ModelUser;
    const r = real.users[this.user] as Real["users"][0];
    const keyIdx = u.revoked.indexOf(false);
    const ids = ownIds(real, this.user, this.spec);
    const cost =
      oracleCredits(
        this.spec.model,
        this.spec.resolution,
        this.spec.quality,
        ids.length,
        u.multiplier,
        changeAt(m.now),
      ) * this.spec.imageCount;
    const target = cost - (this.short ? 1 : 0);
    if (keyIdx < 0 || target < u.balance) {
      return void count("boundary skipped");
    }
    await real.server.admin.grantCredits(r.userId, target - u.balance);
    u.granted += target - u.balance;
    u.balance = target;
    const expected = expectOutcome(m, this.user, keyIdx, this.spec, ids, undefined, "valid");
    const got = await send(
      real,
      r.keys[keyIdx]?.key as string,
      render(this.spec, ids, undefined, false, "valid"),
    );
    count(`boundary ${got.status}`);
    expect(got.status).toBe(this.short && cost > 0 ? 402 : 202);
    expect(got.status).toBe(expected.status);
    if (expected.status === 202 && "cost" in expected) {
      accept(m, this.user, expected.cost ?? 0, expected.perOutput ?? 0, got.body);
    }
    await checkAll(m, real);
  }
  toString = () => `boundary(u${this.user}, ${JSON.stringify(this.spec)}, short=${this.short})`;
}

/** n requests at once: all with one new idempotency key, or all distinct with the same cost. */
class BurstCmd implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly user: number,
    readonly keyIdx: number,
    readonly n: number,
    readonly kind: "same_key" | "distinct",
    readonly spec: Spec,
  ) {}
  check = () => true;
  async run(m: Model, real: Real) {
    const u = m.users[this.user] as ModelUser;
    const keys = real.users[this.user]?.keys ?? [];
    const keyIdx = this.keyIdx % keys.length;
    const apiKey = keys[keyIdx]?.key as string;
    const ids = ownIds(real, this.user, this.spec);
    const burst = ++m.bursts;
    const name = `burst-${burst}`;
    const bodies = Array.from({ length: this.n }, (_, i) =>
      this.kind === "same_key"
        ? render(this.spec, ids, name, i % 2 === 1, "valid")
        : render(
            { ...this.spec, prompt: `${this.spec.prompt.trim()} #${burst}.${i}` },
            ids,
            i % 3 === 0 ? `${name}.${i}` : undefined,
            false,
            "valid",
          ),
    );
    const answers = await Promise.all(bodies.map((b) => send(real, apiKey, b)));
    count(`burst ${this.kind}`);
    count("requests", this.n);
    for (const a of answers) {
      count(`burst status ${a.status}`);
    }
    const perOutput = oracleCredits(
      this.spec.model,
      this.spec.resolution,
      this.spec.quality,
      ids.length,
      u.multiplier,
      changeAt(m.now),
    );
    const cost = perOutput * this.spec.imageCount;
    if (u.revoked[keyIdx]) {
      expect(answers.every((a) => a.status === 401)).toBe(true);
    } else if (this.kind === "same_key") {
      if (cost > u.balance) {
        expect(answers.every((a) => a.status === 402)).toBe(true); // a rejected request does not use up the key
      } else {
        expect(answers.every((a) => a.status === 202)).toBe(true);
        expect(new Set(answers.map((a) => a.text)).size).toBe(1);
        const fresh = answers.filter((a) => !a.replayed);
        expect(fresh).toHaveLength(1);
        accept(m, this.user, cost, perOutput, (fresh[0] as (typeof answers)[0]).body);
        u.records.set(name, {
          fp: fingerprint(this.spec, ids),
          text: fresh[0]?.text as string,
          expiresAt: m.now + TTL,
          spec: this.spec,
          at: m.now,
        });
      }
    } else {
      const fits = cost === 0 ? this.n : Math.min(this.n, Math.floor(u.balance / cost));
      const accepted = answers.filter((a) => a.status === 202);
      expect(accepted).toHaveLength(fits);
      expect(answers.filter((a) => a.status === 402)).toHaveLength(this.n - fits);
      for (const [i, a] of answers.entries()) {
        if (a.status !== 202) {
          continue;
        }
        expect(a.replayed).toBe(false);
        const b = bodies[i] as Record<string, unknown>;
        const before = u.balance;
        u.balance -= cost;
        u.charged += cost;
        const { batch } = a.body as { batch: { results: { job: { id: string } }[] } };
        for (const r of batch.results) {
          m.jobs.push({
            jobId: r.job.id,
            user: this.user,
            credits: perOutput,
            failed: false,
            at: m.now,
          });
        }
        count(m.now >= CHANGE_AT ? "task after change" : "task before change");
        const key = b.idempotencyKey as string | undefined;
        if (key !== undefined) {
          const s = { ...this.spec, prompt: b.prompt as string };
          u.records.set(key, {
            fp: fingerprint(s, ids),
            text: a.text,
            expiresAt: m.now + TTL,
            spec: s,
            at: m.now,
          });
        }
        expect(before).toBeGreaterThanOrEqual(cost);
      }
    }
    await checkAll(m, real);
  }
  toString = () =>
    `burst(u${this.user}, k${this.keyIdx}, ${this.n}, ${this.kind}, ${JSON.stringify(this.spec)})`;
}

const user = fc.nat({ max: USERS - 1 });
const variant = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Variant>("valid") },
  fc.constantFrom<Variant>(
    "unknown_field",
    "zero_images",
    "blank_prompt",
    "unknown_model",
    "foreign_asset",
  ),
);
const idemKey = fc.option(fc.constantFrom("k1", "k2", " k3 ", "k4"), { nil: undefined, freq: 2 });

const commands = fc.commands(
  [
    fc
      .tuple(
        user,
        fc.nat({ max: 3 }),
        spec,
        idemKey,
        fc.boolean(),
        variant,
        fc.constantFrom(undefined, undefined, "replay", "replay", "reuse"),
      )
      .map(([u, k, s, key, loose, v, from]) => new GenerateCmd(u, k, s, key, loose, v, from)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([p, t]) => new FailJobCmd(p, t)),
    fc
      .tuple(
        user,
        fc.constantFrom<string | number>("1", "1.15", "0.5", "2.345", "0", " 0.333 ", 1.07, 3),
      )
      .map(([u, x]) => new MultiplierCmd(u, x)),
    fc.tuple(user, fc.integer({ min: 0, max: 2000 })).map(([u, c]) => new GrantCmd(u, c)),
    fc
      .tuple(
        user,
        fc.constantFrom<"revoke" | "create">("revoke", "create", "create"),
        fc.nat({ max: 3 }),
      )
      .map(([u, a, k]) => new KeyCmd(u, a, k)),
    fc.constantFrom(10, 400, 999, 1000, 1500).map((ms) => new ClockCmd(ms)),
    fc
      .tuple(
        fc.constantFrom(-1000, -1, 0, 1, 86_400_000),
        fc.option(fc.record({ user, spec, loose: fc.boolean() }), { nil: undefined, freq: 3 }),
      )
      .map(([offset, retry]) => new TimePassesCmd(offset, retry)),
    fc.tuple(user, fc.nat({ max: 3 }), spec).map(([u, k, s]) => new QuoteCmd(u, k, s)),
    fc.tuple(user, spec, fc.boolean()).map(([u, s, short]) => new BoundaryCmd(u, s, short)),
    fc
      .tuple(
        user,
        fc.nat({ max: 3 }),
        fc.integer({ min: 2, max: 24 }),
        fc.constantFrom<"same_key" | "distinct">("same_key", "distinct"),
        spec,
      )
      .map(([u, k, n, kind, s]) => new BurstCmd(u, k, n, kind, s)),
  ],
  { maxCommands: 60, size: "large" },
);

describe("reliability: model-based sequences against a model of the ledger (P8, S4-S7, S11, S13)", () => {
  it("P8/S4/S5/S6/S7/S11/S13: after every step of any sequence, across a scheduled price change, the balance is granted - charged + refunded, never negative; tasks and quotes are priced by the catalog in force; replays return the original body; each job is refunded at most once, by its stored charge", async () => {
    let sequences = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(
        commands,
        fc.integer({ min: 0, max: 3000 }),
        fc.constantFrom(3000, 600),
        async (cmds, credits, lead) => {
          sequences++;
          // Shortly before the change, so ordinary clock steps cross it too, not only "time passes"; from
          // 600 ms before it, every key taken before the change still lives when the clock crosses it.
          const clock = { now: CHANGE_AT - lead };
          const w = await world(USERS, credits, {
            now: () => clock.now,
            idempotencyTtlMs: TTL,
            catalogs: HISTORY,
          });
          const real: Real = {
            server: w.server,
            clock,
            users: w.users.map((u) => ({
              userId: u.userId,
              keys: [{ key: u.key, apiKeyId: u.apiKeyId }],
              assets: u.assets,
            })),
          };
          const model: Model = {
            now: clock.now,
            bursts: 0,
            jobs: [],
            users: w.users.map(() => ({
              balance: credits,
              granted: credits,
              charged: 0,
              refunded: 0,
              multiplier: "1",
              revoked: [false],
              records: new Map(),
            })),
          };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          steps += [...cmds].length;
          expect(w.logs).toEqual([]);
        },
      ),
    );
    expect(sequences).toBeGreaterThanOrEqual(fc.readConfigureGlobal().numRuns ?? 100);
    // The sequences reached every outcome the model knows.
    for (const what of [
      "status 202",
      "status 202 replay",
      "status 400",
      "status 401",
      "status 402",
      "status 409",
      "expired key reused",
      "refund",
      "repeated failure (no refund)",
      "burst same_key",
      "burst distinct",
      "burst status 202",
      "burst status 402",
      "boundary 202",
      "boundary 402",
      "clock crossed the change",
      "task before change",
      "task after change",
      "quote before change",
      "quote after change",
      "replay across change",
      "refund across change",
    ]) {
      expect(stats.get(what) ?? 0, what).toBeGreaterThan(0);
    }
    if (process.env.RELIABILITY_STATS) {
      console.log(JSON.stringify({ sequences, steps, ...Object.fromEntries(stats) }));
    }
    expect(steps).toBeGreaterThan(sequences);
  }, 120_000);

  it("P8: the model's change is the oracle's prices moved, and takes effect at its version date, 00:00 UTC", () => {
    expect(new Date(CHANGE_AT).toISOString()).toBe(`${PRICE_CHANGE.version}T00:00:00.000Z`);
    // Some cell moves, so a sequence that crosses the change can tell the two catalogs apart.
    expect(oracleCredits("beta2", "4K", "low", 0, "1", PRICE_CHANGE)).toBe(130);
    expect(oracleCredits("beta2", "4K", "low", 0, "1")).toBe(120);
    expect(oracleCredits("alpha-img2-official", "1K", "low", 2, "1", PRICE_CHANGE)).toBe(
      18 + 7 + 2 * 13,
    );
  });
});
