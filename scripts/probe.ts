/**
 * `npm run probe`: the adversarial figures of the reference server, measured on loopback and
 * written to docs/generated/probe.md (and the same table into docs/reliability.md, between its
 * `probe` markers), next to the figures a review measured on version 0.2.0.
 *
 * Six scenarios, each bounded in count and in time (at most about a minute each):
 * 1. connection starvation: 1,000 request-line-only sockets from 127.0.0.2 against new connections
 *    from 127.0.0.3;
 * 2. admin token guessing on one socket;
 * 3. the costliest body at the body limit: server CPU per body, and a victim's latency while four
 *    clients loop it;
 * 4. the credit bound: 2^53 - 1 credits, charged, granted the charge, refunded (memory store and
 *    PostgreSQL when one can be started or `DATABASE_URL` is set);
 * 5. a key echoed under disguises;
 * 6. a FIFO and an oversized file given to `serve --fixtures`.
 *
 * The HTTP server runs in a child process (this file with `--server`) so that the clients do not
 * share its event loop and its CPU time can be read on its own. It is a measurement, like
 * `npm run bench`: the test suite only checks the shape and the invariant facts of the file it wrote.
 */
import { type ChildProcess, execFileSync, fork, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { MAX_FIXTURES_FILE_BYTES } from "../src/cli/serve.js";
import { serve } from "../src/node/index.js";
import { createPostgresStore } from "../src/postgres/index.js";
import { BOUNDS } from "../src/request/bounds.js";
import { ADMIN_TOKEN_THROTTLE } from "../src/server/adminToken.js";
import { DEFAULT_MAX_BODY_BYTES } from "../src/server/body.js";
import { AdminError, createReferenceServer } from "../src/server/index.js";
import { createMemoryStore } from "../src/store/memory.js";
import { MAX_CREDITS, type Store } from "../src/store/store.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const PROBE_FILE = "docs/generated/probe.md";
const RELIABILITY_FILE = "docs/reliability.md";
const START_MARK = "<!-- probe:start (written by npm run probe from docs/generated/probe.md; do not edit) -->";
const END_MARK = "<!-- probe:end -->";

const KEY = "ck_test_probe_key_000000000000000000000"; // 40 characters, like a real key
const ADMIN_TOKEN = "probe-admin-token-0123456789abcdef";
const USER_ID = "usr_probe";
/** 13 asset ids of 128 astral code points and one the server could have made: the largest valid request names them. */
const astral = (n: number) => "\u{1F98A}".repeat(n);
const LONG_IDS = Array.from({ length: 13 }, (_, i) => `${String.fromCharCode(0x41 + i)}${astral(127)}`);
const SHORT_ID = "ast_0123456789abcdef";

/** What the review of 0.2.0 measured, verbatim. */
const BEFORE = {
  starvation:
    "A client that keeps 1,000 sockets, each having sent only a request line, and re-takes every slot when it gets its 408, makes 95% of other clients' new connections get 503.",
  admin: "wrong [admin] tokens can be tried 23,500 times a second on one socket",
  body: "the worst 1 MiB body costs 11.8 ms of server CPU, and four clients looping such bodies raise another client's p99 from about 10 ms to about 300 ms",
  credit:
    "A user at the maximum balance is charged 80, granted 80, and a job refunded: in memory the balance becomes 9007199254741072",
  echo: "a key is echoed under other disguises (all 32 secret characters come back)",
  fixtures: "a FIFO hangs serve forever; a 608 MB file fails with 'Invalid string length'",
  silent:
    "A database behind a silent network never recovers: ... after the network heals every request gets a 503 after about 5 s, indefinitely",
} as const;

// ------------------------------------------------------------------------------------ server child
type ToServer = { type: "cpu" } | { type: "stats" } | { type: "exit" };
type FromServer =
  | { type: "ready"; port: number }
  | { type: "cpu"; micros: number }
  | { type: "stats"; stats: Record<string, number> };

async function runServer(): Promise<void> {
  const server = createReferenceServer({
    adminToken: ADMIN_TOKEN,
    log: () => {},
    fixtures: { users: [{ id: USER_ID, credits: MAX_CREDITS, apiKeys: [KEY], assets: [...LONG_IDS, SHORT_ID] }] },
  });
  await server.ready();
  const running = await serve({ port: 0, server, handleSignals: false });
  const send = (message: FromServer) => process.send?.(message);
  process.on("message", (message: ToServer) => {
    if (message.type === "cpu") {
      const { user, system } = process.cpuUsage();
      send({ type: "cpu", micros: user + system });
    } else if (message.type === "stats") {
      send({ type: "stats", stats: running.stats() });
    } else {
      running.httpServer.closeAllConnections();
      void running.close().finally(() => process.exit(0));
      setTimeout(() => process.exit(0), 2000).unref();
    }
  });
  send({ type: "ready", port: running.port });
}

/** A server child at the defaults of `serve()` and the reference server. */
type Child = {
  port: number;
  ask: <T extends FromServer["type"]>(type: T) => Promise<Extract<FromServer, { type: T }>>;
  stop: () => Promise<void>;
};

async function startServer(): Promise<Child> {
  const proc: ChildProcess = fork(fileURLToPath(import.meta.url), ["--server"], { execArgv: ["--import", "tsx"] });
  const waiting: ((message: FromServer) => void)[] = [];
  proc.on("message", (message: FromServer) => waiting.shift()?.(message));
  const next = () =>
    new Promise<FromServer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the server child did not answer within 60 s")), 60_000);
      waiting.push((message) => {
        clearTimeout(timer);
        resolve(message);
      });
    });
  const ready = await next();
  if (ready.type !== "ready") throw new Error(`unexpected message from the server child: ${JSON.stringify(ready)}`);
  return {
    port: ready.port,
    async ask(type) {
      const answer = next();
      proc.send({ type });
      return (await answer) as never;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          proc.kill("SIGKILL");
          resolve();
        }, 5000);
        proc.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        proc.send({ type: "exit" });
      }),
  };
}

