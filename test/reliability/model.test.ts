/**
 * Reliability: model-based testing. Random sequences of generation requests (valid and invalid,
 * with and without idempotency keys, replays, a key reused with another body, foreign references),
 * job failures (repeated too), multiplier changes, grants, key revocations, a moving clock that
 * expires idempotency claims (with a window), and concurrent bursts, run against the server and against a small
 * model of the ledger built from the hand-typed price oracle. After every step the server must
 * agree with the model (S4-S7, S13).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ReferenceServer } from "../../src/server/index.js";
import {
  ORACLE_MAX_IMAGES,
  ORACLE_MAX_REFS,
  type OracleModel,
  oracleDefaultResolution,
  oracleQualities,
  oracleResolutions,
} from "../oracle/seed.js";
import { BASE, checkAnswer, checkLedger, oracleCredits, world } from "./helpers.js";

const TTL = 1000;
/** What the sequences did, so that the test can show it reached every outcome (and docs/reliability.md its figures). */
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

type Spec = { model: OracleModel; resolution: string; quality: string; imageCount: number; refs: number; prompt: string };
type Variant = "valid" | "unknown_field" | "zero_images" | "blank_prompt" | "unknown_model" | "foreign_asset";

type ModelUser = {
  balance: number;
  granted: number;
  charged: number;
  refunded: number;
  multiplier: string;
  revoked: boolean[];
  records: Map<string, { fp: string; text: string; expiresAt: number; spec: Spec }>;
};
type Model = {
  now: number;
  users: ModelUser[];
  jobs: { jobId: string; user: number; credits: number; failed: boolean }[];
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

const ownIds = (real: Real, user: number, s: Spec) => (real.users[user]?.assets ?? []).slice(0, s.refs);

/** Renders a request body; `loose` sends defaults explicitly, pads strings and repeats a reference. */
function render(s: Spec, ids: string[], key: string | undefined, loose: boolean, variant: Variant): Record<string, unknown> {
  const pad = (v: string) => (loose ? ` ${v}\t` : v);
  const body: Record<string, unknown> = { prompt: pad(s.prompt), modelId: pad(s.model) };
  if (loose || s.resolution !== oracleDefaultResolution(s.model)) body.resolution = pad(s.resolution);
  if (loose || s.quality !== "low") body.quality = pad(s.quality);
  if (loose || s.imageCount !== 1) body.imageCount = s.imageCount;
  if (ids.length > 0) {
    body.generationType = pad("image-to-image");
    body.inputAssetIds = loose ? [...ids.map(pad), ids[0]] : ids;
  } else if (loose) {
    body.generationType = "text-to-image";
    body.inputAssetIds = [];
  }
  if (key !== undefined) body.idempotencyKey = pad(key);
  if (variant === "unknown_field") body.totalCreditCost = 0;
  if (variant === "zero_images") body.imageCount = 0;
  if (variant === "blank_prompt") body.prompt = "  \t ";
  if (variant === "unknown_model") body.modelId = "alpha-img3";
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
  if (u.revoked[keyIdx]) return { status: 401 } as const;
  if (variant !== "valid" && variant !== "foreign_asset") return { status: 400, code: "invalid_request" } as const;
  const record = key === undefined ? undefined : u.records.get(key.trim());
  if (record && record.expiresAt > m.now) {
    return record.fp === fingerprint(s, ids) ? ({ status: 202, replay: record.text } as const) : ({ status: 409 } as const);
  }
  if (variant === "foreign_asset") return { status: 400, code: "asset_not_found" } as const;
  const perOutput = oracleCredits(s.model, s.resolution, s.quality, new Set(ids).size, u.multiplier);
  const cost = perOutput * s.imageCount;
  if (cost > u.balance) return { status: 402 } as const;
  return { status: 202, cost, perOutput } as const;
}

/** Applies an accepted (new) task to the model and checks its 202 body against it. */
function accept(m: Model, user: number, cost: number, perOutput: number, body: Record<string, unknown>) {
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
    m.jobs.push({ jobId: r.job.id, user, credits: perOutput, failed: false });
  }
}

