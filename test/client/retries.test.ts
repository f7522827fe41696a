/**
 * What the client retries and how long it waits, against a scripted fetch: which failures and
 * statuses are retried, one key on every attempt, `Retry-After` and the backoff, the attempt's
 * time limit and the caller's abort. Waits are read from the `onRetry` hook or run on fake timers.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type ClientOptions,
  createClient,
  ImagegenError,
  type RetryEvent,
} from "../../src/client/index.js";
import { IN_PROCESS, rejection } from "./helpers.js";

const KEY = "ck_test_retries_0000000000000001";
const BODY = { prompt: "a fox", modelId: "beta2" } as const;
const ACCEPTED = {
  batch: {
    taskId: "task_1",
    request: {
      imageCount: 1,
      modelId: "beta2",
      aspectRatio: "1:1",
      resolution: "1K",
      prompt: "a fox",
    },
    results: [{ job: { id: "job_1", status: "queued" }, assets: [] }],
    totalCreditCost: 80,
    balanceAfterCredits: 920,
  },
  billing: { totalCreditCost: 80, balanceAfterCredits: 920 },
};
const PING = {
  ok: true,
  service: "imagegen-pricing-reference",
  authProvider: "api_key",
  userId: "usr_1",
  apiKeyId: "apk_1",
};

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "request-id": "req_1", ...headers },
  });
const failed = (status: number, code: string, headers: Record<string, string> = {}) =>
  json(status, { error: { code, message: `failed with ${status}`, requestId: "req_1" } }, headers);

/** A step of a scripted service: an answer, an error to reject with, or no answer at all. */
type Step = Response | Error | "hang";

/** A fetch that answers each attempt with the next step, keeping what each attempt sent. */
function scripted(steps: Step[]) {
  const sent: { request: Request; body: string }[] = [];
  const fetch = vi.fn(async (request: Request) => {
    const entry = { request, body: "" };
    sent.push(entry);
    entry.body = await request.clone().text();
    const step = steps.shift();
    if (step === undefined) {
      throw new Error("no more steps");
    }
    if (step === "hang") {
      return new Promise<Response>(() => {});
    }
    if (step instanceof Error) {
      throw step;
    }
    return step;
  });
  return { fetch, sent };
}