// ------------------------------------------------------------------------------------ raw HTTP
type Answer = { status: number; body: string };

/** Opens a TCP connection to the server from a given loopback address. */
function open(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, localAddress });
    socket.once("connect", () => {
      socket.off("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

/** A keep-alive HTTP/1.1 connection that sends one request at a time and reads its answer by Content-Length. */
class Connection {
  private buffer = Buffer.alloc(0);
  private pending: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
  private closed = false;

  constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      this.closed = true;
      this.pending?.reject(new Error("connection closed before the answer"));
      this.pending = undefined;
    });
  }

  private drain(): void {
    if (!this.pending) return;
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString("latin1");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? "0");
    if (this.buffer.length < end + 4 + length) return;
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString("utf8");
    this.buffer = this.buffer.subarray(end + 4 + length);
    const { resolve } = this.pending;
    this.pending = undefined;
    resolve({ status, body });
  }

  /** Sends a whole request and resolves with its answer (rejects if the connection closes first, or after 60 s). */
  request(bytes: Buffer | string): Promise<Answer> {
    if (this.closed) return Promise.reject(new Error("connection closed"));
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no answer within 60 s")), 60_000);
      this.pending = {
        resolve: (a) => {
          clearTimeout(timer);
          resolve(a);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.socket.write(bytes);
    });
  }
}

const get = (path: string, authorization: string, close = false) =>
  `GET ${path} HTTP/1.1\r\nHost: probe\r\nAuthorization: ${authorization}\r\n${close ? "Connection: close\r\n" : ""}\r\n`;