/** The invariants after every step, for every user. */
async function checkAll(m: Model, real: Real) {
  for (const [i, u] of m.users.entries()) {
    const userId = real.users[i]?.userId as string;
    expect(await real.server.admin.balance(userId)).toBe(u.balance);
    expect(u.balance).toBe(u.granted - u.charged + u.refunded);
    expect(u.balance).toBeGreaterThanOrEqual(0);
    expect(await checkLedger(real.server, userId)).toEqual({ granted: u.granted, debited: u.charged, refunded: u.refunded });
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
    /** Reuse one of the user's recorded requests: "replay" it (maybe rendered differently) or "reuse" its key with another prompt. */
    readonly fromRecord: "replay" | "reuse" | undefined,
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
      const [name, record] = recorded[this.keyIdx % recorded.length] as (typeof recorded)[0];
      key = name;
      variant = "valid";
      s = this.fromRecord === "replay" ? record.spec : { ...record.spec, prompt: `${record.spec.prompt.trim()} again` };
    }
    const other = real.users[(this.user + 1) % USERS]?.assets[0] as string;
    const own = ownIds(real, this.user, s);
    const ids = variant === "foreign_asset" ? [other, ...own.slice(1)] : own;
    const body = render(variant === "foreign_asset" && s.refs === 0 ? { ...s, refs: 1 } : s, ids, key, this.loose, variant);
    const expected = expectOutcome(m, this.user, keyIdx, s, ids, key, variant);
    const got = await send(real, keys[keyIdx]?.key as string, body);
    count("requests");
    count(`status ${got.status}${got.replayed ? " replay" : ""}`);
    if (key !== undefined && u.records.has(key.trim()) && !("replay" in expected) && expected.status !== 409)
      count("expired key reused");
    expect(got.status).toBe(expected.status);
    if ("code" in expected) expect((got.body.error as { code: string }).code).toBe(expected.code);
    if (expected.status === 202 && "replay" in expected) {
      expect(got.text).toBe(expected.replay); // S5: the original body, byte for byte
      expect(got.replayed).toBe(true);
    } else if (expected.status === 202) {
      expect(got.replayed).toBe(false);
      accept(m, this.user, expected.cost, expected.perOutput, got.body);
      if (key !== undefined)
        u.records.set(key.trim(), { fp: fingerprint(s, ids), text: got.text, expiresAt: m.now + TTL, spec: s });
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
    await real.server.admin.setPriceMultiplier(real.users[this.user]?.userId as string, this.multiplier);
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
    m.now += this.ms;
    real.clock.now += this.ms;
    await checkAll(m, real);
  }
  toString = () => `clock(+${this.ms})`;
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
      oracleCredits(this.spec.model, this.spec.resolution, this.spec.quality, ids.length, u.multiplier) * this.spec.imageCount;
    const target = cost - (this.short ? 1 : 0);
    if (keyIdx < 0 || target < u.balance) return void count("boundary skipped");
    await real.server.admin.grantCredits(r.userId, target - u.balance);
    u.granted += target - u.balance;
    u.balance = target;
    const expected = expectOutcome(m, this.user, keyIdx, this.spec, ids, undefined, "valid");
    const got = await send(real, r.keys[keyIdx]?.key as string, render(this.spec, ids, undefined, false, "valid"));
    count(`boundary ${got.status}`);
    expect(got.status).toBe(this.short && cost > 0 ? 402 : 202);
    expect(got.status).toBe(expected.status);
    if (expected.status === 202 && "cost" in expected)
      accept(m, this.user, expected.cost ?? 0, expected.perOutput ?? 0, got.body);
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
    for (const a of answers) count(`burst status ${a.status}`);
    const perOutput = oracleCredits(this.spec.model, this.spec.resolution, this.spec.quality, ids.length, u.multiplier);
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
        });
      }
    } else {
      const fits = cost === 0 ? this.n : Math.min(this.n, Math.floor(u.balance / cost));
      const accepted = answers.filter((a) => a.status === 202);
      expect(accepted).toHaveLength(fits);
      expect(answers.filter((a) => a.status === 402)).toHaveLength(this.n - fits);
      for (const [i, a] of answers.entries()) {
        if (a.status !== 202) continue;
        expect(a.replayed).toBe(false);
        const b = bodies[i] as Record<string, unknown>;
        const before = u.balance;
        u.balance -= cost;
        u.charged += cost;
        const { batch } = a.body as { batch: { results: { job: { id: string } }[] } };
        for (const r of batch.results) m.jobs.push({ jobId: r.job.id, user: this.user, credits: perOutput, failed: false });
        const key = b.idempotencyKey as string | undefined;
        if (key !== undefined) {
          const s = { ...this.spec, prompt: b.prompt as string };
          u.records.set(key, { fp: fingerprint(s, ids), text: a.text, expiresAt: m.now + TTL, spec: s });
        }
        expect(before).toBeGreaterThanOrEqual(cost);
      }
    }
    await checkAll(m, real);
  }
  toString = () => `burst(u${this.user}, k${this.keyIdx}, ${this.n}, ${this.kind}, ${JSON.stringify(this.spec)})`;
}

