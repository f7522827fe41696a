/** The in-memory store gives back every task exactly as it was committed, however it keeps it. */
import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/store/memory.js";
import type { TaskDraft } from "../../src/store/store.js";

function draft(
  id: string,
  withKey: boolean,
  prompt: string,
  jobCredits: number[],
  assets: string[],
): TaskDraft {
  return {
    id,
    userId: "usr_é",
    createdAt: 1_763_877_000_123,
    request: {
      prompt,
      modelId: "beta2",
      generationType: assets.length > 0 ? "image-to-image" : "text-to-image",
      aspectRatio: "16:9",
      resolution: "2K",
      quality: "high",
      background: "transparent",
      imageCount: jobCredits.length,
      inputAssetIds: assets,
      ...(withKey ? { idempotencyKey: `key "${id}" \u2028` } : {}),
    },
    clientKey: withKey,
    referenceCount: assets.length,
    multiplier: "1.15",
    catalogVersion: "2026-01-01",
    jobCredits,
    totalCredits: jobCredits.reduce((a, b) => a + b, 0),
  };
}

describe("in-memory store: a task read back", () => {
  it("S3: getTask, a claim's replay and the commit's own record are the committed task, field for field; a failed job shows only in later reads", async () => {
    const store = createMemoryStore();
    await store.createUser({ id: "usr_é", credits: 1_000_000, multiplier: "1.15" }, 0);
    await store.putApiKey({
      id: "apk_1",
      userId: "usr_é",
      mode: "test",
      hash: "h",
      revoked: false,
    });
    await store.putAsset("ast_1", "usr_é");
    await store.putAsset("ast_2", "usr_é");
    const drafts = [
      draft("task_a", true, 'a fox\n"quoted" \\ 😀 \ud800', [7, 7, 7], ["ast_1", "ast_2"]),
      draft("task_b", false, "", [0], []),
    ];
    let balance = 1_000_000;
    for (const task of drafts) {
      const claim = task.clientKey ? { key: task.request.idempotencyKey as string } : undefined;
      const result = await store.commitTask(
        {
          task,
          apiKeyId: "apk_1",
          assetIds: task.request.inputAssetIds,
          ...(claim ? { claim } : {}),
        },
        5,
      );
      balance -= task.totalCredits;
      const expected = {
        ...task,
        balanceAfter: balance,
        jobStatus: task.jobCredits.map(() => "queued"),
      };
      expect(result).toStrictEqual({ ok: true, task: expected });
      expect(await store.getTask(task.id)).toStrictEqual(expected);
      if (claim) {
        expect(await store.findClaimedTask("usr_é", claim.key, 6)).toStrictEqual(expected);
        const again = await store.commitTask({ task, apiKeyId: "apk_1", claim }, 6);
        expect(again).toStrictEqual({ ok: false, reason: "idempotency_key_taken", task: expected });
      }
    }
    const before = await store.getTask("task_a");
    expect(await store.failJob("task_a", 1, 9)).toBe(7);
    expect(before?.jobStatus).toStrictEqual(["queued", "queued", "queued"]);
    expect((await store.getTask("task_a"))?.jobStatus).toStrictEqual([
      "queued",
      "failed",
      "queued",
    ]);
    expect(await store.failJob("task_a", 1, 9)).toBe(0);
    expect(await store.failJob("task_a", 3, 9)).toBeUndefined();
    expect(await store.getTask("task_c")).toBeUndefined();
  });
});

describe("in-memory store: ids kept exactly", () => {
  it("S8: a task id with a lone surrogate, U+0000 or an emoji is found by that id and no other, in getTask, failJob and the ledger", async () => {
    const store = createMemoryStore();
    await store.createUser({ id: "usr_é", credits: 1_000, multiplier: "1.15" }, 0);
    await store.putApiKey({
      id: "apk_1",
      userId: "usr_é",
      mode: "test",
      hash: "h",
      revoked: false,
    });
    const ids = ["task_\ud800", "task_\udc00", "task_\u0000😀"];
    for (const id of ids) {
      const result = await store.commitTask(
        { task: draft(id, false, "p", [5], []), apiKeyId: "apk_1" },
        1,
      );
      expect(result.ok).toBe(true);
    }
    for (const id of ids) {
      expect((await store.getTask(id))?.id).toBe(id);
    }
    expect(await store.getTask("task_\ufffd")).toBeUndefined();
    expect(await store.failJob("task_\udc00", 0, 2)).toBe(5);
    expect((await store.ledger("usr_é"))?.map((e) => e.taskId)).toStrictEqual([
      undefined,
      ...ids,
      "task_\udc00",
    ]);
  });
});