const post = (path: string, body: string | Buffer) => {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  return Buffer.concat([
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: probe\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`,
    ),
    bytes,
  ]);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const fmt = (n: number) => n.toLocaleString("en-US");
const ms = (micros: number) => `${(micros / 1000).toFixed(2)} ms`;
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

// ------------------------------------------------------------------------ 1. connection starvation
const ATTACK_SLOTS = 1000;
const ATTACK_SECONDS = 24;
/** The attacker takes a slot again at once after its 408, and 250 ms after a refusal: an open loop otherwise. */
const RETRY_REFUSED_MS = 250;
const MAX_ATTACK_CONNECTS = 150_000;
const VICTIM_PER_SECOND = 15;
const VICTIM_SECONDS = 20;

/** One new connection from the victim's address: a ping with its key, and what came back. */
async function victimPing(port: number): Promise<string> {
  try {
    const socket = await open(port, "127.0.0.3");
    const answer = await Promise.race([
      new Connection(socket).request(get("/api/ping", `Bearer ${KEY}`, true)),
      sleep(15_000).then(() => undefined),
    ]);
    socket.destroy();
    return answer === undefined ? "no answer in 15 s" : String(answer.status);
  } catch (error) {
    return (error as Error).message.includes("closed") ? "closed unanswered" : "connect error";
  }
}

async function starvation(): Promise<{ now: string; detail: string[] }> {
  const server = await startServer();
  try {
    const baseline: string[] = [];
    for (let i = 0; i < 30; i++) baseline.push(await victimPing(server.port));

    let stopping = false;
    let connects = 0;
    let held408 = 0;
    let refused503 = 0;
    let closedUnanswered = 0;
    const sockets = new Set<Socket>();
    const take = (): void => {
      if (stopping || connects >= MAX_ATTACK_CONNECTS) return;
      connects++;
      const socket = connect({ host: "127.0.0.1", port: server.port, localAddress: "127.0.0.2" });
      sockets.add(socket);
      let status = "";
      socket.on("connect", () => socket.write("GET /api/ping HTTP/1.1\r\n")); // a request line, never the rest
      socket.on("data", (chunk: Buffer) => {
        status ||= /^HTTP\/1\.1 (\d{3})/.exec(chunk.toString("latin1"))?.[1] ?? "?";
      });
      socket.on("error", () => {});
      socket.on("close", () => {
        sockets.delete(socket);
        if (status === "408") held408++;
        else if (status === "503") refused503++;
        else closedUnanswered++;
        if (status === "408") take();
        else setTimeout(take, RETRY_REFUSED_MS);
      });
    };
    const attackStart = performance.now();
    for (let i = 0; i < ATTACK_SLOTS; i++) take();
    await sleep(1500);
    const heldAtStart = (await server.ask("stats")).stats.openConnections ?? 0;

    const outcomes = new Map<string, number>();
    const victims: Promise<void>[] = [];
    for (let second = 0; second < VICTIM_SECONDS; second++) {
      for (let i = 0; i < VICTIM_PER_SECOND; i++) {
        victims.push(
          victimPing(server.port).then((outcome) => {
            outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
          }),
        );
        await sleep(1000 / VICTIM_PER_SECOND);
      }
    }
    await Promise.all(victims);
    const remaining = ATTACK_SECONDS * 1000 - (performance.now() - attackStart);
    if (remaining > 0) await sleep(remaining);
    stopping = true;
    for (const socket of sockets) socket.destroy();
    const attackSeconds = (performance.now() - attackStart) / 1000;

    const total = VICTIM_PER_SECOND * VICTIM_SECONDS;
    const refused = outcomes.get("503") ?? 0;
    const served = outcomes.get("200") ?? 0;
    const other = [...outcomes].filter(([k]) => k !== "200" && k !== "503");
    const baselineServed = baseline.filter((s) => s === "200").length;
    return {
      now: `${((100 * refused) / total).toFixed(1)}% refused: the victim's ${fmt(total)} new connections got ${fmt(served)} x 200, ${fmt(refused)} x 503${other.length ? `, ${other.map(([k, v]) => `${fmt(v)} x ${k}`).join(", ")}` : ""}. The attacker held ${fmt(heldAtStart)} connections (the cap per address); in ${attackSeconds.toFixed(0)} s it opened ${fmt(connects)}: ${fmt(held408)} held until their 408, ${fmt(refused503)} refused with a 503, ${fmt(closedUnanswered)} closed unanswered (past the lingering refusals of one address).`,
      detail: [
        `Victim alone first: ${baselineServed} of ${baseline.length} pings answered 200.`,
        "",
        `Attacker: ${fmt(ATTACK_SLOTS)} sockets from 127.0.0.2, each sending only \`GET /api/ping HTTP/1.1\\r\\n\`, a slot re-taken at once after its 408 and ${RETRY_REFUSED_MS} ms after a refusal, for at least ${ATTACK_SECONDS} s and until the victim's last connection is answered (at most ${fmt(MAX_ATTACK_CONNECTS)} connections); victim: ${VICTIM_PER_SECOND} new connections a second from 127.0.0.3 for ${VICTIM_SECONDS} s, each \`GET /api/ping\` with its key, starting 1.5 s into the attack, so its connections span two rounds of 408s.`,
      ],
    };
  } finally {
    await server.stop();
  }
}

// --------------------------------------------------------------------------- 2. admin token guessing
const GUESS_SECONDS = 3;
const MAX_GUESSES = 20_000;

