/**
 * What the client puts on the wire and what it gives back besides the data: a key only the body
 * can carry, the check of every 2xx against its shape, the answer's metadata (`withResponse()`),
 * the logger, and the headers a service can read (`User-Agent`, `X-Retry-Count`, a call's own).
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createClient,
  type Fetch,
  type ImagegenError,
  type Logger,
} from "../../src/client/index.js";
import { VERSION } from "../../src/client/version.js";
import { serve } from "../../src/node/index.js";
import { ADMIN_TOKEN, createAttempts, double, IN_PROCESS, ledgerOf, rejection } from "./helpers.js";

const BODY = { prompt: "a fox", modelId: "beta2" } as const;

/** A fetch that hands each request to `fetch`, keeping each request and its body text. */
function recording(fetch: Fetch) {
  const sent: { headers: Headers; body: string }[] = [];
  const wrapped: Fetch = async (request) => {
    sent.push({ headers: new Headers(request.headers), body: await request.clone().text() });
    return fetch(request);
  };
  return { fetch: wrapped, sent };
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("a key that only the body can carry", () => {
  const KEYS = ["заказ-1001", "order-🦊", "order\n1001", "order\u00001001", "café-1"];

  it.each(KEYS)(
    "S5, N13: %j is sent in the body alone on every attempt, accepted, and replayed with nothing charged",
    async (key) => {
      const d = await double({ credits: 1000 });
      await d.admin.addFault({ kind: "lose_answer", path: "/api/generations" });
      const wire = recording(d.server.fetch);
      const client = createClient({
        apiKey: d.key,
        baseUrl: IN_PROCESS,
        fetch: wire.fetch,
        maxRetryDelayMs: 0,
      });
      const first = await client.generations.create(BODY, { idempotencyKey: key }).withResponse();
      expect(first.attempts).toBe(2);
      expect(wire.sent).toHaveLength(2);
      for (const attempt of wire.sent) {
        expect(attempt.headers.has("idempotency-key")).toBe(false);
        expect(JSON.parse(attempt.body).idempotencyKey).toBe(key);
      }
      const balance = await d.admin.balance(d.userId);
      expect(balance).toBe(1000 - first.data.billing.totalCreditCost);
      const again = await client.generations.create(BODY, { idempotencyKey: key }).withResponse();
      expect(again).toMatchObject({ replayed: true, status: 202 });
      expect(again.data.batch.taskId).toBe(first.data.batch.taskId);
      expect(await d.admin.balance(d.userId)).toBe(balance);
      expect((await ledgerOf(d.server, d.userId)).debits).toHaveLength(1);
    },
  );

  it("S5, N13: over a socket with the global fetch, each such key is accepted and its replay charges nothing", async () => {
    const d = await double({ credits: 10_000 });
    const running = await serve({ port: 0, server: d.server, handleSignals: false });
    try {
      const client = createClient({ apiKey: d.key, baseUrl: running.url });
      for (const key of KEYS) {
        const first = await client.generations.create(BODY, { idempotencyKey: key });
        const again = await client.generations.create(BODY, { idempotencyKey: key });
        expect(again.batch.taskId).toBe(first.batch.taskId);
        // The task keeps the key as sent (the journal shows keys only as safe text).
        expect((await d.admin.task(first.batch.taskId)).request.idempotencyKey).toBe(key);
      }
      expect(await createAttempts(d.server)).toHaveLength(2 * KEYS.length);
      expect((await ledgerOf(d.server, d.userId)).debits).toHaveLength(KEYS.length);
    } finally {
      await running.close();
    }
  });

  it("S5: a key of visible ASCII goes in the header and the body, the same on every attempt", async () => {
    const d = await double();
    await d.admin.addFault({ kind: "internal", path: "/api/generations" });
    const wire = recording(d.server.fetch);
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: wire.fetch,
      maxRetryDelayMs: 0,
    });
    await client.generations.create(BODY, { idempotencyKey: "order 1001\tA" });
    expect(wire.sent.map((s) => s.headers.get("idempotency-key"))).toEqual([
      "order 1001\tA",
      "order 1001\tA",
    ]);
  });

  it("N13: a key neither can carry (blank, or past 128 characters after trim) is refused locally, nothing sent", async () => {
    const d = await double();
    const wire = recording(d.server.fetch);
    const client = createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch: wire.fetch });
    for (const key of [" \n ", "я".repeat(129)]) {
      const error = await rejection(client.generations.create(BODY, { idempotencyKey: key }));
      expect(error).toMatchObject({
        code: "invalid_request",
        attempts: 0,
        issues: [{ path: "idempotencyKey" }],
      });
    }
    expect(wire.sent).toEqual([]);
    expect(await createAttempts(d.server)).toEqual([]);
  });
});

