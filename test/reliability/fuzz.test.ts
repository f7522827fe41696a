/**
 * Reliability: fuzzing the fetch handler. Whatever arrives (any method on any path, broken
 * Authorization headers, odd media types, arbitrary JSON, raw bytes, prototype keys, lone
 * surrogates, NUL bytes, deep nesting, bodies around the size limit), the answer is never 5xx, is
 * JSON with an error message when it is a failure, follows the check order of S12, and no credit
 * moves unless a task was accepted (S4, S13).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_BODY_BYTES } from "../../src/server/body.js";
import { BASE, checkAnswer, checkLedger, post, snapshot, world } from "./helpers.js";

const RUNS = fc.readConfigureGlobal().numRuns ?? 100;
/** Fuzz inputs are cheap (well under a millisecond each): ten times the configured runs. */
const FUZZ_RUNS = RUNS * 10;
const LIMIT = 4096;

const ROUTES: Record<string, string> = {
  "/api/generations": "POST",
  "/api/pricing/quote": "POST",
  "/api/ping": "GET",
  "/api/query/credits": "GET",
  "/openapi.json": "GET",
};

const METHODS = [
  "GET",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "HEAD",
  "OPTIONS",
  "PROPFIND",
  "M-SEARCH",
];

const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Object.keys(ROUTES)) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "/",
      "/api",
      "/api/generations/",
      "/API/ping",
      "/api/Generations",
      "/api/generations/job_1",
      "/api/pricing",
      "/api/query/credits/../ping",
      "/%00",
      "/api/ping%20",
      "/__proto__",
      "/constructor",
      "/api/generations;x",
    ),
  },
  { weight: 1, arbitrary: fc.webPath() },
);
const suffix = fc.constantFrom("", "", "?x=1", "?a=%00&b=%ZZ", "#frag", "?__proto__=1");

/** Content types with the verdict S12 gives them (true: JSON in UTF-8). */
const CONTENT_TYPES: [string | null, boolean][] = [
  ["application/json", true],
  ["application/json; charset=utf-8", true],
  ["APPLICATION/JSON;charset=UTF-8", true],
  ['application/json; charset="utf-8"', true],
  ["application/json; charset=utf8", true],
  ["application/json; boundary=x", true],
  [null, false],
  ["text/plain", false],
  ["text/plain; charset=utf-8", false],
  ["application/json; charset=latin1", false],
  ["application/json; charset=utf-16", false],
  ["application/jsonx", false],
  ["application/x-www-form-urlencoded", false],
  ["multipart/form-data; boundary=x", false],
  ["application/json, text/plain", false],
  ["", false],
  ["json", false],
];

type AuthCase = {
  kind: "valid" | "other" | "revoked" | "missing" | "invalid";
  header: (keys: Keys) => string | null;
};
type Keys = { own: string; other: string; revoked: string };

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const auth: fc.Arbitrary<AuthCase> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constant<AuthCase>({ kind: "valid", header: (k) => `Bearer ${k.own}` }),
  },
  {
    weight: 1,
    arbitrary: fc.constant<AuthCase>({ kind: "valid", header: (k) => `bEaReR ${k.own}` }),
  },
  {
    weight: 1,
    arbitrary: fc.constant<AuthCase>({ kind: "valid", header: (k) => `Bearer    ${k.own}   ` }),
  },
  {
    weight: 1,
    arbitrary: fc.constant<AuthCase>({ kind: "other", header: (k) => `Bearer ${k.other}` }),
  },
  {
    weight: 1,
    arbitrary: fc.constant<AuthCase>({ kind: "revoked", header: (k) => `Bearer ${k.revoked}` }),
  },
  { weight: 1, arbitrary: fc.constant<AuthCase>({ kind: "missing", header: () => null }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<AuthCase>(
      { kind: "missing", header: () => "" },
      { kind: "missing", header: () => "Bearer" },
      { kind: "missing", header: (k) => k.own },
      { kind: "missing", header: (k) => `Basic ${btoa(`${k.own}:`)}` },
      { kind: "missing", header: (k) => `Token ${k.own}` },
      { kind: "missing", header: (k) => `Bearer:${k.own}` },
      { kind: "invalid", header: () => "Bearer " },
      { kind: "invalid", header: (k) => `Bearer ${k.own} ${k.own}` },
      { kind: "invalid", header: (k) => `Bearer ${k.own}x` },
      { kind: "invalid", header: (k) => `Bearer ${k.own.slice(0, -1)}` },
      { kind: "invalid", header: (k) => `Bearer ${k.own.toUpperCase()}` },
      { kind: "invalid", header: (k) => `Bearer ${k.own.replace("ck_test_", "ck_live_")}` },
      { kind: "invalid", header: () => `Bearer ck_test_${"A".repeat(300)}` },
      { kind: "invalid", header: () => "Bearer ck_test_short" },
      { kind: "invalid", header: () => "Bearer ck_test_AAAAAAAAAAAAAAAA=" },
      { kind: "invalid", header: () => "Bearer ck_prod_AAAAAAAAAAAAAAAAAAAAAAAA" },
      { kind: "invalid", header: () => "Bearer __proto__" },
      { kind: "invalid", header: (k) => `Bearer "${k.own}"` },
      { kind: "invalid", header: (k) => `Bearer ${k.own}\u00e9` },
    ),
  },
  {
    weight: 1,
    arbitrary: printable.map(
      (s): AuthCase => ({ kind: /^bearer[ \t]/i.test(s) ? "invalid" : "missing", header: () => s }),
    ),
  },
);