async function adminGuessing(): Promise<{ now: string; detail: string[] }> {
  const server = await startServer();
  try {
    const connection = new Connection(await open(server.port, "127.0.0.4"));
    const counts = new Map<number, number>();
    let firstLocked = -1;
    const start = performance.now();
    let sent = 0;
    while (sent < MAX_GUESSES && performance.now() - start < GUESS_SECONDS * 1000) {
      const wrong = `Bearer wrong-${String(sent).padStart(8, "0")}-${"x".repeat(ADMIN_TOKEN.length - 15)}`;
      const { status } = await connection.request(get("/admin/openapi.json", wrong));
      if (status === 429 && firstLocked < 0) firstLocked = sent;
      counts.set(status, (counts.get(status) ?? 0) + 1);
      sent++;
    }
    const seconds = (performance.now() - start) / 1000;
    const right = await connection.request(get("/admin/openapi.json", `Bearer ${ADMIN_TOKEN}`));
    const fresh = new Connection(await open(server.port, "127.0.0.5"));
    const elsewhere = await fresh.request(get("/admin/openapi.json", `Bearer ${ADMIN_TOKEN}`));
    connection.socket.destroy();
    fresh.socket.destroy();
    const evaluated = counts.get(401) ?? 0;
    const throttled = counts.get(429) ?? 0;
    const others = [...counts].filter(([s]) => s !== 401 && s !== 429);
    const windowSeconds = ADMIN_TOKEN_THROTTLE.windowMs / 1000;
    return {
      now: `${fmt(evaluated)} wrong tokens evaluated (401) per ${windowSeconds} s window, i.e. ${(evaluated / windowSeconds).toFixed(2)} a second; then ${fmt(throttled)} x 429 (${fmt(Math.round(sent / seconds))} answers a second, from guess ${fmt(firstLocked + 1)} on)${others.length ? `, ${others.map(([s, n]) => `${fmt(n)} x ${s}`).join(", ")}` : ""}; the right token from that address then: ${right.status}; from another address: ${elsewhere.status}.`,
      detail: [
        `One keep-alive socket from 127.0.0.4, \`GET /admin/openapi.json\` with a wrong token of the right length, one after another, for ${GUESS_SECONDS} s (at most ${fmt(MAX_GUESSES)}).`,
      ],
    };
  } finally {
    await server.stop();
  }
}

// ------------------------------------------------------------------------------ 3. the worst body
const LIMIT = DEFAULT_MAX_BODY_BYTES;
const CPU_BODIES = 60;
const LATENCY_SECONDS = 8;
const MAX_LATENCY_PINGS = 40_000;
const BODY_ATTACKERS = 4;

/** A JSON string with every UTF-16 unit escaped as `\uXXXX`: the longest way to write it. */
function escaped(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) out += `\\u${text.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return `${out}"`;
}

/** Pads a JSON object with an escaped prompt so that the body is exactly `LIMIT` bytes or just under. */
function fillWithPrompt(unit: string, unitBytes: number): string {
  const shell = (prompt: string) => `{"prompt":"${prompt}","modelId":"beta"}`;
  const room = LIMIT - shell("").length;
  return shell(unit.repeat(Math.floor(room / unitBytes)));
}

/** The largest valid request (see test/server/bodyLimit.test.ts): every field at its longest, every character escaped. */
function largestValid(): string {
  const ids = [...LONG_IDS, ...Array.from({ length: BOUNDS.maxReferenceEntries - LONG_IDS.length }, () => SHORT_ID)];
  const fields: [string, string][] = [
    ["prompt", escaped(astral(12_000))],
    ["modelId", escaped("alpha-img2-5-sunburst")],
    ["generationType", escaped("image-to-image")],
    ["aspectRatio", escaped("21:9")],
    ["resolution", escaped("4K")],
    ["quality", escaped("medium")],
    ["background", escaped("transparent")],
    ["imageCount", "4"],
    ["inputAssetIds", `[${ids.map(escaped).join(",")}]`],
    ["idempotencyKey", escaped(astral(128))],
  ];
  return `{${fields.map(([name, value]) => `"${name}":${value}`).join(",")}}`;
}

const BODIES: [string, string][] = [
  ["a prompt of escaped astral characters (`\\ud83e\\udd8a`) filling the limit", fillWithPrompt("\\ud83e\\udd8a", 12)],
  ["a prompt of escaped ASCII (`\\u0061`) filling the limit", fillWithPrompt("\\u0061", 6)],
  ["the largest valid request, every character escaped (accepted once, then replayed by its key)", largestValid()],
  ["arrays nested as deep as the limit allows (`[[[...]]]`)", `${"[".repeat(LIMIT / 2)}${"]".repeat(LIMIT / 2)}`],
];

/** Pings on one keep-alive connection for `seconds`, one after another: each latency in microseconds. */
async function pingLatencies(port: number, seconds: number): Promise<number[]> {
  const connection = new Connection(await open(port, "127.0.0.6"));
  const request = get("/api/ping", `Bearer ${KEY}`);
  const latencies: number[] = [];
  const start = performance.now();
  while (latencies.length < MAX_LATENCY_PINGS && performance.now() - start < seconds * 1000) {
    const t = performance.now();
    const { status } = await connection.request(request);
    if (status !== 200) throw new Error(`a ping answered ${status}`);
    latencies.push((performance.now() - t) * 1000);
  }
  connection.socket.destroy();
  return latencies.sort((a, b) => a - b);
}

