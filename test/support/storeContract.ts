/**
 * The `Store` contract as a reusable suite: every store (in memory, PostgreSQL) must pass it
 * unchanged. Each test makes its own users, keys and tasks with random ids, so one store serves
 * the whole suite.
 */
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import {
  type ApiKeyRecord,
  type CommitResult,
  type FixtureUserLoad,
  type LedgerRecord,
  MAX_CREDITS,
  type Store,
  type TaskDraft,
  type TaskRecord,
} from "../../src/store/store.js";
import type { GenerationRequest } from "../../src/types.js";
import { beforeAllOrFail } from "./beforeAllOrFail.js";

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A fixed instant (epoch ms) the tests count from. */
export const T0 = 1_767_225_600_000;

/**
 * A normalized request for a draft; `prompt` may be anything a client may send.
 *
 * @param overrides - Fields to change.
 * @returns The request.
 */
export function sampleRequest(overrides: Partial<GenerationRequest> = {}): GenerationRequest {
  return {
    prompt: "a lighthouse at dusk",
    modelId: "beta2",
    generationType: "text-to-image",
    aspectRatio: "1:1",
    resolution: "1K",
    quality: "medium",
    background: "auto",
    imageCount: 2,
    inputAssetIds: [],
    idempotencyKey: `idem-${hex(8)}`,
    ...overrides,
  };
}

/**
 * A task draft for a user, one job per entry of `jobCredits`.
 *
 * @param userId - The owner.
 * @param jobCredits - The charge of each job.
 * @param overrides - Other fields to change.
 * @returns The draft, with a fresh task id.
 */
export function sampleDraft(
  userId: string,
  jobCredits: readonly number[],
  overrides: Partial<TaskDraft> = {},
): TaskDraft {
  return {
    id: `task_${hex(8)}`,
    userId,
    createdAt: T0,
    request: sampleRequest({ imageCount: jobCredits.length }),
    clientKey: true,
    referenceCount: 0,
    multiplier: "1",
    catalogVersion: "2026-01-01",
    jobCredits,
    totalCredits: jobCredits.reduce((sum, c) => sum + c, 0),
    ...overrides,
  };
}

/** What a store must hold after accepting `draft` with `balanceAfter`. */
export const accepted = (draft: TaskDraft, balanceAfter: number): TaskRecord => ({
  ...draft,
  balanceAfter,
  jobStatus: draft.jobCredits.map(() => "queued" as const),
});

/**
 * A ledger's grants - debits + refunds, in exact integers (a float sum near 2^53 would round).
 *
 * @param ledger - The entries.
 * @returns The sum as a bigint.
 */
export function exactSum(ledger: readonly LedgerRecord[]): bigint {
  let sum = 0n;
  for (const entry of ledger) {
    sum += entry.kind === "debit" ? -BigInt(entry.credits) : BigInt(entry.credits);
  }
  return sum;
}

/**
 * Registers the contract suite for one kind of store.
 *
 * @param name - The store's name, in the suite's title.
 * @param makeStore - Makes the store once for the suite (closed after it).
 */
