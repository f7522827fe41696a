/**
 * Task ids carry their user (so a store distributed by user id finds a task on one node): what the
 * server makes, the store reads back, and job ids keep their documented shape.
 */
import { describe, expect, it } from "vitest";
import { jobId, newId, parseJobId } from "../../src/server/ids.js";
import { taskUserId } from "../../src/store/store.js";

describe("task ids that carry their user", () => {
  it("the user id a task id was made for is read back from it, whatever its characters", () => {
    for (const userId of [
      "usr_0123456789abcdef",
      "alice",
      "ünïcødé ✓",
      "🦊",
      "\uFEFFbom",
      "a\u0000b",
    ]) {
      const taskId = newId.task(userId);
      expect(taskId).toMatch(/^task_[0-9a-f]{16}([0-9a-f]{2})+$/);
      expect(taskUserId(taskId)).toBe(userId);
    }
  });

  it("a job id of such a task keeps the shape job_<hex>_<index> and leads back to its task and user", () => {
    const taskId = newId.task("usr_0123456789abcdef");
    const id = jobId(taskId, 3);
    expect(id).toMatch(/^job_[0-9a-f]+_3$/);
    expect(parseJobId(id)).toEqual({ taskId, index: 3 });
    expect(taskUserId(taskId)).toBe("usr_0123456789abcdef");
  });

  it("an id without a user (an older task_<16 hex>), odd hex or hex that is not UTF-8 carries none", () => {
    expect(taskUserId("task_0123456789abcdef")).toBeUndefined();
    expect(taskUserId("task_0123456789abcdef616")).toBeUndefined();
    expect(taskUserId("task_0123456789abcdefff")).toBeUndefined();
    expect(taskUserId("task_0123456789ABCDEF61")).toBeUndefined();
    expect(taskUserId("job_0123456789abcdef61_0")).toBeUndefined();
  });
});
