/**
 * Answers on one connection when Node's HTTP parser refuses a request pipelined behind others
 * (S12, S5): every answer already begun or queued goes out whole and in order first, so a charged
 * 202 always reaches the connection that asked for it, and the refusal comes after it (or, after an
 * answer that closes the connection, not at all). Raw sockets, the balance and the journal checked.
 */
import { describe, expect, it } from "vitest";
import { createReferenceServer } from "../../src/server/index.js";
import { expectJsonError, rawClient, readAnswers, start, until } from "./helpers.js";

const TOKEN = "admin-token-for-pipelining";

async function world() {
  const server = createReferenceServer({ adminToken: TOKEN });
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  return { server, key, userId };
}

/** A keyed generation as raw bytes, with extra header lines if asked. */
function generation(key: string, idempotencyKey: string, extra = ""): string {
  const body = JSON.stringify({ prompt: "a fox", modelId: "beta2", imageCount: 1, idempotencyKey });
  return (
    `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n${extra}` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** What follows the generation on the connection, and what the connection gets for it. */
const CASES = [
  {
    name: "headers over 16 KiB (431)",
    extra: "",
    after: `GET /api/ping HTTP/1.1\r\nHost: t\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    refusal: { status: 431, code: "header_fields_too_large" },
  },
  {
    name: "a garbage request line (400)",
    extra: "",
    after: "THIS IS NOT HTTP\r\n\r\n",
    refusal: { status: 400, code: "bad_request" },
  },
  {
    name: "CONNECT (405)",
    extra: "",
    after: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
    refusal: { status: 405, code: "method_not_allowed" },
  },
  {
    name: "bytes after Connection: close (dropped)",
    extra: "Connection: close\r\n",
    after: "GET /api/ping HTTP/1.1\r\nHost: t\r\n\r\n",
    refusal: undefined,
  },
] as const;

describe("serve(): a request Node's parser refuses behind others on one connection (S12, S5)", () => {
  for (const { name, extra, after, refusal } of CASES) {
    it(`S12, S5: a generation pipelined before ${name} gets its charged 202 first`, async () => {
      const { server, key, userId } = await world();
      const r = await start({ server });
      const client = rawClient(r.port);
      await client.write(generation(key, `pipe-${refusal?.status ?? "close"}`, extra) + after);
      await client.closed;

      const { answers, unread } = readAnswers(client.received());
      expect(unread, "nothing but whole answers on the connection").toBe(0);
      expect(answers.map((a) => a.status)).toEqual(
        refusal === undefined ? [202] : [202, refusal.status],
      );
      const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
        billing: { totalCreditCost: number; balanceAfterCredits: number };
      };
      expect(accepted.billing.totalCreditCost).toBeGreaterThan(0);
      if (refusal !== undefined) {
        expectJsonError(answers[1], refusal.status, refusal.code);
      }
      // The charge the connection was told of is the one made, and the journal shows its 202.
      expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
      expect(accepted.billing.balanceAfterCredits).toBe(1000 - accepted.billing.totalCreditCost);
      const journal = await server.admin.requests();
      expect(journal.map((entry) => [entry.path, entry.status])).toEqual([
        ["/api/generations", 202],
      ]);
      expect(journal[0]?.requestId).toBe(answers[0]?.headers["request-id"]);
    });
  }

  it("S12, S5: several generations and a ping pipelined before a garbage line get every answer, in order", async () => {
    const { server, key, userId } = await world();
    const r = await start({ server });
    const client = rawClient(r.port);
    const ping = `GET /api/ping HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    await client.write(
      `${generation(key, "many-1")}${ping}${generation(key, "many-2")}NOT HTTP AT ALL\r\n\r\n`,
    );
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202, 200, 202, 400]);
    const last = JSON.parse(answers[2]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    expect(await server.admin.balance(userId)).toBe(last.billing.balanceAfterCredits);
    const journal = await server.admin.requests();
    expect(journal.map((entry) => entry.status).sort()).toEqual([200, 202, 202]);
  });

  it("S12, S5: a garbage line that arrives while a generation is being handled waits for its 202", async () => {
    const { server, key, userId } = await world();
    let entered: () => void = () => {};
    const handling = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The generation is held until the refusal has been seen, as a slow store would hold it.
    const held = {
      fetch: async (request: Request, info?: { clientAddress?: string }) => {
        entered();
        await gate;
        return server.fetch(request, info);
      },
    };
    const r = await start({ server: held });
    const refused = new Promise<void>((resolve) =>
      r.httpServer.once("clientError", () => resolve()),
    );
    const client = rawClient(r.port);
    await client.write(generation(key, "held-1"));
    await handling;
    await client.write("NOT HTTP\r\n\r\n");
    await refused;
    release();
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202, 400]);
    const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
    expect((await server.admin.requests()).map((entry) => entry.status)).toEqual([202]);
  });

  it("S12, S5: a fetch that rejects behind a generation closes the connection after the 202", async () => {
    const { server, key, userId } = await world();
    let lost: () => void = () => {};
    const rejected = new Promise<void>((resolve) => {
      lost = resolve;
    });
    // The generation is answered only after the request behind it has rejected.
    const losing = {
      fetch: async (request: Request, info?: { clientAddress?: string }) => {
        if (new URL(request.url).pathname === "/lost") {
          setImmediate(lost);
          throw new Error("the answer is lost");
        }
        await rejected;
        return server.fetch(request, info);
      },
    };
    const r = await start({ server: losing });
    const client = rawClient(r.port);
    await client.write(`${generation(key, "before-lost")}GET /lost HTTP/1.1\r\nHost: t\r\n\r\n`);
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202]);
    const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
  });

  it("S12, S5: a client that half-closes while its generation is being handled still gets its 202", async () => {
    const { server, key, userId } = await world();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = {
      fetch: async (request: Request, info?: { clientAddress?: string }) => {
        await gate;
        return server.fetch(request, info);
      },
    };
    const r = await start({ server: held });
    // The server's side of the connection, to know when the client's half-close has reached it.
    const halfClosed = new Promise<void>((resolve) =>
      r.httpServer.once("connection", (socket) => socket.once("end", () => resolve())),
    );
    const client = rawClient(r.port);
    await client.connected;
    client.socket.end(generation(key, "half-held"));
    await halfClosed;
    release();
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202]);
    const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
  });

  it("S12, S15, S5: a request timed out behind a generation being handled gets its 408 after the 202", async () => {
    const { server, key, userId } = await world();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held = {
      fetch: async (request: Request, info?: { clientAddress?: string }) => {
        await gate;
        return server.fetch(request, info);
      },
    };
    const r = await start({ server: held, headersTimeoutMs: 200, requestTimeoutMs: 400 });
    const timedOut = new Promise<void>((resolve) =>
      r.httpServer.once("clientError", () => resolve()),
    );
    const client = rawClient(r.port);
    // The generation whole, then the start of a request whose headers never end.
    await client.write(`${generation(key, "timed-1")}GET /api/ping HTTP/1.1\r\nHost: t\r\n`);
    await timedOut;
    release();
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202, 408]);
    expectJsonError(answers[1], 408, "request_timeout");
    const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
  });

  it("S12, S5: a chunked body that breaks behind a generation gets its 400 after the 202, and is not charged", async () => {
    const { server, key, userId } = await world();
    const r = await start({ server });
    const client = rawClient(r.port);
    const broken =
      `POST /api/generations HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"pro\r\nZZ\r\n';
    await client.write(`${generation(key, "before-broken")}${broken}`);
    await client.closed;
    const { answers, unread } = readAnswers(client.received());
    expect(unread).toBe(0);
    expect(answers.map((a) => a.status)).toEqual([202, 400]);
    expectJsonError(answers[1], 400, "bad_request");
    const accepted = JSON.parse(answers[0]?.body ?? "{}") as {
      billing: { balanceAfterCredits: number };
    };
    // Once the handler of the broken request has settled, still one charge.
    expect(await until(() => r.stats().activeRequests === 0)).toBe(true);
    expect(await server.admin.balance(userId)).toBe(accepted.billing.balanceAfterCredits);
    // The journal has the 202 as sent, and the broken request refused by its handler, uncharged.
    const journal = await server.admin.requests();
    expect(journal.map((entry) => entry.status).sort()).toEqual([202, 400]);
    expect(journal.find((entry) => entry.status === 202)?.requestId).toBe(
      answers[0]?.headers["request-id"],
    );
  });
});