describe("every 2xx is checked against its shape", () => {
  const answer = (status: number, body: string) =>
    new Response(body, { status, headers: { "request-id": "req_bad" } });

  it.each([
    ["{}", "batch"],
    ["[]", "body"],
    ['{"message":"ok"}', "batch"],
    ['{"batch":{"taskId":7},"billing":{}}', "batch.taskId"],
  ])(
    "S3: a 202 of %s is invalid_response with its status and request id, retried, never resolved",
    async (text, path) => {
      const fetch = vi.fn(async () => answer(202, text));
      const client = createClient({
        apiKey: "ck_test_shapes_000000000000001",
        baseUrl: IN_PROCESS,
        fetch,
        maxRetryDelayMs: 0,
      });
      const error = (await rejection(
        client.generations.create(BODY, { idempotencyKey: "order-5" }),
      )) as ImagegenError;
      expect(error).toMatchObject({
        code: "invalid_response",
        status: 202,
        requestId: "req_bad",
        attempts: 3,
        idempotencyKey: "order-5",
      });
      expect(error.message).toContain(path === "body" ? "not a JSON object" : `${path} is not`);
      expect(error.message).toContain("may have been accepted");
      expect(fetch).toHaveBeenCalledTimes(3);
    },
  );

  it("S9, S10, S11: a 200 of another shape is invalid_response for ping, credits and quote", async () => {
    const fetch = vi.fn(async () => answer(200, '{"ok":true}'));
    const client = createClient({
      apiKey: "ck_test_shapes_000000000000001",
      baseUrl: IN_PROCESS,
      fetch,
      maxRetries: 0,
    });
    for (const call of [
      () => client.ping(),
      () => client.credits(),
      () => client.quote({ kind: "image", modelId: "beta2" }),
    ]) {
      expect(await rejection(call())).toMatchObject({ code: "invalid_response", status: 200 });
    }
  });

  it("S5: a charged 202 read wrong is retried with its key and resolves as the task it made, charged once", async () => {
    const d = await double({ credits: 1000 });
    let first = true;
    const fetch: Fetch = async (request) => {
      const real = await d.server.fetch(request);
      if (first) {
        first = false;
        return answer(202, '{"message":"ok"}');
      }
      return real;
    };
    const client = createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch, maxRetryDelayMs: 0 });
    const accepted = await client.generations
      .create(BODY, { idempotencyKey: "k-1" })
      .withResponse();
    expect(accepted).toMatchObject({ attempts: 2, replayed: true });
    expect((await ledgerOf(d.server, d.userId)).debits.map((e) => e.taskId)).toEqual([
      accepted.data.batch.taskId,
    ]);
  });

  it("a baseUrl with credentials is invalid_options, and the password is not echoed", () => {
    let error: unknown;
    try {
      createClient({ apiKey: "ck_test_shapes_000000000000001", baseUrl: "http://user:pa55@host" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "invalid_options" });
    expect((error as Error).message).toMatch(/^baseUrl must not hold credentials/);
    expect((error as Error).message).not.toContain("pa55");
  });
});

