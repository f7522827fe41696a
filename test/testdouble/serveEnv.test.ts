/**
 * `imagegen-pricing serve` and its environment (the built CLI as a child process): DATABASE_URL and
 * IMAGEGEN_ADMIN_TOKEN when the options do not say, the store named on the first lines with the
 * URL's password hidden, a warning when both --admin-token and IMAGEGEN_ADMIN_TOKEN are given, and
 * --cors. Also the test-double controls over a real socket.
 */
import { afterAll, describe, expect, it } from "vitest";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { withPostgres } from "../support/postgres.js";
import { builtCli, type Child, start } from "./builtCli.js";

const ENV_TOKEN = "env-admin-token-0123456789";
const FLAG_TOKEN = "flag-admin-token-9876543210";

let cli = "";
const children: Child[] = [];
beforeAllOrFail(async () => {
  cli = await builtCli();
}, 320_000);
afterAll(() => {
  for (const child of children) {
    child.process.kill("SIGKILL");
  }
});

function serve(args: string[], env: Record<string, string> = {}): Child {
  const child = start(process.execPath, [cli, "serve", "--port", "0", ...args], env);
  children.push(child);
  return child;
}

async function baseUrl(child: Child): Promise<string> {
  await child.waitFor("Ctrl-C stops the server.");
  const match = /^Listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(
    child.stdout().split("\n")[0] ?? "",
  );
  expect(match, child.stdout()).not.toBeNull();
  return match?.[1] as string;
}

async function stop(child: Child) {
  child.process.kill("SIGTERM");
  expect((await child.exited).code).toBe(0);
}