function clientWith(
  fetch: (request: Request) => Promise<Response>,
  options: Partial<ClientOptions> = {},
) {
  const retries: RetryEvent[] = [];
  const client = createClient({
    apiKey: KEY,
    baseUrl: IN_PROCESS,
    fetch,
    maxRetryDelayMs: 0,
    onRetry: (event) => retries.push(event),
    ...options,
  });
  return { client, retries };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe("what is retried", () => {
  it.each([
    ["a network failure", new TypeError("fetch failed")],
    ["408", failed(408, "request_timeout")],
    ["429", failed(429, "rate_limited")],
    ["500", failed(500, "internal_error")],
    ["502", failed(502, "bad_gateway")],
    ["503", failed(503, "service_unavailable")],
    ["504", failed(504, "gateway_timeout")],
    ["a 2xx whose body is not JSON", new Response("<html>", { status: 202 })],
  ])(
    "S5: %s is retried with the same key, header and body, and the retry's answer resolves the create",
    async (_, first) => {
      const { fetch, sent } = scripted([first, json(202, ACCEPTED)]);
      const { client, retries } = clientWith(fetch);
      expect(await client.generations.create(BODY)).toEqual(ACCEPTED);
      expect(sent).toHaveLength(2);
      const keys = sent.map((s) => s.request.headers.get("idempotency-key"));
      expect(keys[0]).toBeTruthy();
      expect(keys[1]).toBe(keys[0]);
      expect(sent.map((s) => JSON.parse(s.body).idempotencyKey)).toEqual(keys);
      expect(sent[1]?.body).toBe(sent[0]?.body);
      expect(retries).toHaveLength(1);
      expect(retries[0]).toMatchObject({
        attempt: 1,
        method: "POST",
        path: "/api/generations",
        idempotencyKey: keys[0],
      });
    },
  );

  it("a body cut short (the stream fails while it is read) is a connection that closed without an answer: retried", async () => {
    const broken = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"batch":'));
        controller.error(new Error("socket hang up"));
      },
    });
    const { fetch, sent } = scripted([new Response(broken, { status: 202 }), json(202, ACCEPTED)]);
    const { client, retries } = clientWith(fetch);
    expect(await client.generations.create(BODY)).toEqual(ACCEPTED);
    expect(sent).toHaveLength(2);
    expect(retries[0]?.error.code).toBe("connection_error");
  });

  it.each([400, 401, 402, 403, 404, 405, 409, 413, 415, 422])(
    "S12: %i is not retried: one attempt, the answer's error",
    async (status) => {
      const { fetch } = scripted([failed(status, `code_${status}`)]);
      const { client, retries } = clientWith(fetch);
      const error = await rejection(client.generations.create(BODY));
      expect(error).toMatchObject({
        code: `code_${status}`,
        status,
        attempts: 1,
        requestId: "req_1",
      });
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(retries).toEqual([]);
    },
  );

  it("retries that run out give the last answer's error, saying how many attempts were made", async () => {
    const { fetch } = scripted([
      failed(500, "internal_error"),
      failed(502, "bad_gateway"),
      failed(503, "service_unavailable"),
    ]);
    const { client } = clientWith(fetch);
    const error = await rejection(client.ping());
    expect(error).toBeInstanceOf(ImagegenError);
    expect(error).toMatchObject({ code: "service_unavailable", status: 503, attempts: 3 });
    expect((error as Error).message).toBe("failed with 503 (gave up after 3 attempts)");
  });

  it("maxRetries bounds the attempts, on the client and per call; 0 sends once", async () => {
    const always = () =>
      scripted(Array.from({ length: 20 }, () => failed(503, "service_unavailable")));
    const a = always();
    await rejection(clientWith(a.fetch, { maxRetries: 5 }).client.credits());
    expect(a.fetch).toHaveBeenCalledTimes(6);
    const b = always();
    await rejection(clientWith(b.fetch, { maxRetries: 5 }).client.credits({ maxRetries: 0 }));
    expect(b.fetch).toHaveBeenCalledTimes(1);
    const c = always();
    await rejection(clientWith(c.fetch).client.credits());
    expect(c.fetch).toHaveBeenCalledTimes(3);
  });

  it("a failure after retries that is not retryable ends the call at once", async () => {
    const { fetch } = scripted([
      failed(503, "service_unavailable"),
      failed(402, "insufficient_credits"),
      json(202, ACCEPTED),
    ]);
    const error = await rejection(clientWith(fetch).client.generations.create(BODY));
    expect(error).toMatchObject({ code: "insufficient_credits", status: 402, attempts: 2 });
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it("an onRetry hook that throws changes nothing", async () => {
    const { fetch } = scripted([failed(503, "service_unavailable"), json(202, ACCEPTED)]);
    const client = createClient({
      apiKey: KEY,
      baseUrl: IN_PROCESS,
      fetch,
      maxRetryDelayMs: 0,
      onRetry: () => {
        throw new Error("a bug in the hook");
      },
    });
    expect(await client.generations.create(BODY)).toEqual(ACCEPTED);
  });
});

