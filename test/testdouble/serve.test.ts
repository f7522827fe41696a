/**
 * `imagegen-pricing serve` as a user runs it: the built dist/cli.js as a child process (built
 * first when missing or stale), on port 0, with fixtures, the admin token, the request log, JSON
 * lines, PostgreSQL, a clean stop on SIGTERM and SIGINT, and one-line errors.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import { withPostgres } from "../support/postgres.js";
import { builtCli, type Child, start } from "./builtCli.js";

const ALICE_KEY = "ck_test_alice_0000000000000001";
const ALICE_LIVE = "ck_live_alice_0000000000000002";
const TOKEN = "admin-token-for-tests";

let cli = "";
const children: Child[] = [];
/** The files this file writes, removed after it. */
const tmp = mkdtempSync(join(tmpdir(), "imagegen-serve-"));
beforeAllOrFail(async () => {
  cli = await builtCli();
}, 320_000);
afterAll(() => {
  for (const child of children) {
    child.process.kill("SIGKILL");
  }
  rmSync(tmp, { recursive: true, force: true });
});

function serve(args: string[]): Child {
  const child = start(process.execPath, [cli, "serve", ...args]);
  children.push(child);
  return child;
}

/** The base URL from the first line, which must be the "Listening on" line. */
async function baseUrl(child: Child): Promise<string> {
  await child.waitFor("Ctrl-C stops the server.");
  const first = child.stdout().split("\n")[0] ?? "";
  const match = /^Listening on (http:\/\/127\.0\.0\.1:(\d+))$/.exec(first);
  expect(match, child.stdout()).not.toBeNull();
  expect(Number(match?.[2])).toBeGreaterThan(0);
  return match?.[1] as string;
}