async function worstBody(): Promise<{ now: string; detail: string[] }> {
  const server = await startServer();
  try {
    const costs: { name: string; body: Buffer; micros: number; bytes: number; status: string }[] = [];
    for (const [name, text] of BODIES) {
      const body = Buffer.from(text, "utf8");
      if (body.length > LIMIT) throw new Error(`${name}: ${body.length} bytes, over the limit of ${LIMIT}`);
      const connection = new Connection(await open(server.port, "127.0.0.7"));
      const request = post("/api/generations", body);
      const statuses = new Set<number>();
      for (let i = 0; i < 5; i++) statuses.add((await connection.request(request)).status); // warm up
      const before = (await server.ask("cpu")).micros;
      for (let i = 0; i < CPU_BODIES; i++) statuses.add((await connection.request(request)).status);
      const after = (await server.ask("cpu")).micros;
      connection.socket.destroy();
      costs.push({
        name,
        body: request,
        micros: (after - before) / CPU_BODIES,
        bytes: body.length,
        status: [...statuses].join("/"),
      });
    }
    const worst = costs.reduce((a, b) => (b.micros > a.micros ? b : a));

    const alone = await pingLatencies(server.port, LATENCY_SECONDS);
    let attacking = true;
    let attackBodies = 0;
    const attackers = Array.from({ length: BODY_ATTACKERS }, async (_, i) => {
      const connection = new Connection(await open(server.port, `127.0.1.${i + 1}`));
      while (attacking) {
        await connection.request(worst.body);
        attackBodies++;
      }
      connection.socket.destroy();
    });
    await sleep(200);
    const cpuBefore = (await server.ask("cpu")).micros;
    const loaded = await pingLatencies(server.port, LATENCY_SECONDS);
    const cpuAfter = (await server.ask("cpu")).micros;
    attacking = false;
    await Promise.all(attackers);

    const p = (sorted: number[], q: number) => ms(percentile(sorted, q));
    const p99Alone = percentile(alone, 99);
    const p99Loaded = percentile(loaded, 99);
    return {
      now: `the worst body at the ${LIMIT / 1024} KiB (${fmt(LIMIT)}-byte) limit, ${worst.name}, costs ${ms(worst.micros)} of server CPU; four clients looping it move another client's ping p99 from ${ms(p99Alone)} to ${ms(p99Loaded)} (x${(p99Loaded / p99Alone).toFixed(1)}); p50 ${p(alone, 50)} to ${p(loaded, 50)}.`,
      detail: [
        `Server CPU per body (user + system time of the server process over ${CPU_BODIES} bodies on one keep-alive connection, after 5 to warm up):`,
        "",
        "| Body | Bytes | Answer | Server CPU per body |",
        "|---|---|---|---|",
        ...costs.map((c) => `| ${c.name} | ${fmt(c.bytes)} | ${c.status} | ${ms(c.micros)} |`),
        "",
        `Latency of pings sent one after another on one keep-alive connection, ${LATENCY_SECONDS} s each: alone ${fmt(alone.length)} pings (p50 ${p(alone, 50)}, p99 ${p(alone, 99)}, max ${ms(alone.at(-1) ?? Number.NaN)}); while ${BODY_ATTACKERS} clients looped the worst body (${fmt(attackBodies)} bodies, server CPU ${(((cpuAfter - cpuBefore) / 1e6 / LATENCY_SECONDS) * 100).toFixed(0)}% of one core) ${fmt(loaded.length)} pings (p50 ${p(loaded, 50)}, p99 ${p(loaded, 99)}, max ${ms(loaded.at(-1) ?? Number.NaN)}).`,
      ],
    };
  } finally {
    await server.stop();
  }
}

// ------------------------------------------------------------------------------ 4. the credit bound
type EdgeResult = { charge: number; grant: string; refund: number; balance: number; ledgerSum: bigint };