describe("how long it waits", () => {
  it("Retry-After (seconds or an HTTP date) and retry-after-ms are waited as asked, within maxRetryDelayMs", async () => {
    vi.useFakeTimers({ now: Date.parse("2030-01-01T00:00:00Z") });
    const { fetch } = scripted([
      failed(503, "service_unavailable", { "retry-after": "3" }),
      failed(429, "rate_limited", { "retry-after-ms": "250", "retry-after": "9" }),
      failed(503, "service_unavailable", { "retry-after": "Tue, 01 Jan 2030 00:00:05 GMT" }),
      failed(503, "service_unavailable", { "retry-after": "10" }),
      json(200, PING),
    ]);
    const { client, retries } = clientWith(fetch, { maxRetries: 4, maxRetryDelayMs: 10_000 });
    const done = client.ping();
    await vi.advanceTimersByTimeAsync(2999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(250);
    expect(fetch).toHaveBeenCalledTimes(3);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await done).toEqual(PING);
    // The date is 5 s after the clock's start, read 3.25 s in; 10 s is the cap itself.
    expect(retries.map((r) => r.delayMs)).toEqual([3000, 250, 1750, 10_000]);
    expect(retries[0]?.error.retryAfterMs).toBe(3000);
  });

  it("a Retry-After above maxRetryDelayMs is not retried: the call rejects at once with the wait asked as retryAfterMs", async () => {
    for (const [headers, asked] of [
      [{ "retry-after": "3600" }, 3_600_000],
      [{ "retry-after-ms": "10001" }, 10_001],
    ] as const) {
      const { fetch } = scripted([
        failed(503, "service_unavailable", headers),
        json(202, ACCEPTED),
      ]);
      const { client, retries } = clientWith(fetch, { maxRetryDelayMs: 10_000 });
      const error = (await rejection(
        client.generations.create(BODY, { idempotencyKey: "order-9" }),
      )) as ImagegenError;
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(retries).toEqual([]);
      expect(error).toMatchObject({
        code: "service_unavailable",
        status: 503,
        attempts: 1,
        retryAfterMs: asked,
        idempotencyKey: "order-9",
        requestId: "req_1",
      });
      expect(error.message).toContain(`asked to wait ${asked} ms, more than maxRetryDelayMs 10000`);
      expect(error.message).toContain('idempotencyKey "order-9"');
    }
    // With maxRetryDelayMs 0 (never wait), a service asking for any wait ends the call at once.
    const { fetch } = scripted([failed(429, "rate_limited", { "retry-after": "1" })]);
    const error = (await rejection(clientWith(fetch).client.ping())) as ImagegenError;
    expect(error).toMatchObject({ code: "rate_limited", attempts: 1, retryAfterMs: 1000 });
  });

  it("without Retry-After: exponential backoff from 500 ms, less up to a quarter at random, capped by maxRetryDelayMs", async () => {
    const steps = () => Array.from({ length: 6 }, () => failed(500, "internal_error"));
    const run = async (random: number, maxRetryDelayMs: number) => {
      vi.spyOn(Math, "random").mockReturnValue(random);
      vi.useFakeTimers();
      const { fetch } = scripted(steps());
      const { client, retries } = clientWith(fetch, { maxRetries: 5, maxRetryDelayMs });
      const done = rejection(client.credits());
      await vi.runAllTimersAsync();
      await done;
      vi.useRealTimers();
      vi.restoreAllMocks();
      return retries.map((r) => r.delayMs);
    };
    expect(await run(0, 10_000)).toEqual([500, 1000, 2000, 4000, 8000]);
    expect(await run(0.5, 10_000)).toEqual([437.5, 875, 1750, 3500, 7000]);
    expect(await run(0, 1500)).toEqual([500, 1000, 1500, 1500, 1500]);
    expect(await run(0, 0)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("the attempt's time limit and the caller's abort", () => {
  it("an attempt with no answer within timeoutMs is given up and retried with the same key", async () => {
    vi.useFakeTimers();
    const { fetch, sent } = scripted(["hang", json(202, ACCEPTED)]);
    const { client, retries } = clientWith(fetch, { timeoutMs: 5000 });
    const done = client.generations.create(BODY);
    await vi.advanceTimersByTimeAsync(4999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await done).toEqual(ACCEPTED);
    expect(retries[0]?.error).toMatchObject({
      code: "timeout",
      message: "No answer to POST /api/generations within 5000 ms.",
    });
    expect(sent[1]?.request.headers.get("idempotency-key")).toBe(
      sent[0]?.request.headers.get("idempotency-key"),
    );
  });

  it("with the global fetch, an attempt given up on (time or abort) is aborted too, so that its connection closes", async () => {
    vi.useFakeTimers();
    const signals: AbortSignal[] = [];
    vi.stubGlobal("fetch", (_url: string, init: RequestInit) => {
      signals.push(init.signal as AbortSignal);
      return new Promise<Response>(() => {});
    });
    const client = createClient({
      apiKey: KEY,
      baseUrl: IN_PROCESS,
      timeoutMs: 100,
      maxRetries: 1,
      maxRetryDelayMs: 0,
    });
    const timedOut = rejection(client.ping());
    await vi.advanceTimersByTimeAsync(100);
    expect(signals.map((s) => s.aborted)).toEqual([true, false]);
    await vi.advanceTimersByTimeAsync(100);
    expect(await timedOut).toMatchObject({ code: "timeout", attempts: 2 });
    expect(signals.map((s) => s.aborted)).toEqual([true, true]);

    const controller = new AbortController();
    const aborted = rejection(client.ping({ signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(await aborted).toMatchObject({ code: "aborted", attempts: 1 });
    expect(signals.at(-1)?.aborted).toBe(true);
  });

  it("timeouts that run out are a timeout error; a call's own timeoutMs overrides the client's", async () => {
    vi.useFakeTimers();
    const { fetch } = scripted(["hang", "hang"]);
    const { client } = clientWith(fetch, { timeoutMs: 60_000, maxRetries: 1 });
    const done = rejection(client.credits({ timeoutMs: 100 }));
    await vi.advanceTimersByTimeAsync(200);
    expect(await done).toMatchObject({ code: "timeout", attempts: 2, status: undefined });
  });

  it("a signal aborted before the call sends nothing", async () => {
    const { fetch } = scripted([json(200, PING)]);
    const error = await rejection(clientWith(fetch).client.ping({ signal: AbortSignal.abort() }));
    expect(error).toMatchObject({ code: "aborted", attempts: 0 });
    expect(fetch).not.toHaveBeenCalled();
  });

  it("an abort during an attempt ends the call at once, not retried, and a create's error says which key to create again with", async () => {
    const { fetch, sent } = scripted(["hang", json(202, ACCEPTED)]);
    const controller = new AbortController();
    const { client } = clientWith(fetch);
    const done = rejection(
      client.generations.create(BODY, { signal: controller.signal, idempotencyKey: "order-77" }),
    );
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    controller.abort();
    const error = await done;
    expect(error).toMatchObject({ code: "aborted", attempts: 1, idempotencyKey: "order-77" });
    expect((error as Error).message).toContain('create again with idempotencyKey "order-77"');
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(sent).toHaveLength(1);
  });

  it("an abort during the wait between attempts ends the call at once", async () => {
    vi.useFakeTimers();
    const { fetch } = scripted([
      failed(503, "service_unavailable", { "retry-after": "30" }),
      json(200, PING),
    ]);
    const controller = new AbortController();
    const { client } = clientWith(fetch, { maxRetryDelayMs: 60_000 });
    const done = rejection(client.ping({ signal: controller.signal }));
    await vi.advanceTimersByTimeAsync(1000);
    controller.abort();
    expect(await done).toMatchObject({ code: "aborted", attempts: 1 });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});

describe("createClient's options", () => {
  const base = { apiKey: KEY, baseUrl: "https://api.example.com" };
  const refusal = (options: unknown) => {
    try {
      createClient(options as ClientOptions);
    } catch (error) {
      expect(error).toBeInstanceOf(ImagegenError);
      return error as ImagegenError;
    }
    throw new Error("expected createClient to throw");
  };

  it("each bad option is invalid_options naming it and the values that would pass; the key is never shown", () => {
    const secret = "ck_live_not a valid key 123456";
    const bad = refusal({ ...base, apiKey: secret });
    expect(bad.code).toBe("invalid_options");
    expect(bad.message).toMatch(/^apiKey must be an API key: ck_live_ or ck_test_/);
    expect(bad.message).not.toContain("not a valid key");
    expect(refusal({ ...base, apiKey: undefined }).message).toContain("received undefined");
    expect(refusal({ ...base, baseUrl: "api.example.com" }).message).toMatch(
      /^baseUrl must be an absolute http or https URL/,
    );
    expect(refusal({ ...base, baseUrl: "ftp://example.com" }).code).toBe("invalid_options");
    expect(refusal({ ...base, baseUrl: "https://example.com/?a=1" }).code).toBe("invalid_options");
    expect(refusal({ ...base, maxRetries: 11 }).message).toBe(
      "maxRetries must be a whole number from 0 to 10; received 11.",
    );
    expect(refusal({ ...base, maxRetries: 1.5 }).message).toContain("from 0 to 10");
    expect(refusal({ ...base, timeoutMs: 0 }).message).toMatch(
      /^timeoutMs must be a whole number from 1 to/,
    );
    expect(refusal({ ...base, maxRetryDelayMs: -1 }).message).toMatch(
      /^maxRetryDelayMs must be a whole number from 0 to/,
    );
    expect(refusal({ ...base, fetch: "fetch" }).message).toBe("fetch must be a function.");
    expect(refusal(null).message).toContain("{ apiKey, baseUrl }");
  });

  it("a bad per-call option rejects the call (never throws), naming the option; nothing is sent", async () => {
    const { fetch } = scripted([json(200, PING)]);
    const client = createClient({ ...base, fetch });
    const pending = client.ping({ timeoutMs: -5 });
    expect(pending).toBeInstanceOf(Promise);
    expect(await rejection(pending)).toMatchObject({
      code: "invalid_options",
      message: expect.stringMatching(/^timeoutMs must be/),
    });
    expect(await rejection(client.generations.create(BODY, { maxRetries: 99 }))).toMatchObject({
      code: "invalid_options",
    });
    expect(fetch).not.toHaveBeenCalled();
  });

  it("a fetch that throws rather than rejects fails the attempt like a network failure: retried", async () => {
    let calls = 0;
    const fetch = () => {
      calls++;
      if (calls === 1) {
        throw new TypeError("a bug in the caller's fetch");
      }
      return Promise.resolve(json(202, ACCEPTED));
    };
    const { client, retries } = clientWith(fetch);
    expect(await client.generations.create(BODY)).toEqual(ACCEPTED);
    expect(retries[0]?.error).toMatchObject({
      code: "connection_error",
      cause: expect.any(TypeError),
    });
  });

  it("a base URL's path prefix and trailing slash are kept right: every call goes under it", async () => {
    const { fetch, sent } = scripted([json(200, PING)]);
    await createClient({ apiKey: KEY, baseUrl: "https://api.example.com/v1/", fetch }).ping();
    expect(sent[0]?.request.url).toBe("https://api.example.com/v1/api/ping");
    expect(sent[0]?.request.headers.get("authorization")).toBe(`Bearer ${KEY}`);
  });

  it("in a page (window and document defined) it refuses without dangerouslyAllowBrowser, and runs with it", () => {
    vi.stubGlobal("window", {});
    vi.stubGlobal("document", {});
    const error = refusal(base);
    expect(error.code).toBe("browser_not_allowed");
    expect(error.message).toContain("dangerouslyAllowBrowser: true");
    expect(createClient({ ...base, dangerouslyAllowBrowser: true }).generations).toBeDefined();
    vi.unstubAllGlobals();
    vi.stubGlobal("window", {});
    expect(createClient(base).generations).toBeDefined();
  });

  it("without a fetch option it uses globalThis.fetch as it is at each call, with the URL and the request's parts", async () => {
    const client = createClient(base);
    const fetch = vi.fn(async (_url: string, _init: RequestInit) => json(200, PING));
    vi.stubGlobal("fetch", fetch);
    expect(await client.ping()).toEqual(PING);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] as [string, RequestInit];
    expect(url).toBe("https://api.example.com/api/ping");
    expect(init).toMatchObject({ method: "GET", headers: { authorization: `Bearer ${KEY}` } });
  });
});