function file(name: string, content: unknown): string {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

/** Runs serve to its end (it must exit on its own) and returns its code and output. */
async function failing(args: string[]) {
  const child = serve(args);
  const { code } = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe("imagegen-pricing serve (built CLI)", () => {
  it("S9, S1: port 0 prints its URL first and the fixture test keys; live keys and the admin token are never printed; SIGTERM exits 0", async () => {
    const child = serve([
      "--port",
      "0",
      "--fixtures",
      "examples/fixtures.json",
      "--admin-token",
      TOKEN,
    ]);
    const url = await baseUrl(child);
    const out = child.stdout();
    expect(out).toContain(ALICE_KEY);
    expect(out).toContain("ck_test_bob_00000000000000001");
    expect(out).not.toContain(ALICE_LIVE.slice(8));
    expect(out).not.toContain(TOKEN);
    expect(out).toContain(`Admin API: ${url}/admin/`);

    const ping = await fetch(`${url}/api/ping`, {
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    expect(await ping.json()).toMatchObject({ ok: true, userId: "usr_alice" });
    const admin = await fetch(`${url}/admin/users/usr_bob`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(await admin.json()).toEqual({ userId: "usr_bob", balance: 50, multiplier: "1" });

    child.process.kill("SIGTERM");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toMatch(/Stopped \(SIGTERM\); the server is closed\.\n$/);
    expect(child.stderr()).toBe("");
  });

  it("S9: --log prints one line per request (method, path, status, time, request id) and never a key; SIGINT exits 0", async () => {
    const child = serve([
      "--port",
      "0",
      "--fixtures",
      "examples/fixtures.json",
      "--admin-token",
      TOKEN,
      "--log",
    ]);
    const url = await baseUrl(child);
    const before = child.stdout().length;
    const ping = await fetch(`${url}/api/ping?x=1`, {
      headers: { authorization: `Bearer ${ALICE_KEY}` },
    });
    const missing = await fetch(`${url}/api/nothing/${ALICE_KEY}`);
    const admin = await fetch(`${url}/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ credits: 5 }),
    });
    await child.waitFor(/POST \/admin\/users 201/);
    const lines = child.stdout().slice(before).trimEnd().split("\n");
    const ids = [ping, missing, admin].map((r) => r.headers.get("request-id"));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^GET /api/ping 200 \\d+\\.\\dms ${ids[0]}$`));
    expect(lines[1]).toMatch(new RegExp(`^GET /api/nothing/<hidden> 404 \\d+\\.\\dms ${ids[1]}$`));
    expect(lines[2]).toMatch(new RegExp(`^POST /admin/users 201 \\d+\\.\\dms ${ids[2]}$`));
    expect(child.stdout()).not.toContain(TOKEN);

    child.process.kill("SIGINT");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toContain("Stopped (SIGINT)");
  });

  it("S9: --json prints the startup summary and each request as one JSON object per line", async () => {
    const child = serve(["--port", "0", "--fixtures", "examples/fixtures.json", "--log", "--json"]);
    await child.waitFor('"event":"listening"');
    const startup = JSON.parse(child.stdout().split("\n")[0] ?? "");
    expect(startup).toMatchObject({
      event: "listening",
      store: "memory",
      admin: false,
      userCount: 2,
    });
    expect(startup.users[0]).toEqual({
      userId: "usr_alice",
      balance: 1000,
      multiplier: "1.15",
      apiKeys: [ALICE_KEY, "ck_live_..."],
      assets: ["ast_alice_1", "ast_alice_2"],
    });
    await fetch(`${startup.url}/api/ping`, { headers: { authorization: `Bearer ${ALICE_KEY}` } });
    await child.waitFor('"event":"request"');
    const line = JSON.parse(child.stdout().trimEnd().split("\n").at(-1) ?? "");
    expect(line).toMatchObject({ event: "request", method: "GET", path: "/api/ping", status: 200 });
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
    expect(JSON.parse(child.stdout().trimEnd().split("\n").at(-1) ?? "")).toEqual({
      event: "closed",
      by: "SIGTERM",
    });
  });

  it("S2: a fixture user given without an id is served under the id printed for it", async () => {
    const key = "ck_test_anonymous_000000000001";
    const child = serve([
      "--port",
      "0",
      "--json",
      "--fixtures",
      file("anonymous.json", { users: [{ credits: 7, apiKeys: [key] }] }),
    ]);
    await child.waitFor('"event":"listening"');
    const startup = JSON.parse(child.stdout().split("\n")[0] ?? "");
    const printed = startup.users[0].userId as string;
    expect(printed).toMatch(/^usr_[0-9a-f]{16}$/);
    const ping = await (
      await fetch(`${startup.url}/api/ping`, { headers: { authorization: `Bearer ${key}` } })
    ).json();
    expect(ping.userId).toBe(printed);
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
  });

  it("S1: without fixtures or an admin token it makes a demo user, prints its key once, and the curl lines agree", async () => {
    const child = serve(["--port", "0"]);
    const url = await baseUrl(child);
    const keys = child.stdout().match(/ck_test_[A-Za-z0-9_-]{32}/g) ?? [];
    expect(new Set(keys).size).toBe(1);
    const quoteLine = child.stdout().match(/-d '(\{"kind":"image".*?\})'/)?.[1] ?? "";
    const generationLine = child.stdout().match(/-d '(\{"prompt".*?\})'/)?.[1] ?? "";
    const headers = { authorization: `Bearer ${keys[0]}`, "content-type": "application/json" };
    const quote = await (
      await fetch(`${url}/api/pricing/quote`, { method: "POST", headers, body: quoteLine })
    ).json();
    const created = await fetch(`${url}/api/generations`, {
      method: "POST",
      headers,
      body: generationLine,
    });
    expect(created.status).toBe(202);
    expect(quote.credits).toBe(130);
    expect((await created.json()).billing.totalCreditCost).toBe(quote.credits);
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
  });

  it("S1: with an admin token and no fixtures it makes no user, and says how to make one", async () => {
    const child = serve(["--port", "0", "--admin-token", TOKEN]);
    const url = await baseUrl(child);
    expect(child.stdout()).not.toMatch(/ck_test_|Demo user/);
    expect(child.stdout()).toContain("No users yet: POST /admin/users makes one.");
    const made = await fetch(`${url}/admin/users`, {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ credits: 5 }),
    });
    expect(made.status).toBe(201);
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
  });

  it("S15: --max-connections-per-address caps one client address's open connections with a JSON 503", async () => {
    const child = serve([
      "--port",
      "0",
      "--fixtures",
      "examples/fixtures.json",
      "--max-connections-per-address",
      "1",
    ]);
    const port = Number(new URL(await baseUrl(child)).port);
    const held = connect(port, "127.0.0.1");
    await new Promise<void>((resolve) => held.once("connect", () => resolve()));
    const refused = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    refused.on("data", (chunk: Buffer) => chunks.push(chunk));
    refused.on("error", () => {});
    refused.write(
      `GET /api/ping HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer ${ALICE_KEY}\r\n\r\n`,
    );
    await new Promise<void>((resolve) => refused.once("close", () => resolve()));
    const text = Buffer.concat(chunks).toString("utf8");
    expect(text).toMatch(/^HTTP\/1\.1 503 /);
    expect(text).toContain('"code":"service_unavailable"');
    held.destroy();
    child.process.kill("SIGTERM");
    expect((await child.exited).code).toBe(0);
  });

  it("S12: a bad option exits 2 with one line on standard error and nothing served", async () => {
    for (const args of [
      ["--prot", "1"],
      ["--port", "abc"],
      ["--port", "70000"],
      ["--port"],
      ["extra"],
      ["--admin-token", "ck_test_looks_like_a_key"],
      ["--admin-token", "has space"],
      ["--admin-token", "fifteen-chars-x"],
      ["--max-connections-per-address", "0"],
      ["--schema", "s1"],
      ["--host", ""],
    ]) {
      const { code, stdout, stderr } = await failing(args);
      expect(code, args.join(" ")).toBe(2);
      expect(stdout, args.join(" ")).toBe("");
      expect(
        stderr.endsWith("\n") && !stderr.trimEnd().includes("\n"),
        `${args.join(" ")}: ${stderr}`,
      ).toBe(true);
    }
    const { stderr } = await failing(["--prot", "1"]);
    expect(stderr).toBe(
      `Unknown option --prot; did you mean --port? Run "imagegen-pricing serve --help" for the options.\n`,
    );
    expect((await failing(["--admin-token", "has space"])).stderr).not.toContain("has space");
  });

  it("S1: a bad fixtures file exits 2 with one line naming the first problems; a missing or non-JSON file too", async () => {
    const bad = file("bad.json", {
      users: [
        { id: "usr_a", credits: -1 },
        { credits: 1, apiKeys: ["ck_test_short"] },
        { id: "usr_a", credits: 1 },
      ],
    });
    const result = await failing(["--port", "0", "--fixtures", bad]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    const line = result.stderr.trimEnd();
    expect(line.includes("\n")).toBe(false);
    expect(line).toMatch(/^The fixtures file .*bad\.json: Fixtures refused, nothing loaded: /);
    for (const path of ["users[0].credits", "users[1].apiKeys[0]", "users[2].id"]) {
      expect(line).toContain(path);
    }
    expect(line).not.toContain("ck_test_short");

    const missing = await failing(["--fixtures", join(tmp, "nope.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^Cannot read the fixtures file .*nope\.json: .*ENOENT.*\n$/);
    const notJson = await failing(["--fixtures", file("not.json", "{users:")]);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^The fixtures file .*not\.json is not valid JSON: [^\n]*\n$/);
  });

  it("S12: a port in use exits 1 with one line", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stdout, stderr } = await failing(["--port", String(port)]);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toBe(
        `Port ${port} on 127.0.0.1 is in use; choose another with --port (0 picks a free one).\n`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it("S14: an unreachable database exits 1 with one line that never shows the URL's password", async () => {
    const { code, stdout, stderr } = await failing([
      "--database-url",
      "postgres://someone:s3cret-pw@127.0.0.1:1/db",
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^Cannot use the database: [^\n]*\n$/);
    expect(stderr).not.toContain("s3cret-pw");
  });
});

describe("imagegen-pricing serve --database-url (built CLI, real PostgreSQL)", () => {
  it("S14: the state outlives a restart, and the fixtures are not given twice", {
    timeout: 120_000,
  }, async () => {
    const db = await withPostgres();
    try {
      const args = ["--port", "0", "--database-url", db.connectionString, "--schema", db.schema];
      const first = serve([...args, "--fixtures", "examples/fixtures.json"]);
      const url = await baseUrl(first);
      expect(first.stdout()).toContain(`Store: PostgreSQL, schema ${db.schema}`);
      const created = await fetch(`${url}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${ALICE_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "a fox", modelId: "beta2", resolution: "4K" }),
      });
      expect(created.status).toBe(202);
      first.process.kill("SIGTERM");
      expect((await first.exited).code).toBe(0);

      const second = serve([
        ...args,
        "--fixtures",
        "examples/fixtures.json",
        "--admin-token",
        TOKEN,
      ]);
      const again = await baseUrl(second);
      expect(second.stdout()).toContain(
        "Fixtures examples/fixtures.json: 2 users (0 loaded now, 2 kept as the store had them)",
      );
      expect(second.stdout()).toContain("usr_alice: 862 credits, multiplier 1.15");
      const ledger = await fetch(`${again}/admin/users/usr_alice/ledger`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(
        ((await ledger.json()) as { entries: { kind: string; credits: number }[] }).entries.map(
          (e) => e.kind,
        ),
      ).toEqual(["grant", "debit"]);
      second.process.kill("SIGINT");
      expect((await second.exited).code).toBe(0);
    } finally {
      await db.drop();
    }
  });
});

/**
 * A harness in miniature: a node process that starts `serve` (itself, or through `sh -c` as npx
 * does), prints `pid <server pid>` and passes the server's output on. `file` sends the server's
 * output to a file instead of a pipe.
 */
const HARNESS = `
const { spawn } = require("node:child_process");
const { openSync } = require("node:fs");
const [node, cli, mode, out] = process.argv.slice(1);
const stdout = mode === "file" ? openSync(out, "w") : "pipe";
const child =
  mode === "shell"
    ? spawn("sh", ["-c", '"$0" "$1" serve --port 0 & echo "pid $!"; wait', node, cli], { stdio: ["ignore", "pipe", "inherit"] })
    : spawn(node, [cli, "serve", "--port", "0"], { stdio: ["ignore", stdout, "inherit"] });
if (mode !== "shell") process.stdout.write("pid " + child.pid + "\\n");
child.stdout?.on("data", (chunk) => process.stdout.write(chunk));
`;

/** Whether a process has ended: gone, or a zombie its new parent has not reaped yet (Linux). */
function ended(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true; // gone between the two looks
  }
}

describe("imagegen-pricing serve ends with the process that started it (built CLI)", () => {
  const servers: number[] = [];
  afterAll(() => {
    for (const pid of servers) {
      if (!ended(pid)) {
        process.kill(pid, "SIGKILL");
      }
    }
  });

  for (const mode of ["pipe", "file", "shell"] as const) {
    it(`its parent killed with SIGKILL (${mode === "shell" ? "through sh -c, as npx starts it" : `output to a ${mode}`}), the server closes and exits on its own`, {
      timeout: 120_000,
    }, async () => {
      const out = join(tmp, `orphan-${mode}.log`);
      const harness = start(process.execPath, ["-e", HARNESS, process.execPath, cli, mode, out]);
      children.push(harness);
      await harness.waitFor(/^pid \d+$/m);
      const pid = Number(/^pid (\d+)$/m.exec(harness.stdout())?.[1]);
      servers.push(pid);
      const listening = () =>
        mode === "file" ? (existsSync(out) ? readFileSync(out, "utf8") : "") : harness.stdout();
      if (mode === "file") {
        // Bounded (about 60 s), generous: the server prints its URL once it listens.
        for (let i = 0; i < 600 && !listening().includes("Ctrl-C stops the server."); i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } else {
        await harness.waitFor("Ctrl-C stops the server.");
      }
      const url = /Listening on (http:\/\/\S+)/.exec(listening())?.[1];
      expect(url, listening()).toBeDefined();
      expect((await fetch(`${url}/openapi.json`)).status).toBe(200);

      // "exit", not the child's "close": the server holds the harness's standard error open.
      const killed = new Promise((resolve) => harness.process.once("exit", resolve));
      harness.process.kill("SIGKILL");
      await killed;
      // Bounded (about 30 s), generous: the server looks for its parent twice a second.
      for (let i = 0; i < 300 && !ended(pid); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(ended(pid), `the server (pid ${pid}) still runs after its parent was killed`).toBe(
        true,
      );
      if (mode === "file") {
        expect(readFileSync(out, "utf8")).toMatch(
          /Stopped \(its parent process ended\); the server is closed\.\n$/,
        );
      }
    });
  }
});