describe("the metadata of every answer", () => {
  it("S5, S12: withResponse gives the request id, replayed, status, attempts and headers; the data is the body", async () => {
    const d = await double({ credits: 1000 });
    const call = d.client.generations.create(BODY, { idempotencyKey: "meta-1" });
    const first = await call.withResponse();
    // Awaited both ways, the call is sent once.
    expect(await call).toEqual(first.data);
    expect(first).toMatchObject({ replayed: false, status: 202, attempts: 1 });
    expect(first.requestId).toMatch(/^req_/);
    expect(first.headers.get("request-id")).toBe(first.requestId);
    const again = await d.client.generations
      .create(BODY, { idempotencyKey: "meta-1" })
      .withResponse();
    expect(again).toMatchObject({ replayed: true, status: 202, attempts: 1, data: first.data });
    expect(again.requestId).not.toBe(first.requestId);
    expect(await createAttempts(d.server)).toHaveLength(2);

    for (const meta of [
      await d.client.ping().withResponse(),
      await d.client.credits().withResponse(),
      await d.client.quote({ kind: "image", modelId: "beta2" }).withResponse(),
    ]) {
      expect(meta).toMatchObject({ status: 200, replayed: false, attempts: 1 });
      expect(meta.requestId).toMatch(/^req_/);
    }
  });

  it("S12: an error carries the answer's headers with its status and request id", async () => {
    const d = await double({ credits: 10 });
    const error = (await rejection(d.client.generations.create(BODY))) as ImagegenError;
    expect(error).toMatchObject({ code: "insufficient_credits", status: 402 });
    expect(error.headers?.get("request-id")).toBe(error.requestId);
  });

  it("a chained then is a plain promise; a rejected call rejects withResponse the same", async () => {
    const d = await double({ credits: 10 });
    const chained = d.client.ping().then((ping) => ping.userId);
    expect("withResponse" in chained).toBe(false);
    expect(await chained).toBe(d.userId);
    const failing = d.client.generations.create(BODY);
    expect(await rejection(failing.withResponse())).toMatchObject({ code: "insufficient_credits" });
    expect(await rejection(failing)).toMatchObject({ code: "insufficient_credits" });
  });
});

describe("the logger", () => {
  /** A logger that keeps every line and its details, by level. */
  function keeping() {
    const lines: { level: string; text: string }[] = [];
    const at =
      (level: string) =>
      (message: string, ...rest: unknown[]) =>
        lines.push({ level, text: `${message} ${JSON.stringify(rest)}` });
    const logger: Logger = {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
    };
    return { logger, lines };
  }

  it("S1: at debug it sees each attempt and each answer, and no API key, admin token, idempotency key or prompt", async () => {
    const d = await double({ credits: 100 });
    const { logger, lines } = keeping();
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: d.server.fetch,
      maxRetryDelayMs: 0,
      logger,
      logLevel: "debug",
    });
    const prompt = "a secret prompt about zebras";
    await d.admin.addFault({ kind: "lose_answer", path: "/api/generations" });
    const secretKey = `key-${ADMIN_TOKEN}`;
    const headers = { "x-admin-token": ADMIN_TOKEN };
    await client.generations.create({ ...BODY, prompt }, { idempotencyKey: secretKey, headers });
    // A failure, so that a rejection's line is there too: 402 for 80 credits against 20 left.
    await rejection(
      client.generations.create({ ...BODY, prompt }, { idempotencyKey: `${secretKey}-2`, headers }),
    );
    await d.admin.addFault({ kind: "lose_answer", path: "/api/generations", times: 3 });
    await rejection(
      client.generations.create({ ...BODY, prompt }, { idempotencyKey: `${secretKey}-3`, headers }),
    );
    const sending = lines.filter((l) => l.level === "debug" && l.text.includes("sending"));
    expect(sending).toHaveLength(2 + 1 + 3);
    expect(
      lines.filter((l) => l.level === "info" && /attempt \d+: 202 ok/.test(l.text)),
    ).toHaveLength(1);
    expect(lines.filter((l) => l.level === "info" && l.text.includes("retrying"))).toHaveLength(3);
    expect(lines.filter((l) => l.level === "info" && l.text.includes("gave up"))).toHaveLength(1);
    expect(
      lines.filter((l) => l.level === "info" && l.text.includes('"code":"insufficient_credits"')),
    ).toHaveLength(1);
    expect(sending[0]?.text).toContain('"authorization":"[redacted]"');
    expect(sending[0]?.text).toContain('"x-retry-count":"0"');
    for (const line of lines) {
      for (const secret of [d.key, ADMIN_TOKEN, prompt, "zebras"]) {
        expect(line.text).not.toContain(secret);
      }
    }
  });

  it("by default it logs only a failing onRetry hook; off logs nothing; info each answer and each rejection", async () => {
    const d = await double({ credits: 10 });
    for (const [logLevel, expected] of [
      [undefined, ["warn"]],
      ["off", []],
      ["error", []],
      ["info", ["info", "info", "warn", "info", "info", "info"]],
    ] as const) {
      const { logger, lines } = keeping();
      const client = createClient({
        apiKey: d.key,
        baseUrl: IN_PROCESS,
        fetch: d.server.fetch,
        maxRetryDelayMs: 0,
        logger,
        onRetry: () => {
          throw new Error("a bug in the hook");
        },
        ...(logLevel === undefined ? {} : { logLevel }),
      });
      await d.admin.addFault({ kind: "internal", path: "/api/ping" });
      await client.ping();
      await rejection(client.generations.create(BODY));
      expect(lines.map((l) => l.level)).toEqual(expected);
    }
    const base = { apiKey: d.key, baseUrl: IN_PROCESS };
    expect(() => createClient({ ...base, logLevel: "loud" as never })).toThrow(
      /^logLevel must be one of "off", "error", "warn", "info", "debug"/,
    );
    expect(() => createClient({ ...base, logger: { debug() {} } as never })).toThrow(
      /^logger must be an object/,
    );
  });
});