/** At 2^53 - 1: a generation charged, a grant of the charge, the job failed and refunded. */
async function creditEdge(store: Store): Promise<EdgeResult> {
  const server = createReferenceServer({ store, log: () => {} });
  const { userId } = await server.admin.createUser({ credits: MAX_CREDITS });
  const { key } = await server.admin.createApiKey(userId);
  const res = await server.fetch(
    new Request("http://probe/api/generations", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ prompt: "p", modelId: "beta-pro" }),
    }),
  );
  if (res.status !== 202) throw new Error(`the generation answered ${res.status}: ${await res.text()}`);
  const accepted = (await res.json()) as { batch: { results: { job: { id: string } }[] }; billing: { totalCreditCost: number } };
  const charge = accepted.billing.totalCreditCost;
  let grant = "granted";
  try {
    await server.admin.grantCredits(userId, charge);
  } catch (error) {
    grant = error instanceof AdminError ? `refused (${error.code})` : `failed (${(error as Error).message})`;
  }
  const jobId = accepted.batch.results[0]?.job.id ?? "";
  const { refundedCredits } = await server.admin.failJob(jobId);
  const balance = await server.admin.balance(userId);
  let ledgerSum = 0n;
  for (const entry of await server.admin.ledger(userId)) {
    ledgerSum += entry.kind === "debit" ? -BigInt(entry.credits) : BigInt(entry.credits);
  }
  return { charge, grant, refund: refundedCredits, balance, ledgerSum };
}

const describeEdge = (where: string, r: EdgeResult) =>
  `${where}: charged ${r.charge}, a grant of ${r.charge} ${r.grant}, refund ${r.refund}, balance ${r.balance}, ledger sum ${r.ledgerSum} (${BigInt(r.balance) === r.ledgerSum ? "equal" : "NOT EQUAL"})`;

async function credit(): Promise<{ now: string; detail: string[] }> {
  const memory = describeEdge("memory", await creditEdge(createMemoryStore()));
  let postgres: string;
  let cluster: { destroy(): Promise<void> } | undefined;
  try {
    let url = process.env.DATABASE_URL;
    if (!url) {
      const { startPostgres } = await import("../test/support/postgresCluster.js");
      const started = await startPostgres();
      cluster = started;
      url = started.url;
    }
    const schema = `probe_${Date.now().toString(36)}`;
    const store = await createPostgresStore({ connectionString: url, schema });
    try {
      postgres = describeEdge("PostgreSQL", await creditEdge(store));
    } finally {
      await store.close();
      if (process.env.DATABASE_URL) {
        const pg = (await import("pg")).default;
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
        await client.end();
      }
    }
  } catch (error) {
    postgres = `PostgreSQL: not measured (${(error as Error).message.split("\n")[0]})`;
  } finally {
    await cluster?.destroy();
  }
  return {
    now: `${memory}; ${postgres}.`,
    detail: [
      `A user made with 2^53 - 1 = ${MAX_CREDITS} credits; \`POST /api/generations\` \`{"prompt":"p","modelId":"beta-pro"}\`; \`admin.grantCredits\` of the charge; \`admin.failJob\` of its job; the ledger summed exactly (BigInt). PostgreSQL: ${process.env.DATABASE_URL ? "DATABASE_URL, in a schema of its own, dropped after" : "a throwaway cluster from the machine's binaries (test/support/postgresCluster.ts)"}.`,
    ],
  };
}

// ---------------------------------------------------------------------------------------- 5. echo
const SECRET = "Qx7_-mN2pL9sT4vW8yZ1aB3cD5eF6gH0";
/** A run of this many characters of the secret found in an answer counts as leaked; shorter ones occur in ordinary words. */
const LEAK_RUN = 4;
const DISGUISES: [string, string][] = [
  ["Cyrillic prefix (`ск_test_`)", `ск_test_${SECRET}`],
  ["Greek letter in the prefix (`cκ_test_`)", `cκ_test_${SECRET}`],
  ["dots (`ck.test.`)", `ck.test.${SECRET}`],
  ["slashes (`ck/test/`)", `ck/test/${SECRET}`],
  ["colons (`ck:test:`)", `ck:test:${SECRET}`],
  ["no separator (`cktest`)", `cktest${SECRET}`],
  ["a space inside", `ck_te st_${SECRET}`],
  ["a tab inside", `ck_te\tst_${SECRET}`],
  ["a Braille blank (U+2800) inside", `ck_\u2800test_${SECRET}`],
  ["a combining mark (U+0301) inside", `ck_te\u0301st_${SECRET}`],
  ["percent-encoded underscores", `ck%5Ftest%5F${SECRET}`],
  ["JSON-escaped underscores", `ck\\u005ftest\\u005f${SECRET}`],
];