const adminGet = (url: string, path: string, token: string) =>
  fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe("serve reads its environment (built CLI)", () => {
  it("IMAGEGEN_ADMIN_TOKEN turns the admin API on when --admin-token is not given; the token is never printed; the store is named", async () => {
    const child = serve([], { IMAGEGEN_ADMIN_TOKEN: ENV_TOKEN });
    const url = await baseUrl(child);
    const lines = child.stdout().split("\n");
    expect(lines.slice(0, 4).join("\n")).toContain("Store: in memory");
    expect(child.stdout()).toContain("Bearer <the IMAGEGEN_ADMIN_TOKEN>");
    expect(child.stdout()).not.toContain("Demo user"); // an admin token: no demo user, as with --admin-token
    expect(child.stdout() + child.stderr()).not.toContain(ENV_TOKEN);
    expect((await adminGet(url, "/admin/faults", ENV_TOKEN)).status).toBe(200);
    await stop(child);
  });

  it("--admin-token wins over IMAGEGEN_ADMIN_TOKEN, with a warning that shows neither token", async () => {
    const child = serve(["--admin-token", FLAG_TOKEN], { IMAGEGEN_ADMIN_TOKEN: ENV_TOKEN });
    const url = await baseUrl(child);
    expect(child.stderr()).toMatch(
      /^Warning: --admin-token is used; the IMAGEGEN_ADMIN_TOKEN environment variable is set too/,
    );
    expect(child.stdout() + child.stderr()).not.toContain(ENV_TOKEN);
    expect(child.stdout() + child.stderr()).not.toContain(FLAG_TOKEN);
    expect((await adminGet(url, "/admin/requests", FLAG_TOKEN)).status).toBe(200);
    expect((await adminGet(url, "/admin/requests", ENV_TOKEN)).status).toBe(401);
    await stop(child);
  });

  it("a bad IMAGEGEN_ADMIN_TOKEN exits 2 with one line naming the variable, never the value", async () => {
    const child = serve([], { IMAGEGEN_ADMIN_TOKEN: "ck_test_short" });
    const { code } = await child.exited;
    expect(code).toBe(2);
    expect(child.stderr()).toMatch(/^IMAGEGEN_ADMIN_TOKEN: [^\n]*\n$/);
    expect(child.stderr()).not.toContain("ck_test_short");
  });

  it("DATABASE_URL keeps the state in PostgreSQL; the first lines name it with the password hidden", {
    timeout: 120_000,
  }, async () => {
    const db = await withPostgres();
    try {
      // The test cluster trusts every local connection, so any password is accepted, and none may be shown.
      const url = new URL(db.connectionString);
      url.password = "s3cret-pw";
      url.username ||= "postgres";
      const child = serve(["--schema", db.schema, "--admin-token", FLAG_TOKEN], {
        DATABASE_URL: url.href,
      });
      const base = await baseUrl(child);
      const first = child.stdout().split("\n").slice(0, 4).join("\n");
      expect(first).toContain(
        `Store: PostgreSQL, schema ${db.schema}, at postgres://${url.username}:***@`,
      );
      expect(first).toContain("(from DATABASE_URL)");
      expect(child.stdout() + child.stderr()).not.toContain("s3cret-pw");
      const created = await fetch(`${base}/admin/users`, {
        method: "POST",
        headers: { authorization: `Bearer ${FLAG_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ credits: 5 }),
      });
      expect(created.status).toBe(201);
      const { userId } = (await created.json()) as { userId: string };
      await stop(child);
      const rows = await db.sql(`SELECT id FROM "${db.schema}".users WHERE id = $1`, [userId]);
      expect(rows.rows).toHaveLength(1);
    } finally {
      await db.drop();
    }
  });
});

describe("serve --cors (built CLI)", () => {
  it("answers a preflight from a given origin with 204; --cors * allows any; a bad origin exits 2 naming --cors", async () => {
    const page = "http://127.0.0.1:5173";
    const child = serve(["--cors", page, "--cors", "http://localhost:5173"]);
    const url = await baseUrl(child);
    expect(child.stdout()).toContain(
      `CORS: pages on ${page}, http://localhost:5173 may call this server`,
    );
    const preflight = (origin: string) =>
      fetch(`${url}/api/generations`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization",
        },
      });
    const ok = await preflight(page);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(page);
    expect((await preflight("http://127.0.0.1:1")).status).toBe(405);
    await stop(child);

    const any = serve(["--cors", "*"]);
    const anyUrl = await baseUrl(any);
    const res = await fetch(`${anyUrl}/api/ping`, {
      method: "OPTIONS",
      headers: { origin: "http://example.test", "access-control-request-method": "GET" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    await stop(any);

    for (const args of [
      ["--cors", "127.0.0.1:5173"],
      ["--cors", "*", "--cors", page],
    ]) {
      const bad = serve(args);
      expect((await bad.exited).code).toBe(2);
      expect(bad.stderr()).toMatch(/^--cors[^\n]*\n$/);
    }
  });
});

describe("the test-double controls over a socket (built CLI)", () => {
  it("S17, S5: a lose_answer fault closes the connection without a response; the retry replays the task, charged once; the journal shows both", async () => {
    const child = serve(["--fixtures", "examples/fixtures.json", "--admin-token", FLAG_TOKEN]);
    const url = await baseUrl(child);
    const key = "ck_test_alice_0000000000000001";
    const admin = { authorization: `Bearer ${FLAG_TOKEN}`, "content-type": "application/json" };
    const before = (await (await adminGet(url, "/admin/users/usr_alice", FLAG_TOKEN)).json()) as {
      balance: number;
    };
    const added = await fetch(`${url}/admin/faults`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ kind: "lose_answer", path: "/api/generations" }),
    });
    expect(added.status).toBe(201);
    const init = {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "idempotency-key": "cli-lost-1",
      },
      body: JSON.stringify({ prompt: "a fox" }),
    };
    const lost = await fetch(`${url}/api/generations`, init).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(TypeError); // the socket closed without an answer
    const retry = await fetch(`${url}/api/generations`, init);
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    const { billing } = (await retry.json()) as { billing: { totalCreditCost: number } };
    const after = (await (await adminGet(url, "/admin/users/usr_alice", FLAG_TOKEN)).json()) as {
      balance: number;
    };
    expect(after.balance).toBe(before.balance - billing.totalCreditCost);
    const journal = (await (await adminGet(url, "/admin/requests?limit=2", FLAG_TOKEN)).json()) as {
      requests: { status: number; idempotencyKey?: string }[];
    };
    expect(journal.requests.map((r) => [r.status, r.idempotencyKey])).toEqual([
      [202, "cli-lost-1"],
      [0, "cli-lost-1"],
    ]);
    await stop(child);
  });
});