const user = fc.nat({ max: USERS - 1 });
const variant = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Variant>("valid") },
  fc.constantFrom<Variant>("unknown_field", "zero_images", "blank_prompt", "unknown_model", "foreign_asset"),
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
      .map(([u, k, s, key, loose, v, from]) => new GenerateCmd(u, k, s, key, loose, v, from as "replay" | "reuse" | undefined)),
    fc.tuple(fc.nat(), fc.integer({ min: 1, max: 3 })).map(([p, t]) => new FailJobCmd(p, t)),
    fc
      .tuple(user, fc.constantFrom<string | number>("1", "1.15", "0.5", "2.345", "0", " 0.333 ", 1.07, 3))
      .map(([u, x]) => new MultiplierCmd(u, x)),
    fc.tuple(user, fc.integer({ min: 0, max: 2000 })).map(([u, c]) => new GrantCmd(u, c)),
    fc
      .tuple(user, fc.constantFrom<"revoke" | "create">("revoke", "create", "create"), fc.nat({ max: 3 }))
      .map(([u, a, k]) => new KeyCmd(u, a, k)),
    fc.constantFrom(10, 400, 999, 1000, 1500).map((ms) => new ClockCmd(ms)),
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

describe("reliability: model-based sequences against a model of the ledger (S4-S7, S13)", () => {
  it("S4/S5/S6/S7/S13: after every step of any sequence the balance is granted - charged + refunded, never negative; replays return the original body; each job is refunded at most once, by its stored charge", async () => {
    let sequences = 0;
    let steps = 0;
    await fc.assert(
      fc.asyncProperty(commands, fc.integer({ min: 0, max: 3000 }), async (cmds, credits) => {
        sequences++;
        const clock = { now: Date.UTC(2026, 0, 1) };
        const w = await world(USERS, credits, { now: () => clock.now, idempotencyTtlMs: TTL });
        const real: Real = {
          server: w.server,
          clock,
          users: w.users.map((u) => ({ userId: u.userId, keys: [{ key: u.key, apiKeyId: u.apiKeyId }], assets: u.assets })),
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
      }),
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
    ]) {
      expect(stats.get(what) ?? 0, what).toBeGreaterThan(0);
    }
    if (process.env.RELIABILITY_STATS) console.log(JSON.stringify({ sequences, steps, ...Object.fromEntries(stats) }));
    expect(steps).toBeGreaterThan(sequences);
  }, 120_000);
});