/** How many of the secret's characters come back in runs of at least {@link LEAK_RUN}. */
function leaked(text: string): number {
  const covered = new Set<number>();
  for (let start = 0; start < SECRET.length; start++) {
    for (let end = SECRET.length; end - start >= LEAK_RUN; end--) {
      if (text.includes(SECRET.slice(start, end))) {
        for (let i = start; i < end; i++) covered.add(i);
        break;
      }
    }
  }
  return covered.size;
}

async function echo(): Promise<{ now: string; detail: string[] }> {
  const server = await startServer();
  try {
    const connection = new Connection(await open(server.port, "127.0.0.8"));
    const rows: string[] = [];
    let worst = 0;
    for (const [name, disguised] of DISGUISES) {
      let most = 0;
      const statuses: number[] = [];
      for (const [path, body] of [
        ["/api/generations", { prompt: "x", [disguised]: 1, imageCount: 1 }],
        ["/api/generations", { prompt: "x", modelId: disguised }],
        ["/api/pricing/quote", { kind: "image", modelId: "beta", [disguised]: 1 }],
      ] as const) {
        const answer = await connection.request(post(path, JSON.stringify(body)));
        statuses.push(answer.status);
        most = Math.max(most, leaked(answer.body));
      }
      worst = Math.max(worst, most);
      rows.push(`| ${name} | ${statuses.join(", ")} | ${most} of ${SECRET.length} |`);
    }
    // A control: the secret in pieces of 8, which is not the shape of a key, is quoted as it was
    // sent, so a count of 0 above is the server's doing and not a blind measurement.
    const pieces = SECRET.match(/.{8}/g)?.join(" ") ?? "";
    const control = await connection.request(post("/api/generations", JSON.stringify({ prompt: "x", modelId: pieces })));
    connection.socket.destroy();
    return {
      now: `${worst} of ${SECRET.length} secret characters come back, under every one of ${DISGUISES.length} disguises.`,
      detail: [
        `Each disguised key (prefix, separators, blanks or marks changed; the ${SECRET.length}-character secret part intact) sent as an unknown field of a generation, as its \`modelId\`, and as an unknown field of a quote; a character counts as leaked when it comes back in a run of at least ${LEAK_RUN} characters of the secret.`,
        "",
        "| Disguise | Answers | Secret characters in the answers (most of the three) |",
        "|---|---|---|",
        ...rows,
        "",
        `Control: the secret sent as \`modelId\` in pieces of 8 separated by spaces (not the shape of a key) is quoted back: ${leaked(control.body)} of ${SECRET.length} characters in a ${control.status}.`,
      ],
    };
  } finally {
    await server.stop();
  }
}

// ------------------------------------------------------------------------------------ 6. fixtures
const FIXTURES_LIMIT_SECONDS = 60;

/** Runs `serve --port 0 --fixtures <path>` from source: its exit code, the time to it, and its first line on standard error. */
function serveFixtures(path: string): Promise<{ code: string; seconds: number; line: string }> {
  return runCli(["serve", "--port", "0", "--fixtures", path], path);
}

/** Runs the CLI from source with these arguments, killed after {@link FIXTURES_LIMIT_SECONDS}. */
function runCli(args: string[], hide: string): Promise<{ code: string; seconds: number; line: string }> {
  return new Promise((resolve) => {
    const start = performance.now();
    const proc = spawn(process.execPath, ["--import", "tsx", "src/cli/bin.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    proc.stdout.resume();
    const timer = setTimeout(() => proc.kill("SIGKILL"), FIXTURES_LIMIT_SECONDS * 1000);
    proc.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: signal === "SIGKILL" ? `still running after ${FIXTURES_LIMIT_SECONDS} s (killed)` : `exit ${code}`,
        seconds: (performance.now() - start) / 1000,
        line: (stderr.split("\n")[0] ?? "").replace(hide, "<file>"),
      });
    });
  });
}