const enc = new TextEncoder();
const deep = (n: number, open: string, close: string, inner = "1") =>
  `${open.repeat(n)}${inner}${close.repeat(n)}`;

/** A generation body that would be accepted (when the transport and the key are right). */
const validGeneration = fc.record({
  prompt: fc.string({ minLength: 1, maxLength: 20 }).map((s) => `p ${s}`),
  modelId: fc.constantFrom("beta", "beta2", "gamma-image-1.5", "alpha-img2-official"),
  imageCount: fc.integer({ min: 1, max: 4 }),
});

/** Bodies, as bytes, of every hostile kind. */
const body: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue().map((v) => enc.encode(JSON.stringify(v) ?? "null")) },
  { weight: 3, arbitrary: validGeneration.map((v) => enc.encode(JSON.stringify(v))) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        validGeneration,
        fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty"),
        fc.jsonValue(),
      )
      .map(([v, key, value]) =>
        enc.encode(`{"${key}":${JSON.stringify(value) ?? "null"},${JSON.stringify(v).slice(1)}`),
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '{"__proto__":{"prompt":"x","imageCount":1}}',
        '{"prompt":"x","constructor":{"prototype":{"polluted":true}}}',
        '{"kind":"image","modelId":"beta","__proto__":{"referenceImageCount":99}}',
        '{"prompt":"\\ud800"}',
        '{"prompt":"a\\udfff b"}',
        '{"prompt":"\\u0000"}',
        '{"prompt":"a\\u0000b","idempotencyKey":"\\u0000"}',
        '{"prompt":"x","inputAssetIds":["\\u0000"],"generationType":"image-to-image"}',
        '{"prompt":"x","idempotencyKey":"\\ud83d"}',
        '{"kind":"image","modelId":"\\ud800"}',
        "\u0000",
        '{"prompt":"x"}\u0000',
        "\ufeff{}",
        '{"prompt":"x",}',
        '{"prompt":"x"',
        "1e999999",
        "-0",
        '{"imageCount":1e308,"prompt":"x"}',
        '{"imageCount":-0,"prompt":"x"}',
        '{"prompt":"x","prompt":"y"}',
      )
      .map((s) => enc.encode(s)),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 1, max: 200_000 }),
        fc.constantFrom<[string, string]>(["[", "]"], ['{"a":', "}"]),
        fc.boolean(),
      )
      .map(([n, [open, close], wrap]) => {
        const text = deep(Math.min(n, open === "[" ? 200_000 : 1000), open, close);
        return enc.encode(wrap ? `{"prompt":${text},"inputAssetIds":${text}}` : text);
      }),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.integer({ min: 1, max: 3000 }),
        fc.constantFrom("modelId", "prompt", "inputAssetIds", "kind", "idempotencyKey"),
      )
      .map(([n, field]) => enc.encode(`{"${field}":${deep(n, '{"__proto__":', "}")}}`)),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 64 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      Uint8Array.of(0xed, 0xa0, 0x80), // a UTF-8-encoded lone surrogate (invalid UTF-8)
      Uint8Array.of(
        0x7b,
        0x22,
        0x70,
        0x72,
        0x6f,
        0x6d,
        0x70,
        0x74,
        0x22,
        0x3a,
        0x22,
        0xff,
        0x22,
        0x7d,
      ), // {"prompt":"\xff"}
      Uint8Array.of(0xc0, 0xaf),
      Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d),
      new Uint8Array(0),
    ),
  },
  {
    // just under, at and just over the limit: a valid generation padded with JSON whitespace
    weight: 2,
    arbitrary: fc.tuple(validGeneration, fc.integer({ min: -3, max: 3 })).map(([v, delta]) => {
      const text = JSON.stringify(v);
      return enc.encode(text + " ".repeat(LIMIT + delta - text.length));
    }),
  },
);

