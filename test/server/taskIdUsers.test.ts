/** Task ids carry their user however many tasks and users the server has made ids for. */
import { describe, expect, it } from "vitest";
import { newId } from "../../src/server/ids.js";
import { taskUserId } from "../../src/store/store.js";

describe("task ids made in a row", () => {
  it("every id reads back its own user: the same user again, a user after thousands of others, ids never shared", () => {
    const seen = new Set<string>();
    const users = [
      "alice",
      "🦊",
      ...Array.from({ length: 3000 }, (_, i) => `usr_${i}_ü`),
      "alice",
      "🦊",
    ];
    for (const userId of users) {
      const taskId = newId.task(userId);
      expect(taskId).toMatch(/^task_[0-9a-f]{16}([0-9a-f]{2})+$/);
      expect(taskUserId(taskId)).toBe(userId);
      expect(seen.has(taskId)).toBe(false);
      seen.add(taskId);
    }
  });
});