export function storeContract(name: string, makeStore: () => Promise<Store>): void {
  describe(`${name}: the Store contract`, () => {
    let store: Store;
    beforeAllOrFail(async () => {
      store = await makeStore();
    }, 180_000);
    afterAll(async () => {
      await store?.close();
    });

    const newUser = async (credits: number, multiplier = "1") => {
      const id = `usr_${hex(8)}`;
      expect(await store.createUser({ id, credits, multiplier }, T0)).toBe(true);
      return id;
    };
    const newKey = async (userId: string): Promise<ApiKeyRecord> => {
      const key: ApiKeyRecord = {
        id: `apk_${hex(8)}`,
        userId,
        mode: "test",
        hash: hex(32),
        revoked: false,
      };
      expect(await store.putApiKey(key)).toBe(true);
      return key;
    };
    /** A user with `credits` and a live key. */
    const account = async (credits: number, multiplier = "1") => {
      const userId = await newUser(credits, multiplier);
      const key = await newKey(userId);
      return { userId, apiKeyId: key.id, key };
    };
    const commit = (
      draft: TaskDraft,
      apiKeyId: string,
      claim: { key: string; expiresAt?: number } | undefined,
      now = T0,
    ) =>
      store.commitTask(
        claim === undefined ? { task: draft, apiKeyId } : { task: draft, apiKeyId, claim },
        now,
      );
    const claimOf = (draft: TaskDraft) => ({ key: draft.request.idempotencyKey ?? "" });
    const balance = async (userId: string) => (await store.getUser(userId))?.balance;

    describe("users and grants", () => {
      it("S13: createUser adds a user and its opening grant; a taken id is refused and changes nothing", async () => {
        const id = `usr_${hex(8)}`;
        expect(await store.createUser({ id, credits: 500, multiplier: "1.15" }, T0)).toBe(true);
        expect(await store.createUser({ id, credits: 7, multiplier: "2" }, T0 + 1)).toBe(false);
        expect(await store.getUser(id)).toEqual({ id, balance: 500, multiplier: "1.15" });
        expect(await store.ledger(id)).toEqual([{ kind: "grant", credits: 500, at: T0 }]);
      });

      it("S13: a user opened with 0 credits has an empty ledger; an unknown user has none", async () => {
        const id = await newUser(0);
        expect(await store.ledger(id)).toEqual([]);
        expect(await store.getUser(`usr_${hex(8)}`)).toBeUndefined();
        expect(await store.ledger(`usr_${hex(8)}`)).toBeUndefined();
      });

      it("S13: grant adds credits and a grant entry; a grant of 0 writes no entry", async () => {
        const id = await newUser(10);
        expect(await store.grant(id, 25, T0 + 5)).toEqual({ ok: true, balance: 35 });
        expect(await store.grant(id, 0, T0 + 6)).toEqual({ ok: true, balance: 35 });
        expect(await store.ledger(id)).toEqual([
          { kind: "grant", credits: 10, at: T0 },
          { kind: "grant", credits: 25, at: T0 + 5 },
        ]);
      });

      it("S4: a grant past the largest exact balance is refused and changes nothing; an unknown user is reported", async () => {
        const id = await newUser(MAX_CREDITS - 5);
        expect(await store.grant(id, 6, T0)).toEqual({
          ok: false,
          reason: "balance_too_large",
          balance: MAX_CREDITS - 5,
          held: 0,
        });
        expect(await balance(id)).toBe(MAX_CREDITS - 5);
        expect(await store.grant(id, 5, T0)).toEqual({ ok: true, balance: MAX_CREDITS });
        expect(await store.grant(`usr_${hex(8)}`, 5, T0)).toEqual({
          ok: false,
          reason: "unknown_user",
        });
        expect((await store.ledger(id))?.length).toBe(2);
      });

      it("S15: a grant counts the credits queued jobs hold, so a refund at the bound invents no credit", async () => {
        const { userId, apiKeyId } = await account(MAX_CREDITS);
        const draft = sampleDraft(userId, [80]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toMatchObject({ ok: true });
        // 80 held by the queued job: granting them back would let its refund pass 2^53 - 1.
        expect(await store.grant(userId, 80, T0)).toEqual({
          ok: false,
          reason: "balance_too_large",
          balance: MAX_CREDITS - 80,
          held: 80,
        });
        expect(await store.grant(userId, 1, T0)).toMatchObject({
          ok: false,
          reason: "balance_too_large",
        });
        expect(await store.grant(userId, 0, T0)).toEqual({ ok: true, balance: MAX_CREDITS - 80 });
        expect(await store.failJob(draft.id, 0, T0 + 1)).toBe(80);
        expect(await balance(userId)).toBe(MAX_CREDITS);
        expect(exactSum((await store.ledger(userId)) ?? [])).toBe(BigInt(MAX_CREDITS));
        // Refunded, the credits are no longer held: the balance itself is at the bound.
        expect(await store.grant(userId, 1, T0)).toEqual({
          ok: false,
          reason: "balance_too_large",
          balance: MAX_CREDITS,
          held: 0,
        });
      });

      it("S15: balance + held + grant up to exactly 2^53 - 1 is granted, and every refund after it is paid in full", async () => {
        const { userId, apiKeyId } = await account(MAX_CREDITS - 100);
        const draft = sampleDraft(userId, [30, 20]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toMatchObject({ ok: true });
        expect(await store.grant(userId, 101, T0)).toMatchObject({
          ok: false,
          reason: "balance_too_large",
          held: 50,
        });
        expect(await store.grant(userId, 100, T0)).toEqual({ ok: true, balance: MAX_CREDITS - 50 });
        expect(await store.failJob(draft.id, 1, T0)).toBe(20);
        expect(await store.failJob(draft.id, 0, T0)).toBe(30);
        expect(await balance(userId)).toBe(MAX_CREDITS);
        expect(exactSum((await store.ledger(userId)) ?? [])).toBe(BigInt(MAX_CREDITS));
      });

      it("S15: a refund is never refused: credits held by a failed job are released, a free job holds nothing", async () => {
        const { userId, apiKeyId } = await account(1000);
        const paid = sampleDraft(userId, [400]);
        const free = sampleDraft(userId, [0, 0]);
        await commit(paid, apiKeyId, claimOf(paid));
        await commit(free, apiKeyId, claimOf(free));
        // Balance 600, held 400: the headroom is 2^53 - 1 - 1000.
        expect(await store.grant(userId, MAX_CREDITS - 999, T0)).toMatchObject({
          ok: false,
          held: 400,
        });
        expect(await store.grant(userId, MAX_CREDITS - 1000, T0)).toEqual({
          ok: true,
          balance: MAX_CREDITS - 400,
        });
        expect(await store.failJob(free.id, 1, T0)).toBe(0);
        expect(await store.failJob(paid.id, 0, T0)).toBe(400);
        expect(await balance(userId)).toBe(MAX_CREDITS);
        expect(exactSum((await store.ledger(userId)) ?? [])).toBe(BigInt(MAX_CREDITS));
      });

      it("setMultiplier changes the multiplier of a known user only", async () => {
        const id = await newUser(1);
        expect(await store.setMultiplier(id, "0.85")).toBe(true);
        expect((await store.getUser(id))?.multiplier).toBe("0.85");
        expect(await store.setMultiplier(`usr_${hex(8)}`, "2")).toBe(false);
      });
    });

    describe("loading fixtures", () => {
      const load = (users: FixtureUserLoad[], at = T0) => {
        if (!store.loadFixtures) {
          throw new Error("the store has no loadFixtures");
        }
        return store.loadFixtures(users, at);
      };
      const fixtureUser = (credits: number, keys = 1, assets = 1): FixtureUserLoad => ({
        id: `usr_${hex(8)}`,
        credits,
        multiplier: "1.5",
        apiKeys: Array.from({ length: keys }, () => ({
          id: `apk_${hex(8)}`,
          hash: hex(32),
          mode: "test" as const,
        })),
        assets: Array.from({ length: assets }, () => `ast_${hex(8)}`),
      });

      it("S13: loadFixtures creates users with their opening grants, keys and assets; loading again creates nothing", async () => {
        const a = fixtureUser(100, 2, 2);
        const b = fixtureUser(0, 1, 0);
        expect(await load([a, b])).toEqual({ ok: true, created: [a.id, b.id] });
        expect(await store.getUser(a.id)).toEqual({ id: a.id, balance: 100, multiplier: "1.5" });
        expect(await store.ledger(a.id)).toEqual([{ kind: "grant", credits: 100, at: T0 }]);
        expect(await store.ledger(b.id)).toEqual([]);
        for (const key of a.apiKeys) {
          expect((await store.findCaller(key.hash))?.key).toEqual({
            ...key,
            userId: a.id,
            revoked: false,
          });
        }
        expect(await store.ownedAssets(a.id, a.assets)).toEqual(new Set(a.assets));
        await store.grant(a.id, 5, T0);
        // Again, with one key and one asset more: the user keeps its balance, the new ones are added.
        const more = {
          ...a,
          credits: 1,
          apiKeys: [...a.apiKeys, ...fixtureUser(0).apiKeys],
          assets: [...a.assets, `ast_${hex(8)}`],
        };
        expect(await load([more, b], T0 + 1)).toEqual({ ok: true, created: [] });
        expect(await balance(a.id)).toBe(105);
        expect((await store.findCaller(more.apiKeys[2]?.hash ?? ""))?.key.userId).toBe(a.id);
        expect(await store.ownedAssets(a.id, more.assets)).toEqual(new Set(more.assets));
      });

      it("S14: a key or asset another user holds refuses the whole load, naming each conflict; nothing is written", async () => {
        const owner = fixtureUser(10);
        expect(await load([owner])).toMatchObject({ ok: true });
        const first = fixtureUser(50, 1, 1);
        const thief = {
          ...fixtureUser(7, 1, 2),
          apiKeys: [
            ...fixtureUser(0).apiKeys,
            { ...(owner.apiKeys[0] as FixtureUserLoad["apiKeys"][number]), id: `apk_${hex(8)}` },
          ],
        };
        thief.assets = [`ast_${hex(8)}`, owner.assets[0] as string];
        expect(await load([first, thief])).toEqual({
          ok: false,
          conflicts: [
            { user: 1, field: "apiKeys", index: 1 },
            { user: 1, field: "assets", index: 1 },
          ],
        });
        expect(await store.getUser(first.id)).toBeUndefined();
        expect(await store.getUser(thief.id)).toBeUndefined();
        expect(await store.findCaller(first.apiKeys[0]?.hash ?? "")).toBeUndefined();
        expect(await store.ownedAssets(first.id, first.assets)).toEqual(new Set());
        expect(await store.ownedAssets(owner.id, owner.assets)).toEqual(new Set(owner.assets));
      });

      it("S12: an id with U+0000 or a lone surrogate is refused whole with a RangeError on every store; nothing is written", async () => {
        for (const odd of ["ast_\u0000", "ast_\ud800"]) {
          const first = fixtureUser(50);
          const bad = { ...fixtureUser(5), assets: ["ast_ok", odd] };
          await expect(load([first, bad])).rejects.toThrow(RangeError);
          expect(await store.getUser(first.id)).toBeUndefined();
        }
      });
    });

    describe("API keys and assets", () => {
      it("S2: a key is stored by its hash and found by its hash; a taken id or hash is refused", async () => {
        const userId = await newUser(0);
        const key = await newKey(userId);
        expect((await store.findCaller(key.hash))?.key).toEqual(key);
        expect(await store.putApiKey({ ...key, hash: hex(32) })).toBe(false);
        expect(await store.putApiKey({ ...key, id: `apk_${hex(8)}` })).toBe(false);
        expect(await store.findCaller(hex(32))).toBeUndefined();
      });

      it("S1: revoking marks the key revoked where its hash finds it; again is fine; an unknown id is reported", async () => {
        const userId = await newUser(0);
        const key = await newKey(userId);
        expect(await store.revokeApiKey(key.id)).toBe(true);
        expect(await store.revokeApiKey(key.id)).toBe(true);
        expect((await store.findCaller(key.hash))?.key).toEqual({ ...key, revoked: true });
        expect(await store.revokeApiKey(`apk_${hex(8)}`)).toBe(false);
      });

      it("S2: findCaller finds a key by its hash with its user's multiplier, revoked or not, in one lookup", async () => {
        const userId = await newUser(0, "1.15");
        const key = await newKey(userId);
        expect(await store.findCaller(key.hash)).toEqual({ key, multiplier: "1.15" });
        expect(await store.setMultiplier(userId, "0.85")).toBe(true);
        await store.revokeApiKey(key.id);
        expect(await store.findCaller(key.hash)).toEqual({
          key: { ...key, revoked: true },
          multiplier: "0.85",
        });
        expect(await store.findCaller(hex(32))).toBeUndefined();
        expect(await store.findCaller("\u0000")).toBeUndefined();
      });

      it("S2: ownedAssets answers only the caller's assets, in one lookup; a taken asset id is refused", async () => {
        const alice = await newUser(0);
        const bob = await newUser(0);
        const mine = `ast_${hex(8)}`;
        const theirs = `ast_${hex(8)}`;
        expect(await store.putAsset(mine, alice)).toBe(true);
        expect(await store.putAsset(theirs, bob)).toBe(true);
        expect(await store.putAsset(mine, bob)).toBe(false);
        expect(await store.ownedAssets(alice, [mine, theirs, `ast_${hex(8)}`])).toEqual(
          new Set([mine]),
        );
        expect(await store.ownedAssets(bob, [mine, theirs])).toEqual(new Set([theirs]));
        expect(await store.ownedAssets(alice, [])).toEqual(new Set());
      });
    });

    describe("accepting tasks", () => {
      it("S4: commitTask debits the total, stores the task with every job queued and writes one debit entry", async () => {
        const { userId, apiKeyId } = await account(100);
        const draft = sampleDraft(userId, [12, 12, 13]);
        const result = await commit(draft, apiKeyId, claimOf(draft), T0 + 42);
        expect(result).toEqual({ ok: true, task: accepted(draft, 63) });
        expect(await store.getTask(draft.id)).toEqual(accepted(draft, 63));
        expect(await balance(userId)).toBe(63);
        expect((await store.ledger(userId))?.at(-1)).toEqual({
          kind: "debit",
          credits: 37,
          at: T0 + 42,
          taskId: draft.id,
        });
      });

      it("S8: the stored task gives back exactly what was committed, odd characters included", async () => {
        const { userId, apiKeyId } = await account(1000, "1.15");
        const prompt =
          'quotes " \\ back\\slash, tab\t, NUL \u0000, é, 🎨, lone \ud800 surrogate, </script>';
        const request = sampleRequest({
          prompt,
          imageCount: 1,
          inputAssetIds: ["ast_1", "ast_2"],
          idempotencyKey: "k ✓",
        });
        const draft = sampleDraft(userId, [7], {
          request,
          referenceCount: 2,
          multiplier: "1.15",
          catalogVersion: "2026-03-01",
          createdAt: T0 - 1,
        });
        await commit(draft, apiKeyId, { key: "k ✓" });
        const stored = await store.getTask(draft.id);
        expect(stored).toEqual(accepted(draft, 993));
        expect(JSON.stringify(stored?.request)).toBe(JSON.stringify(request));
        expect(await store.findClaimedTask(userId, "k ✓", T0)).toEqual(accepted(draft, 993));
      });

      it("S8, S13: what a caller changes in its draft or in a record it read changes nothing stored", async () => {
        const { userId, apiKeyId, key } = await account(100);
        const asset = `ast_${hex(8)}`;
        await store.putAsset(asset, userId);
        const request = sampleRequest({ imageCount: 2, inputAssetIds: [asset] });
        const draft = sampleDraft(userId, [12, 13], { request, referenceCount: 1 });
        const claim = claimOf(draft);
        const committed = structuredClone(accepted(draft, 75));
        const result = await store.commitTask(
          { task: draft, apiKeyId, claim, assetIds: [asset] },
          T0,
        );
        const tasks = [
          result.ok ? result.task : undefined,
          await store.getTask(draft.id),
          await store.findClaimedTask(userId, claim.key, T0),
        ];
        const ledger = (await store.ledger(userId)) as LedgerRecord[];
        const keyRecord = (await store.findCaller(key.hash))?.key;
        const user = (await store.getUser(userId)) as { balance: number };
        // A record read back may be one that cannot be changed (the change throws) or a copy of the store's.
        const change = (edit: () => void) => {
          try {
            edit();
          } catch (error) {
            expect(error).toBeInstanceOf(TypeError);
          }
        };
        type Writable = {
          prompt: string;
          inputAssetIds: string[];
          jobCredits: number[];
          jobStatus: string[];
          totalCredits: number;
        };
        // The draft stays the caller's to change: a store keeps a copy, and leaves the draft as it was.
        request.prompt = "changed";
        request.inputAssetIds.push("ast_2");
        (draft.jobCredits as number[])[0] = 1;
        for (const task of tasks) {
          const record = task as unknown as Writable & { request: Writable };
          change(() => {
            record.totalCredits = 1;
          });
          change(() => {
            record.request.prompt = "changed";
          });
          change(() => record.request.inputAssetIds.push("ast_2"));
          change(() => {
            record.jobCredits[0] = 1;
          });
          change(() => {
            record.jobStatus[0] = "failed";
          });
        }
        change(() => ledger.push({ kind: "grant", credits: 5, at: T0 }));
        change(() => {
          (ledger[1] as { credits: number }).credits = 1;
        });
        change(() => {
          (keyRecord as { revoked: boolean }).revoked = true;
        });
        change(() => {
          user.balance = 1;
        });
        expect(await store.getTask(committed.id)).toEqual(committed);
        expect(await store.findClaimedTask(userId, claim.key, T0)).toEqual(committed);
        expect(await store.ledger(userId)).toEqual([
          { kind: "grant", credits: 100, at: T0 },
          { kind: "debit", credits: 25, at: T0, taskId: committed.id },
        ]);
        expect(await store.findCaller(key.hash)).toEqual({ key, multiplier: "1" });
        expect(await balance(userId)).toBe(75);
        expect(await store.failJob(committed.id, 0, T0)).toBe(12);
      });

      it("S4: too few credits: insufficient_credits with the balance, and nothing changes; the key stays free", async () => {
        const { userId, apiKeyId } = await account(20);
        const draft = sampleDraft(userId, [11, 11]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toEqual({
          ok: false,
          reason: "insufficient_credits",
          balance: 20,
        });
        expect(await balance(userId)).toBe(20);
        expect(await store.getTask(draft.id)).toBeUndefined();
        expect(await store.findClaimedTask(userId, claimOf(draft).key, T0)).toBeUndefined();
        expect(await store.ledger(userId)).toEqual([{ kind: "grant", credits: 20, at: T0 }]);
        // S5: a rejected request does not use up its key.
        await store.grant(userId, 2, T0);
        expect((await commit(draft, apiKeyId, claimOf(draft))).ok).toBe(true);
        expect(await balance(userId)).toBe(0);
      });

      it("S15: a key revoked before the commit charges nothing and does not use up the idempotency key", async () => {
        const { userId, apiKeyId } = await account(50);
        await store.revokeApiKey(apiKeyId);
        const draft = sampleDraft(userId, [5]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toEqual({
          ok: false,
          reason: "api_key_revoked",
        });
        expect(await balance(userId)).toBe(50);
        expect(await store.getTask(draft.id)).toBeUndefined();
        expect(await store.findClaimedTask(userId, claimOf(draft).key, T0)).toBeUndefined();
        const other = await newKey(userId);
        expect((await commit(draft, other.id, claimOf(draft))).ok).toBe(true);
      });

      it("S2: commitTask refuses a reference that is unknown or another user's with its index; nothing changes and the key stays free", async () => {
        const { userId, apiKeyId } = await account(100);
        const other = await newUser(0);
        const mine = `ast_${hex(8)}`;
        const theirs = `ast_${hex(8)}`;
        expect(await store.putAsset(mine, userId)).toBe(true);
        expect(await store.putAsset(theirs, other)).toBe(true);
        const ledger = await store.ledger(userId);
        for (const [assetIds, index] of [
          [[mine, theirs], 1],
          [[`ast_${hex(8)}`, mine], 0],
          [[mine, "ast_\u0000"], 1],
        ] as const) {
          const draft = sampleDraft(userId, [5], {
            request: sampleRequest({ inputAssetIds: [...assetIds] }),
            referenceCount: 2,
          });
          expect(
            await store.commitTask({ task: draft, apiKeyId, claim: claimOf(draft), assetIds }, T0),
          ).toEqual({
            ok: false,
            reason: "asset_not_found",
            index,
          });
          expect(await store.getTask(draft.id)).toBeUndefined();
          expect(await store.findClaimedTask(userId, claimOf(draft).key, T0)).toBeUndefined();
        }
        expect(await balance(userId)).toBe(100);
        expect(await store.ledger(userId)).toEqual(ledger);
        const draft = sampleDraft(userId, [5], {
          request: sampleRequest({ inputAssetIds: [mine] }),
          referenceCount: 1,
        });
        expect(
          await store.commitTask(
            { task: draft, apiKeyId, claim: claimOf(draft), assetIds: [mine] },
            T0,
          ),
        ).toEqual({
          ok: true,
          task: accepted(draft, 95),
        });
      });

      it("S7: commitTask refuses a task priced with a multiplier that is no longer the user's, naming the current one; nothing changes", async () => {
        const { userId, apiKeyId } = await account(100, "1.15");
        const draft = sampleDraft(userId, [5], { multiplier: "1" });
        expect(await commit(draft, apiKeyId, claimOf(draft))).toEqual({
          ok: false,
          reason: "multiplier_changed",
          multiplier: "1.15",
        });
        expect(await balance(userId)).toBe(100);
        expect(await store.getTask(draft.id)).toBeUndefined();
        expect(await store.findClaimedTask(userId, claimOf(draft).key, T0)).toBeUndefined();
        const repriced = { ...draft, multiplier: "1.15", jobCredits: [6], totalCredits: 6 };
        expect(await commit(repriced, apiKeyId, claimOf(draft))).toEqual({
          ok: true,
          task: accepted(repriced, 94),
        });
      });

      it("S12: a live claim wins over a foreign reference, a changed multiplier and a short balance; a revoked key over the last three", async () => {
        const { userId, apiKeyId } = await account(10);
        const first = sampleDraft(userId, [4]);
        expect((await commit(first, apiKeyId, claimOf(first))).ok).toBe(true);
        const foreign = `ast_${hex(8)}`;
        const retry = sampleDraft(userId, [400], { request: first.request, multiplier: "2" });
        expect(
          await store.commitTask(
            { task: retry, apiKeyId, claim: claimOf(first), assetIds: [foreign] },
            T0,
          ),
        ).toEqual({
          ok: false,
          reason: "idempotency_key_taken",
          task: accepted(first, 6),
        });
        // Nothing the first commit left is shared with the calls below: a fresh request key each.
        const foreignFirst = sampleDraft(userId, [400], { multiplier: "2" });
        expect(
          await store.commitTask(
            { task: foreignFirst, apiKeyId, claim: claimOf(foreignFirst), assetIds: [foreign] },
            T0,
          ),
        ).toEqual({ ok: false, reason: "asset_not_found", index: 0 });
        const multiplierFirst = sampleDraft(userId, [400], { multiplier: "2" });
        expect(await commit(multiplierFirst, apiKeyId, claimOf(multiplierFirst))).toEqual({
          ok: false,
          reason: "multiplier_changed",
          multiplier: "1",
        });
        await store.revokeApiKey(apiKeyId);
        for (const [draft, assetIds] of [
          [sampleDraft(userId, [400], { multiplier: "2" }), [foreign]],
          [sampleDraft(userId, [400], { multiplier: "2" }), []],
          [sampleDraft(userId, [400]), []],
        ] as const) {
          expect(
            await store.commitTask({ task: draft, apiKeyId, claim: claimOf(draft), assetIds }, T0),
          ).toEqual({
            ok: false,
            reason: "api_key_revoked",
          });
        }
        expect(await balance(userId)).toBe(6);
      });

      it("S4: a commit for an unknown user is refused", async () => {
        const { apiKeyId } = await account(50);
        const draft = sampleDraft(`usr_${hex(8)}`, [5]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toEqual({
          ok: false,
          reason: "unknown_user",
        });
        expect(await store.getTask(draft.id)).toBeUndefined();
      });

      it("S13: a free task (total 0) is stored with no debit entry", async () => {
        const { userId, apiKeyId } = await account(5);
        const draft = sampleDraft(userId, [0, 0]);
        expect(await commit(draft, apiKeyId, claimOf(draft))).toEqual({
          ok: true,
          task: accepted(draft, 5),
        });
        expect(await store.ledger(userId)).toEqual([{ kind: "grant", credits: 5, at: T0 }]);
      });
    });

    describe("idempotency claims", () => {
      it("S5: a claimed key answers idempotency_key_taken with the first task and charges nothing more", async () => {
        const { userId, apiKeyId } = await account(100);
        const first = sampleDraft(userId, [10]);
        const claim = claimOf(first);
        await commit(first, apiKeyId, claim);
        await store.grant(userId, 1000, T0); // a later balance or price does not matter
        const retry = sampleDraft(userId, [99], { request: first.request });
        expect(await commit(retry, apiKeyId, claim)).toEqual({
          ok: false,
          reason: "idempotency_key_taken",
          task: accepted(first, 90),
        });
        expect(await balance(userId)).toBe(1090);
        expect(await store.getTask(retry.id)).toBeUndefined();
        expect(await store.findClaimedTask(userId, claim.key, T0 + 10 ** 12)).toEqual(
          accepted(first, 90),
        );
      });

      it("S5: keys are per user: another user's claim on the same key is its own", async () => {
        const a = await account(100);
        const b = await account(100);
        const key = { key: `shared-${hex(4)}` };
        const da = sampleDraft(a.userId, [10]);
        const db = sampleDraft(b.userId, [20]);
        expect((await commit(da, a.apiKeyId, key)).ok).toBe(true);
        expect((await commit(db, b.apiKeyId, key)).ok).toBe(true);
        expect((await store.findClaimedTask(a.userId, key.key, T0))?.id).toBe(da.id);
        expect((await store.findClaimedTask(b.userId, key.key, T0))?.id).toBe(db.id);
      });

      it("S5: a claim with expiresAt is dead from that instant and a new commit replaces it; one without never expires", async () => {
        const { userId, apiKeyId } = await account(100);
        const first = sampleDraft(userId, [10]);
        const key = first.request.idempotencyKey ?? "";
        await commit(first, apiKeyId, { key, expiresAt: T0 + 1000 });
        expect((await store.findClaimedTask(userId, key, T0 + 999))?.id).toBe(first.id);
        expect(await store.findClaimedTask(userId, key, T0 + 1000)).toBeUndefined();
        const early = sampleDraft(userId, [10]);
        expect(
          await commit(early, apiKeyId, { key, expiresAt: T0 + 2000 }, T0 + 999),
        ).toMatchObject({
          ok: false,
          reason: "idempotency_key_taken",
        });
        const second = sampleDraft(userId, [10]);
        expect(await commit(second, apiKeyId, { key }, T0 + 1000)).toEqual({
          ok: true,
          task: accepted(second, 80),
        });
        expect((await store.findClaimedTask(userId, key, Number.MAX_SAFE_INTEGER))?.id).toBe(
          second.id,
        );
        expect((await store.getTask(first.id))?.id).toBe(first.id); // the old task stays
      });

      it("S5: a commit without a claim claims nothing, even with the same request key", async () => {
        const { userId, apiKeyId } = await account(100);
        const a = sampleDraft(userId, [10], { clientKey: false });
        const b = sampleDraft(userId, [10], { clientKey: false, request: a.request });
        expect((await commit(a, apiKeyId, undefined)).ok).toBe(true);
        expect((await commit(b, apiKeyId, undefined)).ok).toBe(true);
        expect(
          await store.findClaimedTask(userId, a.request.idempotencyKey ?? "", T0),
        ).toBeUndefined();
        expect(await balance(userId)).toBe(80);
      });

      it("S5: keys that differ only in a NUL, a lone surrogate, U+FFFD, a quote or a backslash are distinct claims", async () => {
        const { userId, apiKeyId } = await account(1000);
        const keys = [
          "k",
          "k\u0000",
          "k\ud800",
          "k\ud801",
          "k\ufffd",
          'k"',
          "k\\",
          "k\\u0000",
          "\u0000",
        ];
        const drafts = keys.map(() => sampleDraft(userId, [3]));
        for (const [i, key] of keys.entries()) {
          expect(await commit(drafts[i] as TaskDraft, apiKeyId, { key })).toMatchObject({
            ok: true,
          });
        }
        for (const [i, key] of keys.entries()) {
          expect((await store.findClaimedTask(userId, key, T0))?.id).toBe(drafts[i]?.id);
        }
        expect(await balance(userId)).toBe(1000 - 3 * keys.length);
        expect(await store.findClaimedTask(userId, "k\udfff", T0)).toBeUndefined();
      });

      it("S12: ids with a NUL or a lone surrogate name nothing: every lookup answers not found, nothing is charged", async () => {
        const { userId, apiKeyId, key } = await account(100);
        const asset = `ast_${hex(8)}`;
        await store.putAsset(asset, userId);
        for (const odd of [`${userId}\u0000`, "\u0000", `usr_\ud800`]) {
          expect(await store.getUser(odd)).toBeUndefined();
          expect(await store.ledger(odd)).toBeUndefined();
          expect(await store.grant(odd, 5, T0)).toEqual({ ok: false, reason: "unknown_user" });
          expect(await store.setMultiplier(odd, "2")).toBe(false);
          expect(await store.revokeApiKey(odd)).toBe(false);
          expect(await store.findCaller(odd)).toBeUndefined();
          expect(await store.getTask(odd)).toBeUndefined();
          expect(await store.failJob(odd, 0, T0)).toBeUndefined();
          expect(await store.findClaimedTask(odd, "k", T0)).toBeUndefined();
          expect(await store.ownedAssets(userId, [odd, asset])).toEqual(new Set([asset]));
          expect(await store.ownedAssets(odd, [asset])).toEqual(new Set());
          expect(await commit(sampleDraft(odd, [5]), apiKeyId, { key: "k" })).toEqual({
            ok: false,
            reason: "unknown_user",
          });
        }
        expect(await balance(userId)).toBe(100);
        expect((await store.findCaller(key.hash))?.key).toMatchObject({
          id: apiKeyId,
          revoked: false,
        });
      });

      it("S5: 50 concurrent commits with one key: one accepted, every other answered with its task", async () => {
        const { userId, apiKeyId } = await account(1000);
        const request = sampleRequest({ imageCount: 1 });
        const claim = { key: request.idempotencyKey ?? "" };
        const drafts = Array.from({ length: 50 }, () => sampleDraft(userId, [7], { request }));
        const results = await Promise.all(drafts.map((d) => commit(d, apiKeyId, claim)));
        const winners = results.filter((r): r is Extract<CommitResult, { ok: true }> => r.ok);
        expect(winners.length).toBe(1);
        const winner = winners[0]?.task;
        for (const r of results) {
          if (!r.ok) {
            expect(r).toEqual({ ok: false, reason: "idempotency_key_taken", task: winner });
          }
        }
        expect(await balance(userId)).toBe(993);
        expect((await store.ledger(userId))?.filter((e) => e.kind === "debit").length).toBe(1);
      });
    });

    describe("balances under load", () => {
      it("S4: 60 concurrent distinct commits over a balance for 20 accept exactly 20, never below zero", async () => {
        const { userId, apiKeyId } = await account(20 * 9);
        const drafts = Array.from({ length: 60 }, () => sampleDraft(userId, [4, 5]));
        const results = await Promise.all(drafts.map((d) => commit(d, apiKeyId, claimOf(d))));
        expect(results.filter((r) => r.ok).length).toBe(20);
        for (const r of results) {
          if (!r.ok) {
            expect(r).toMatchObject({ reason: "insufficient_credits" });
          }
        }
        expect(await balance(userId)).toBe(0);
      });
    });

    describe("refunds", () => {
      it("S6: failJob refunds the job's stored charge once; again it refunds 0; unknown jobs are reported", async () => {
        const { userId, apiKeyId } = await account(100);
        const draft = sampleDraft(userId, [11, 13]);
        await commit(draft, apiKeyId, claimOf(draft));
        await store.setMultiplier(userId, "3"); // S7: the stored charge is refunded, not a new price
        expect(await store.failJob(draft.id, 1, T0 + 9)).toBe(13);
        expect(await store.failJob(draft.id, 1, T0 + 10)).toBe(0);
        expect(await store.failJob(draft.id, 2, T0)).toBeUndefined();
        expect(await store.failJob(`task_${hex(8)}`, 0, T0)).toBeUndefined();
        expect(await balance(userId)).toBe(89);
        expect((await store.getTask(draft.id))?.jobStatus).toEqual(["queued", "failed"]);
        expect((await store.ledger(userId))?.at(-1)).toEqual({
          kind: "refund",
          credits: 13,
          at: T0 + 9,
          taskId: draft.id,
          jobIndex: 1,
        });
      });

      it("S6: 20 concurrent failJob calls on one job refund it once", async () => {
        const { userId, apiKeyId } = await account(100);
        const draft = sampleDraft(userId, [30]);
        await commit(draft, apiKeyId, claimOf(draft));
        const refunds = await Promise.all(
          Array.from({ length: 20 }, () => store.failJob(draft.id, 0, T0)),
        );
        expect(refunds.filter((r) => r === 30).length).toBe(1);
        expect(refunds.filter((r) => r === 0).length).toBe(19);
        expect(await balance(userId)).toBe(100);
      });
    });

    describe("the ledger", () => {
      it("S13: entries come oldest first and balance = grants - debits + refunds after a mixed sequence", async () => {
        const { userId, apiKeyId } = await account(40);
        const expected: { kind: string; credits: number }[] = [{ kind: "grant", credits: 40 }];
        for (let i = 0; i < 12; i++) {
          const draft = sampleDraft(userId, [3 + (i % 4), 2]);
          const result = await commit(draft, apiKeyId, claimOf(draft), T0 + i);
          if (result.ok) {
            expected.push({ kind: "debit", credits: draft.totalCredits });
            if (i % 3 === 0) {
              await store.failJob(draft.id, 0, T0 + i);
              expected.push({ kind: "refund", credits: draft.jobCredits[0] ?? 0 });
            }
          } else if (i % 2 === 0) {
            await store.grant(userId, 9, T0 + i);
            expected.push({ kind: "grant", credits: 9 });
          }
        }
        const ledger = (await store.ledger(userId)) ?? [];
        expect(ledger.map(({ kind, credits }) => ({ kind, credits }))).toEqual(expected);
        const sum = (kind: string) =>
          ledger.filter((e) => e.kind === kind).reduce((s, e) => s + e.credits, 0);
        expect(await balance(userId)).toBe(sum("grant") - sum("debit") + sum("refund"));
        expect(ledger.filter((e) => e.kind === "debit").length).toBeGreaterThan(3);
      });
    });
  });
}
