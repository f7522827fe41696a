/**
 * The `Idempotency-Key` header (S5): the key of a body that has none, checked like the body field,
 * and refused when it disagrees with the body's own key, so a retry that uses it is never charged
 * twice.
 */
import { describe, expect, it } from "vitest";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { errorOf, setup } from "./helpers.js";

const debits = async (s: Awaited<ReturnType<typeof setup>>) =>
  (await s.admin.ledger(s.userId)).filter((e) => e.kind === "debit").length;

describe("the Idempotency-Key header (S5)", () => {
  it("S5: two POSTs with the same Idempotency-Key header and no body key: the second replays, charged once", async () => {
    const s = await setup();
    const body = { prompt: "a fox", modelId: "beta2", imageCount: 2 };
    const first = await s.generate(body, { "idempotency-key": "order-7" });
    expect(first.status).toBe(202);
    const firstText = await first.text();
    const second = await s.generate(body, { "idempotency-key": "order-7" });
    expect(second.status).toBe(202);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect(await second.text()).toBe(firstText);
    expect(await s.admin.balance(s.userId)).toBe(1000 - 160);
    expect(await debits(s)).toBe(1);
    // The task keeps the header's key as the client's own.
    const taskId = (JSON.parse(firstText) as { batch: { taskId: string } }).batch.taskId;
    const task = await s.admin.task(taskId);
    expect(task.request.idempotencyKey).toBe("order-7");
    expect(task.clientIdempotencyKey).toBe(true);
  });

  it("S5: the header and the body field name the same key: a retry by either replays", async () => {
    const s = await setup();
    const body = { prompt: "a fox", modelId: "beta2" };
    const first = await s.generate({ ...body, idempotencyKey: "k-1" });
    const firstText = await first.text();
    for (const [sent, headers] of [
      [body, { "idempotency-key": "k-1" }],
      [{ ...body, idempotencyKey: "k-1" }, { "idempotency-key": " k-1 " }],
      [{ ...body, idempotencyKey: " k-1" }, { "idempotency-key": "k-1" }],
    ] as const) {
      const res = await s.generate(sent, headers);
      expect(res.status).toBe(202);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(await res.text()).toBe(firstText);
    }
    expect(await debits(s)).toBe(1);
  });

  it("S5: a header and a body field that differ are 400 invalid_request naming both, and charge nothing", async () => {
    const s = await setup();
    const res = await s.generate(
      { prompt: "a fox", idempotencyKey: "body-key" },
      { "idempotency-key": "header-key" },
    );
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe("invalid_request");
    expect(error.param).toBe("idempotencyKey");
    expect(error.issues).toEqual([
      {
        path: "idempotencyKey",
        code: "idempotency_key_mismatch",
        message: expect.stringContaining('"body-key"'),
      },
    ]);
    expect(JSON.stringify(error.issues)).toContain(String.raw`\"header-key\"`);
    expect(await debits(s)).toBe(0);
    expect(await s.admin.balance(s.userId)).toBe(1000);
  });

  it("S5, N13: the header is checked like the body field: blank or over 128 characters is 400 at idempotencyKey", async () => {
    const s = await setup();
    for (const [value, code] of [
      ["   ", "too_short"],
      ["k".repeat(129), "too_long"],
    ] as const) {
      const res = await s.generate({ prompt: "a fox" }, { "idempotency-key": value });
      expect(res.status, code).toBe(400);
      const error = await errorOf(res);
      expect(error.issues).toEqual([
        {
          path: "idempotencyKey",
          code,
          message: expect.stringContaining("Idempotency-Key header"),
        },
      ]);
    }
    // 128 characters after trimming are accepted, as in the body.
    expect(
      (await s.generate({ prompt: "a fox" }, { "idempotency-key": ` ${"k".repeat(128)} ` })).status,
    ).toBe(202);
    expect(await debits(s)).toBe(1);
  });

  it("S5: a header problem is listed with the body's own problems, every one at once", async () => {
    const s = await setup();
    const res = await s.generate({ prompt: "", idempotencyKey: "a" }, { "idempotency-key": "b" });
    expect(res.status).toBe(400);
    const codes = ((await errorOf(res)).issues as { path: string; code: string }[]).map(
      (i) => `${i.path}:${i.code}`,
    );
    expect(codes).toEqual(["prompt:too_short", "idempotencyKey:idempotency_key_mismatch"]);
  });

  it("S5: a header key and a different request is 409 idempotency_key_reused, like the body field", async () => {
    const s = await setup();
    expect((await s.generate({ prompt: "p" }, { "idempotency-key": "k" })).status).toBe(202);
    const res = await s.generate({ prompt: "q" }, { "idempotency-key": "k" });
    expect(res.status).toBe(409);
    expect(await errorOf(res)).toMatchObject({
      code: "idempotency_key_reused",
      param: "idempotencyKey",
    });
    expect(await debits(s)).toBe(1);
  });

  it("S5: the OpenAPI document describes the header on POST /api/generations", () => {
    const post = (
      createOpenApiDocument().paths as Record<string, { post?: { parameters?: unknown[] } }>
    )["/api/generations"]?.post;
    expect(post?.parameters).toContainEqual(
      expect.objectContaining({
        name: "Idempotency-Key",
        in: "header",
        required: false,
        schema: expect.objectContaining({ maxLength: 128 }),
      }),
    );
  });
});
