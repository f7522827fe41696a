/**
 * The connection cap per client address (S15): one client that holds many connections cannot take
 * the slots of the others, and serve() gives the server each client's address (the admin API
 * throttles wrong tokens by it). 127.0.0.1 and 127.0.0.2 are two client addresses on one machine.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_BOUNDS } from "../../src/node/bounds.js";
import { createReferenceServer } from "../../src/server/index.js";
import { expectJsonError, rawClient, start, until } from "./helpers.js";

const TOKEN = "admin-token-for-tests";

async function world(options: Parameters<typeof createReferenceServer>[0] = {}) {
  const server = createReferenceServer(options);
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  return { server, key };
}

const ping = (key: string) =>
  `GET /api/ping HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${key}\r\n\r\n`;
const adminGet = (token: string) =>
  `GET /admin/openapi.json HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`;

describe("serve(): connections per client address (S15)", () => {
  it("S16: an address at maxConnectionsPerAddress gets a JSON 503 with Retry-After while another address is served", async () => {
    const { server, key } = await world();
    const r = await start({ server, maxConnections: 10, maxConnectionsPerAddress: 2 });
    const held = [rawClient(r.port, "127.0.0.1"), rawClient(r.port, "127.0.0.1")];
    await Promise.all(held.map((c) => c.connected));
    expect(await until(() => r.stats().openConnections === 2)).toBe(true);

    const refused = rawClient(r.port, "127.0.0.1");
    await refused.write(ping(key)).catch(() => {});
    await refused.closed;
    const body = expectJsonError(refused.answers()[0], 503, "service_unavailable");
    expect(body.error.message).toContain("2 connections");
    expect(refused.answers()[0]?.headers["retry-after"]).toBe("1");
    expect(refused.answers()).toHaveLength(1); // its request was not handled
    expect(r.stats()).toMatchObject({ openConnections: 2, refusedConnections: 1, requests: 0 });

    // Another address is served, on as many connections as it may have.
    const other = [rawClient(r.port, "127.0.0.2"), rawClient(r.port, "127.0.0.2")];
    for (const client of other) {
      await client.write(ping(key));
      const [answer] = await client.answered(1);
      expect(answer?.status).toBe(200);
    }

    // One connection of the first address closed is one more served for it.
    held[0]?.socket.destroy();
    expect(await until(() => r.stats().openConnections === 3)).toBe(true);
    const again = rawClient(r.port, "127.0.0.1");
    await again.write(ping(key));
    expect((await again.answered(1))[0]?.status).toBe(200);
  });

  it("S16: connections refused in a loop from one address are all refused, and another address is still served", async () => {
    const { server, key } = await world();
    const r = await start({ server, maxConnections: 50, maxConnectionsPerAddress: 1 });
    const held = rawClient(r.port, "127.0.0.1");
    await held.connected;
    expect(await until(() => r.stats().openConnections === 1)).toBe(true);
    const extra = Array.from({ length: 20 }, () => rawClient(r.port, "127.0.0.1"));
    await Promise.all(extra.map((c) => c.closed));
    for (const client of extra) {
      // Each is refused: a JSON 503, or, past a few lingering at once, closed without a word.
      const answers = client.answers();
      if (answers.length > 0) {
        expectJsonError(answers[0], 503, "service_unavailable");
      } else {
        expect(client.received().length).toBe(0);
      }
    }
    expect(r.stats()).toMatchObject({ openConnections: 1, refusedConnections: 20, requests: 0 });
    const other = rawClient(r.port, "127.0.0.2");
    await other.write(ping(key));
    expect((await other.answered(1))[0]?.status).toBe(200);
  });

  it("S16: the default cap per address is 100 of the 1,000 connections (the figures the docs state)", async () => {
    expect(DEFAULT_BOUNDS).toMatchObject({ maxConnections: 1000, maxConnectionsPerAddress: 100 });
    const r = await start();
    expect(r.httpServer.maxConnections).toBe(1000 + 64);
  });

  it("S16: maxConnectionsPerAddress must be a positive whole number", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(start({ maxConnectionsPerAddress: bad })).rejects.toThrow(
        /maxConnectionsPerAddress must be a positive whole number/,
      );
    }
  });

  it("S1: the server learns each connection's address: wrong admin tokens from one address lock out that address only", async () => {
    const server = createReferenceServer({ adminToken: TOKEN });
    const r = await start({ server });
    const send = async (request: string, from: string) => {
      const client = rawClient(r.port, from);
      await client.write(request);
      const [answer] = await client.answered(1);
      return answer;
    };
    for (let i = 0; i < 10; i++) {
      expect((await send(adminGet(`wrong-token-${i}`), "127.0.0.1"))?.status).toBe(401);
    }
    const locked = await send(adminGet(TOKEN), "127.0.0.1");
    expect(locked?.status).toBe(429);
    expect(Number(locked?.headers["retry-after"])).toBeGreaterThan(0);
    expect((await send(adminGet(TOKEN), "127.0.0.2"))?.status).toBe(200);
  });
});
