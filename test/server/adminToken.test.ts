/**
 * The admin token (S1): one minimum length wherever a server is made, and wrong tokens throttled
 * per client address on the server's clock, so a token cannot be found by trying.
 */
import { describe, expect, it } from "vitest";
import { addressKey } from "../../src/server/address.js";
import { ADMIN_TOKEN_THROTTLE, MIN_ADMIN_TOKEN_CHARS } from "../../src/server/adminToken.js";
import {
  AdminTokenError,
  createReferenceServer,
  type ReferenceServer,
} from "../../src/server/index.js";
import { BASE, errorOf, makeServer } from "./helpers.js";

const TOKEN = "admin-token-for-tests";

/** GET /admin/openapi.json with a token, from an address. */
const tryToken = (server: ReferenceServer, token: string, clientAddress?: string) =>
  server.fetch(
    new Request(`${BASE}/admin/openapi.json`, { headers: { authorization: `Bearer ${token}` } }),
    clientAddress === undefined ? undefined : { clientAddress },
  );

describe("the admin token's length (S1)", () => {
  it("S1: createReferenceServer refuses a token under 16 characters with an AdminTokenError naming the minimum", () => {
    expect(MIN_ADMIN_TOKEN_CHARS).toBe(16);
    for (const token of ["t", "x".repeat(15)]) {
      let error: unknown;
      try {
        createReferenceServer({ adminToken: token });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AdminTokenError);
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ name: "AdminTokenError", minLength: 16, maxLength: 256 });
      expect((error as Error).message).toContain("16 to 256");
      expect((error as Error).message).toContain(`received ${token.length} character`);
    }
    expect(() => createReferenceServer({ adminToken: "x".repeat(16) })).not.toThrow();
  });

  it("S15: a token outside A-Z a-z 0-9 _ - is refused, so that every echo and log line hides it by its shape", async () => {
    const outside = {
      "p4ss.w0rd!p4ss.w0rd!": 4,
      "sixteen-chars-ok but-a-space": 1,
      "tok\u00e9n-tok\u00e9n-tok\u00e9n": 3,
    };
    for (const [token, count] of Object.entries(outside)) {
      // The message says how many characters are outside the set (never which), so a right length is not a riddle.
      expect(() => createReferenceServer({ adminToken: token }), token).toThrow(
        `characters of A-Z, a-z, 0-9, _ and -; received ${token.length} characters, ${count} of them outside that set.`,
      );
    }
    const token = "Adm1n_t0ken-for-the-echo-test";
    const server = createReferenceServer({ adminToken: token });
    const res = await server.fetch(
      new Request(`http://localhost/admin/${token}/nowhere`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(token.slice(0, 16));
  });
});

describe("wrong admin tokens are throttled per client address (S1)", () => {
  it("S1: a path or method the admin API lacks is 404 or 405 whatever the token, and counts toward no lockout", async () => {
    const server = await makeServer({ adminToken: TOKEN });
    const attacker = "203.0.113.9";
    const wrong = { authorization: "Bearer wrong-token-wrong-token" };
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures + 2; i++) {
      const missing = await server.fetch(
        new Request(`${BASE}/admin/nope-${i}`, { headers: wrong }),
        { clientAddress: attacker },
      );
      expect(missing.status).toBe(404);
      expect((await errorOf(missing)).code).toBe("not_found");
      const method = await server.fetch(
        new Request(`${BASE}/admin/clock`, { method: "DELETE", headers: wrong }),
        {
          clientAddress: attacker,
        },
      );
      expect(method.status).toBe(405);
    }
    // A known route checks the token, and the address is not locked out: the right token passes.
    expect((await tryToken(server, "wrong-token-wrong-token", attacker)).status).toBe(401);
    expect((await tryToken(server, TOKEN, attacker)).status).toBe(200);
  });

  it("S1: after 10 wrong tokens within 60 s, an address gets 429 with Retry-After until the window ends, the right token too", async () => {
    expect(ADMIN_TOKEN_THROTTLE).toEqual({ failures: 10, windowMs: 60_000 }); // the figures docs/server.md states
    let now = Date.UTC(2026, 0, 1);
    const server = await makeServer({ adminToken: TOKEN, now: () => now });
    const attacker = "203.0.113.7";
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures; i++) {
      const res = await tryToken(server, `guess-${i}`, attacker);
      expect(res.status, `guess ${i}`).toBe(401);
      expect((await errorOf(res)).code).toBe("invalid_admin_token");
      now += 1000;
    }
    // The window began at the first failure, 10 s ago: 50 s are left.
    const locked = await tryToken(server, TOKEN, attacker);
    expect(locked.status).toBe(429);
    expect(locked.headers.get("retry-after")).toBe("50");
    expect(locked.headers.get("request-id")).toMatch(/^req_/);
    const error = await errorOf(locked);
    expect(error.code).toBe("too_many_attempts");
    expect(error.message).toContain("50 more seconds");
    expect(JSON.stringify(error)).not.toContain(TOKEN);

    // Another address is served as usual.
    expect((await tryToken(server, TOKEN, "203.0.113.8")).status).toBe(200);

    now += 49_000;
    const last = await tryToken(server, TOKEN, attacker);
    expect(last.status).toBe(429);
    expect(last.headers.get("retry-after")).toBe("1");
    now += 1000; // the window is over
    expect((await tryToken(server, TOKEN, attacker)).status).toBe(200);
  });

  it("S1: a right token before the limit clears the count; a missing token is not a failure", async () => {
    const now = Date.UTC(2026, 0, 1);
    const server = await makeServer({ adminToken: TOKEN, now: () => now });
    const address = "198.51.100.1";
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures - 1; i++) {
      expect((await tryToken(server, "wrong", address)).status).toBe(401);
    }
    expect((await tryToken(server, TOKEN, address)).status).toBe(200);
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures - 1; i++) {
      expect((await tryToken(server, "wrong", address)).status).toBe(401);
    }
    for (let i = 0; i < 20; i++) {
      const res = await server.fetch(new Request(`${BASE}/admin/openapi.json`), {
        clientAddress: address,
      });
      expect(res.status).toBe(401);
    }
    expect((await tryToken(server, TOKEN, address)).status).toBe(200);
  });

  it("S1: requests without a client address share one count; Deno's handler info and Bun's server name the address too", async () => {
    const now = Date.UTC(2026, 0, 1);
    const server = await makeServer({ adminToken: TOKEN, now: () => now });
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.failures; i++) {
      expect((await tryToken(server, "wrong")).status).toBe(401);
    }
    expect((await tryToken(server, TOKEN)).status).toBe(429);
    const deno = { remoteAddr: { hostname: "192.0.2.9", port: 5555, transport: "tcp" } };
    const res = await server.fetch(
      new Request(`${BASE}/admin/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } }),
      deno as never,
    );
    expect(res.status).toBe(200);
    const bun = { requestIP: () => ({ address: "192.0.2.10", port: 5555 }) };
    const viaBun = await server.fetch(
      new Request(`${BASE}/admin/openapi.json`, { headers: { authorization: `Bearer ${TOKEN}` } }),
      bun as never,
    );
    expect(viaBun.status).toBe(200);
  });

  it("S1: an IPv6 client is counted by its /64, an IPv4-mapped one by its IPv4 address", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(addressKey("127.0.0.2")).toBe("127.0.0.2");
    expect(addressKey(undefined)).toBe("unknown");
  });
});