async function fixtures(): Promise<{ now: string; detail: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "imagegen-probe-"));
  try {
    const fifo = join(dir, "fixtures.fifo");
    execFileSync("mkfifo", [fifo]);
    const big = join(dir, "big.json");
    // Sparse files: the size is what matters, and they cost no disk.
    const BIG_BYTES = 608 * 1000 * 1000;
    writeFileSync(big, "");
    truncateSync(big, BIG_BYTES);
    const justOver = join(dir, "just-over.json");
    writeFileSync(justOver, "");
    truncateSync(justOver, MAX_FIXTURES_FILE_BYTES + 1);
    const results = [
      ["a FIFO with no writer", await serveFixtures(fifo)],
      [`a ${fmt(BIG_BYTES)}-byte file`, await serveFixtures(big)],
      [`a file of ${fmt(MAX_FIXTURES_FILE_BYTES + 1)} bytes (16 MiB + 1)`, await serveFixtures(justOver)],
    ] as const;
    const help = await runCli(["serve", "--help"], "");
    return {
      now: `${results.map(([what, r]) => `${what}: refused, ${r.code} after ${r.seconds.toFixed(2)} s`).join("; ")} (\`serve --help\`: ${help.code} after ${help.seconds.toFixed(2)} s).`,
      detail: [
        "`node --import tsx src/cli/bin.ts serve --port 0 --fixtures <file>` (the CLI from source; the time includes starting Node and tsx), killed if still running after 60 s. What each wrote first on standard error:",
        "",
        ...results.map(([what, r]) => `- ${what}: \`${r.line}\``),
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------- report
/** The scenarios in the order of the table: an id the test checks, a name, the 0.2.0 figure and the run. */
const SCENARIOS: [string, string, string, () => Promise<{ now: string; detail: string[] }>][] = [
  ["starvation", "Connection starvation", BEFORE.starvation, starvation],
  ["admin", "Admin token guessing", BEFORE.admin, adminGuessing],
  ["body", "The worst body", BEFORE.body, worstBody],
  ["credit", "The credit bound", BEFORE.credit, credit],
  ["echo", "Disguised keys echoed", BEFORE.echo, echo],
  ["fixtures", "Fixtures file", BEFORE.fixtures, fixtures],
];

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

async function main(): Promise<void> {
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
  const dirty = execFileSync("git", ["status", "--porcelain", "--", "src"], { cwd: ROOT, encoding: "utf8" }).trim() !== "";
  const load = loadavg()[0] ?? 0;
  // `npm run probe -- echo admin` runs only those scenarios and prints them, writing nothing.
  const only = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const results: { id: string; name: string; before: string; now: string; detail: string[] }[] = [];
  for (const [id, name, before, run] of SCENARIOS) {
    if (only.length > 0 && !only.includes(id)) continue;
    const start = performance.now();
    console.error(`probe: ${name}...`);
    const { now, detail } = await run();
    console.error(`probe: ${name} done in ${((performance.now() - start) / 1000).toFixed(1)} s`);
    results.push({ id, name, before, now, detail });
  }
  const table = [
    "| Scenario | 0.2.0 (the review's figure) | Now |",
    "|---|---|---|",
    ...results.map((r) => `| ${r.name} <!-- ${r.id} --> | ${cell(r.before)} | ${cell(r.now)} |`),
    `| Silent network to PostgreSQL <!-- silent --> | ${cell(BEFORE.silent)} | not probed here: \`test/postgres/silentNetwork.test.ts\` pins that requests answer 503 within the store's \`queryTimeoutMillis\` and that the same server serves again once the network heals |`,
  ];
  const machine = `Measured at commit ${commit}${dirty ? " (with uncommitted changes in src/)" : ""}, Node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? "unknown CPU"}), load average ${load.toFixed(1)} when the run began.`;
  const text = [
    "# Adversarial figures, 0.2.0 and now",
    "",
    "Written by `npm run probe` (`scripts/probe.ts`); do not edit by hand. Each scenario runs against",
    "`serve()` at its defaults on loopback, the server in a child process of its own. The machine is",
    "shared and loaded while it runs: read the ratios, percentages and counts, not the absolute times.",
    "",
    machine,
    "",
    ...table,
    "",
    ...results.flatMap((r) => [`## ${r.name}`, "", ...r.detail, ""]),
  ].join("\n");
  if (only.length > 0) {
    console.log(text);
    return;
  }
  mkdirSync(join(ROOT, "docs/generated"), { recursive: true });
  writeFileSync(join(ROOT, PROBE_FILE), text);

  // The same table in docs/reliability.md, so the published guide carries it (docs/generated/ is not published).
  const reliability = readFileSync(join(ROOT, RELIABILITY_FILE), "utf8");
  const from = reliability.indexOf(START_MARK);
  const to = reliability.indexOf(END_MARK);
  if (from < 0 || to < from) throw new Error(`${RELIABILITY_FILE} lacks the probe markers`);
  const block = [START_MARK, "", machine, "", ...table, "", END_MARK].join("\n");
  writeFileSync(join(ROOT, RELIABILITY_FILE), reliability.slice(0, from) + block + reliability.slice(to + END_MARK.length));
  console.log(text);
  console.error(`wrote ${PROBE_FILE} and the table in ${RELIABILITY_FILE}`);
}

if (process.argv.includes("--server")) {
  await runServer();
} else {
  await main();
  process.exit(0);
}