describe("the headers a service can read", () => {
  it("User-Agent names the package and its version, which is package.json's", async () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(VERSION).toBe(pkg.version);
    const d = await double();
    const wire = recording(d.server.fetch);
    await createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch: wire.fetch }).ping();
    expect(wire.sent[0]?.headers.get("user-agent")).toBe(`imagegen-pricing/${pkg.version}`);
  });

  it("S5: X-Retry-Count is 0 on the first attempt and counts each retry, over a socket too", async () => {
    const d = await double();
    await d.admin.addFault({ kind: "internal", path: "/api/generations", times: 2 });
    const wire = recording(d.server.fetch);
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: wire.fetch,
      maxRetryDelayMs: 0,
    });
    await client.generations.create(BODY);
    expect(wire.sent.map((s) => s.headers.get("x-retry-count"))).toEqual(["0", "1", "2"]);
    const running = await serve({ port: 0, server: d.server, handleSignals: false });
    try {
      await d.admin.addFault({ kind: "internal", path: "/api/ping" });
      const overSocket = createClient({ apiKey: d.key, baseUrl: running.url, maxRetryDelayMs: 0 });
      expect(await overSocket.ping().withResponse()).toMatchObject({ status: 200, attempts: 2 });
    } finally {
      await running.close();
    }
  });

  it("a call's own headers go with every attempt; a User-Agent there replaces the client's", async () => {
    const d = await double();
    await d.admin.addFault({ kind: "internal", path: "/api/ping" });
    const wire = recording(d.server.fetch);
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: wire.fetch,
      maxRetryDelayMs: 0,
    });
    await client.ping({ headers: { "X-Trace-Id": "trace-42", "User-Agent": "orders/1.2" } });
    expect(
      wire.sent.map((s) => [s.headers.get("x-trace-id"), s.headers.get("user-agent")]),
    ).toEqual([
      ["trace-42", "orders/1.2"],
      ["trace-42", "orders/1.2"],
    ]);
    expect(wire.sent[0]?.headers.get("authorization")).toBe(`Bearer ${d.key}`);
  });

  it("a call's headers cannot replace Authorization, Idempotency-Key, Content-Type or X-Retry-Count: invalid_options, nothing sent", async () => {
    const d = await double();
    const wire = recording(d.server.fetch);
    const client = createClient({ apiKey: d.key, baseUrl: IN_PROCESS, fetch: wire.fetch });
    for (const name of ["Authorization", "idempotency-key", "Content-Type", "X-Retry-Count"]) {
      const error = await rejection(client.generations.create(BODY, { headers: { [name]: "x" } }));
      expect(error).toMatchObject({ code: "invalid_options" });
      expect((error as Error).message).toContain(`headers: ${name} is the client's own`);
    }
    const bad = await rejection(client.ping({ headers: { "x-note": "line\nbreak-SECRET" } }));
    expect(bad).toMatchObject({ code: "invalid_options" });
    expect((bad as Error).message).not.toContain("SECRET");
    expect(await rejection(client.ping({ headers: { "bad name": "x" } }))).toMatchObject({
      code: "invalid_options",
    });
    expect(wire.sent).toEqual([]);
  });

  it("in a page (with dangerouslyAllowBrowser) no User-Agent is set: the browser sends its own", async () => {
    const d = await double();
    const wire = recording(d.server.fetch);
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    const client = createClient({
      apiKey: d.key,
      baseUrl: IN_PROCESS,
      fetch: wire.fetch,
      dangerouslyAllowBrowser: true,
    });
    await client.ping();
    expect(wire.sent[0]?.headers.has("user-agent")).toBe(false);
    expect(wire.sent[0]?.headers.get("x-retry-count")).toBe("0");
  });
});
