/**
 * How serve() writes its answers (S12): each connection gets its answers whole and in the order of
 * its requests, also when many connections are answered at once, and also to a client that
 * half-closes its side of the connection as soon as its requests are sent.
 */
import { describe, expect, it } from "vitest";
import { createReferenceServer } from "../../src/server/index.js";
import { rawClient, readAnswers, start } from "./helpers.js";

async function world() {
  const server = createReferenceServer();
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  return { server, key, userId };
}

const ping = (key: string) =>
  `GET /api/ping HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n\r\n`;
const post = (key: string, path: string, body: object) => {
  const text = JSON.stringify(body);
  return (
    `POST ${path} HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
  );
};
const generation = (idempotencyKey: string) => ({
  prompt: "a fox",
  modelId: "beta2",
  imageCount: 1,
  idempotencyKey,
});

describe("serve(): writing answers (S12)", () => {
  it("S12, S5: a client that half-closes after its requests reads every answer, each charged once", async () => {
    const { server, key, userId } = await world();
    const r = await start({ server });
    const client = rawClient(r.port);
    await client.connected;
    client.socket.end(
      post(key, "/api/generations", generation("half-1")) +
        ping(key) +
        post(key, "/api/generations", generation("half-2")),
    );
    await client.closed;
    const answers = client.answers();
    expect(answers.map((a) => a.status)).toEqual([202, 200, 202]);
    const [first, , third] = answers.map(
      (a) => JSON.parse(a.body) as { billing?: { balanceAfterCredits: number } },
    );
    const charged = 1000 - (first?.billing?.balanceAfterCredits ?? Number.NaN);
    expect(charged).toBeGreaterThan(0);
    expect(third?.billing?.balanceAfterCredits).toBe(1000 - 2 * charged);
    expect(await server.admin.balance(userId)).toBe(1000 - 2 * charged);
  });

  it("S12: answers ended in the same turn reach each connection whole and in its order", async () => {
    const { server, key } = await world();
    const r = await start({ server });
    const clients = Array.from({ length: 8 }, () => rawClient(r.port));
    await Promise.all(clients.map((c) => c.connected));
    const quote = {
      kind: "image",
      modelId: "alpha-img2-official",
      resolution: "2K",
      quality: "medium",
      referenceImageCount: 1,
    };
    // Every connection sends its three requests at once: their answers are ended in the same turns.
    await Promise.all(
      clients.map((c, i) =>
        c.write(
          ping(key) +
            post(key, "/api/generations", generation(`turn-${i}`)) +
            post(key, "/api/pricing/quote", quote),
        ),
      ),
    );
    for (const [i, c] of clients.entries()) {
      const answers = await c.answered(3);
      expect(answers.map((a) => a.status)).toEqual([200, 202, 200]);
      expect(JSON.parse(answers[0]?.body ?? "{}")).toMatchObject({ ok: true });
      const accepted = JSON.parse(answers[1]?.body ?? "{}") as {
        batch: { request: { prompt: string } };
      };
      expect(accepted.batch.request.prompt).toBe("a fox");
      expect(JSON.parse(answers[2]?.body ?? "{}")).toHaveProperty("credits");
      expect(readAnswers(c.received()).unread, `connection ${i}: nothing after its answers`).toBe(
        0,
      );
    }
  });
});