type Input = {
  method: string;
  path: string;
  suffix: string;
  auth: AuthCase;
  contentType: [string | null, boolean];
  body: Uint8Array;
  streamed: boolean;
};

const input: fc.Arbitrary<Input> = fc.record({
  method: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom("GET", "POST") },
    { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
  ),
  path,
  suffix,
  auth,
  contentType: fc.oneof(
    { weight: 3, arbitrary: fc.constant(CONTENT_TYPES[1] as [string, boolean]) },
    fc.constantFrom(...CONTENT_TYPES),
  ),
  body,
  streamed: fc.boolean(),
});

function toRequest(i: Input, keys: Keys): Request {
  const headers = new Headers();
  const authorization = i.auth.header(keys);
  if (authorization !== null) {
    headers.set("authorization", authorization);
  }
  if (i.contentType[0] !== null) {
    headers.set("content-type", i.contentType[0]);
  }
  const init: RequestInit & { duplex?: "half" } = { method: i.method, headers };
  if (i.method !== "GET" && i.method !== "HEAD") {
    if (i.streamed) {
      // No Content-Length: the limit must be found while reading, chunk by chunk.
      const bytes = i.body;
      init.body = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.length; at += 1000) {
            controller.enqueue(bytes.slice(at, at + 1000));
          }
          controller.close();
        },
      });
      init.duplex = "half";
    } else {
      init.body = i.body as Uint8Array<ArrayBuffer>;
    }
  }
  return new Request(`${BASE}${i.path}${i.suffix}`, init);
}

/** What S12 says the first failing check is, as far as the transport decides it (undefined: the body decides). */
function expectedStatus(i: Input): number | undefined {
  const method = ROUTES[i.path];
  if (method === undefined) {
    return 404;
  }
  if ((i.method === "HEAD" ? "GET" : i.method) !== method) {
    return 405;
  }
  if (i.path === "/openapi.json") {
    return 200;
  }
  if (i.auth.kind !== "valid" && i.auth.kind !== "other") {
    return 401;
  }
  if (method === "GET") {
    return 200;
  }
  if (!i.contentType[1]) {
    return 415;
  }
  if (i.body.length > LIMIT) {
    return 413;
  }
  return undefined;
}

describe("reliability: fuzzing the fetch handler (S1, S12, S13)", () => {
  it("S12/S13: any method, path, Authorization, media type and body: never 5xx, JSON errors in the S12 order, no credit moved without a 202", async () => {
    const { server, admin, users, logs } = await world(2, 1_000_000_000, { maxBodyBytes: LIMIT });
    const [me, other] = users as [(typeof users)[0], (typeof users)[0]];
    const revoked = await admin.createApiKey(me.userId);
    await admin.revokeApiKey(revoked.apiKeyId);
    const keys: Keys = { own: me.key, other: other.key, revoked: revoked.key };
    const seen = new Map<number, number>();

    await fc.assert(
      fc.asyncProperty(input, async (i) => {
        const before = [await snapshot(server, me.userId), await snapshot(server, other.userId)];
        const res = await server.fetch(toRequest(i, keys));
        const { status, body } = await checkAnswer(res, { head: i.method === "HEAD" });
        seen.set(status, (seen.get(status) ?? 0) + 1);
        const expected = expectedStatus(i);
        if (expected !== undefined) {
          expect(status).toBe(expected);
        } else {
          expect([200, 202, 400, 402, 409]).toContain(status);
        }
        if (status === 405) {
          expect(res.headers.get("allow")).toBe(
            ROUTES[i.path] === "GET" ? "GET, HEAD" : ROUTES[i.path],
          );
        }
        if (status === 401) {
          expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        }

        const after = [await snapshot(server, me.userId), await snapshot(server, other.userId)];
        // The caller is the key's own user; the other user is never touched.
        const payer = i.auth.kind === "other" ? 1 : 0;
        expect(after[1 - payer]).toEqual(before[1 - payer]);
        if (status === 202) {
          const cost = (body.billing as { totalCreditCost: number }).totalCreditCost;
          expect(after[payer]?.balance).toBe((before[payer]?.balance ?? 0) - cost);
          expect(after[payer]?.entries).toBe((before[payer]?.entries ?? 0) + 1);
          expect((body.billing as { balanceAfterCredits: number }).balanceAfterCredits).toBe(
            after[payer]?.balance,
          );
        } else {
          expect(after[payer]).toEqual(before[payer]); // S4: a rejected request moves nothing
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
    await checkLedger(server, me.userId);
    await checkLedger(server, other.userId);
    expect(logs).toEqual([]); // nothing reached the 500 path
    // The generator reaches every layer of S12, not just the first one.
    for (const status of [200, 202, 400, 401, 404, 405, 413, 415]) {
      expect(seen.get(status) ?? 0).toBeGreaterThan(0);
    }
  }, 60_000);

  it("S12: arbitrary JSON on both POST endpoints, valid key and media type: 200/202 or a JSON 400/402/409, never a lost credit", async () => {
    const { server, users, logs } = await world(1, 10_000_000);
    const me = users[0] as (typeof users)[0];
    const anything = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }),
      fc.dictionary(
        fc.constantFrom(
          "prompt",
          "modelId",
          "imageCount",
          "inputAssetIds",
          "generationType",
          "kind",
          "__proto__",
          "constructor",
          "cost",
        ),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      fc.object({ key: fc.string({ unit: "binary" }), values: [fc.string({ unit: "binary" })] }),
    );
    await fc.assert(
      fc.asyncProperty(
        anything,
        fc.constantFrom("/api/generations", "/api/pricing/quote"),
        async (value, route) => {
          const before = await snapshot(server, me.userId);
          const { status } = await checkAnswer(
            await post(server, route, me.key, JSON.stringify(value) ?? "null"),
          );
          expect(route === "/api/generations" ? [202, 400, 402, 409] : [200, 400]).toContain(
            status,
          );
          if (status !== 202) {
            expect(await snapshot(server, me.userId)).toEqual(before);
          }
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    await checkLedger(server, me.userId);
    expect(logs).toEqual([]);
  }, 60_000);

  it("S12: strings with lone surrogates and NUL bytes in every string field are answered, never 5xx", async () => {
    const { server, users, logs } = await world(1, 10_000_000);
    const me = users[0] as (typeof users)[0];
    const nasty = fc.oneof(
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom(
        "\ud800",
        "\udfff",
        "a\ud800b",
        "\u0000",
        "x\u0000",
        "\ud83d\u0000",
        " \ud800 ",
      ),
    );
    const field = fc.constantFrom(
      "prompt",
      "modelId",
      "aspectRatio",
      "resolution",
      "quality",
      "background",
      "idempotencyKey",
    );
    await fc.assert(
      fc.asyncProperty(field, nasty, async (name, value) => {
        const before = await snapshot(server, me.userId);
        const payload: Record<string, unknown> = { prompt: "a fox", modelId: "beta" };
        payload[name] = value;
        const { status } = await checkAnswer(
          await post(server, "/api/generations", me.key, payload),
        );
        expect([202, 400]).toContain(status);
        if (status !== 202) {
          expect(await snapshot(server, me.userId)).toEqual(before);
        }
        const quoted = await checkAnswer(
          await post(server, "/api/pricing/quote", me.key, { kind: "image", modelId: value }),
        );
        expect([200, 400]).toContain(quoted.status);
      }),
    );
    await checkLedger(server, me.userId);
    expect(logs).toEqual([]);
  }, 60_000);

  it("S12: the default limit: exactly at the limit is read, one byte over is 413, by Content-Length and streamed", async () => {
    const { server, users } = await world(1, 1000);
    const me = users[0] as (typeof users)[0];
    const text = JSON.stringify({ prompt: "a fox", modelId: "beta" });
    for (const size of [
      DEFAULT_MAX_BODY_BYTES - 1,
      DEFAULT_MAX_BODY_BYTES,
      DEFAULT_MAX_BODY_BYTES + 1,
      4 * DEFAULT_MAX_BODY_BYTES,
    ]) {
      const bytes = enc.encode(text + " ".repeat(size - text.length));
      for (const streamed of [false, true]) {
        const before = await snapshot(server, me.userId);
        const res = await server.fetch(
          toRequest(
            {
              method: "POST",
              path: "/api/generations",
              suffix: "",
              auth: { kind: "valid", header: (k) => `Bearer ${k.own}` },
              contentType: ["application/json", true],
              body: bytes,
              streamed,
            },
            { own: me.key, other: me.key, revoked: me.key },
          ),
        );
        const { status } = await checkAnswer(res);
        expect(status).toBe(size > DEFAULT_MAX_BODY_BYTES ? 413 : 202);
        const after = await snapshot(server, me.userId);
        expect(after.balance).toBe(before.balance - (status === 202 ? 25 : 0));
      }
    }
    await checkLedger(server, me.userId);
  }, 60_000);
});
