/**
 * Reliability: secrets. A key is stored only as its SHA-256 (S2), looked up by that digest and
 * never compared as text, and never comes back in a response, an error or a log line (S1), wherever
 * it is pasted.
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { HIDDEN } from "../../src/echo.js";
import type { LogEntry } from "../../src/server/index.js";
import type { Store } from "../../src/store/store.js";
import { makeServer, makeStore, wrapStore } from "../server/helpers.js";
import { BASE, checkAnswer, post } from "./helpers.js";

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** A store that records every call made to it (arguments and what it resolved to), as JSON text. */
async function recordingStore() {
  const base = await makeStore();
  const calls: { method: string; args: unknown[]; result: unknown }[] = [];
  const store = new Proxy(base, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (typeof value !== "function") {
        return value;
      }
      return async (...args: unknown[]) => {
        const result: unknown = await value.apply(target, args);
        calls.push({ method: String(prop), args, result });
        return result;
      };
    },
  }) as Store;
  const dump = () =>
    JSON.stringify(calls, (_k, v: unknown) =>
      typeof v === "function" ? `[fn ${(v as { name: string }).name}]` : v,
    );
  return { store, calls, dump };
}

/** Every place a key can be pasted into a request, besides the Authorization header. */
const placements: ((key: string) => { path: string; body: unknown })[] = [
  (k) => ({ path: "/api/generations", body: { prompt: "x", modelId: k } }),
  (k) => ({ path: "/api/generations", body: { prompt: "x", [k]: 1 } }),
  (k) => ({
    path: "/api/generations",
    body: { prompt: "x", quality: k, resolution: ` ${k} `, aspectRatio: k, background: k },
  }),
  (k) => ({ path: "/api/generations", body: { prompt: "x", generationType: k } }),
  (k) => ({
    path: "/api/generations",
    body: { prompt: "x", generationType: "image-to-image", inputAssetIds: [k, ` ${k}`] },
  }),
  (k) => ({ path: "/api/generations", body: { prompt: "x", imageCount: k } }),
  (k) => ({ path: "/api/generations", body: { prompt: "x", modelId: `${"z".repeat(30)}${k}` } }),
  (k) => ({ path: "/api/generations", body: k }),
  (k) => ({ path: "/api/generations", body: [k] }),
  (k) => ({ path: "/api/pricing/quote", body: { kind: k, modelId: "beta" } }),
  (k) => ({ path: "/api/pricing/quote", body: { kind: "image", modelId: k } }),
  (k) => ({
    path: "/api/pricing/quote",
    body: { kind: "image", modelId: "beta", quality: k, [k]: k },
  }),
  (k) => ({ path: `/api/${k}`, body: {} }),
  (k) => ({ path: `/api/generations?key=${k}`, body: { prompt: "x", modelId: k } }),
];

describe("reliability: secrets (S1, S2)", () => {
  const consoleLines: string[] = [];
  beforeEach(() => {
    for (const method of ["log", "info", "warn", "error", "debug"] as const) {
      vi.spyOn(console, method).mockImplementation(
        (...args: unknown[]) => void consoleLines.push(args.map(String).join(" ")),
      );
    }
  });
  afterEach(() => {
    vi.restoreAllMocks();
    consoleLines.length = 0;
  });

  it("S2: the store only ever receives a key's SHA-256, never the key; lookups are by digest", async () => {
    const { store, calls, dump } = await recordingStore();
    const server = await makeServer({ store });
    const { userId } = await server.admin.createUser({ credits: 1000 });
    const made = [
      await server.admin.createApiKey(userId),
      await server.admin.createApiKey(userId, { mode: "live" }),
    ];
    const revoked = await server.admin.createApiKey(userId);
    await server.admin.revokeApiKey(revoked.apiKeyId);
    for (const { key } of [...made, revoked]) {
      await checkAnswer(
        await server.fetch(
          new Request(`${BASE}/api/ping`, { headers: { authorization: `Bearer ${key}` } }),
        ),
      );
      await checkAnswer(
        await post(server, "/api/generations", key, {
          prompt: "a fox",
          modelId: "beta",
          idempotencyKey: "k1",
        }),
      );
      await checkAnswer(
        await post(server, "/api/pricing/quote", key, { kind: "image", modelId: "beta" }),
      );
    }
    const stored = calls
      .filter((c) => c.method === "putApiKey")
      .map((c) => c.args[0] as { id: string; hash: string });
    expect(stored).toHaveLength(3);
    for (const [i, { key, apiKeyId }] of [...made, revoked].entries()) {
      expect(stored.find((s) => s.id === apiKeyId)?.hash).toBe(sha256(key));
      expect(stored[i] && Object.values(stored[i] as object)).not.toContain(key);
    }
    const lookups = calls.filter((c) => c.method === "findCaller");
    expect(lookups.length).toBeGreaterThanOrEqual(9);
    for (const l of lookups) {
      expect(l.args[0]).toMatch(/^[0-9a-f]{64}$/);
    }
    const everything = dump();
    for (const { key } of [...made, revoked]) {
      expect(everything).not.toContain(key);
      expect(everything).not.toContain(key.slice(8)); // not even the random part
    }
    // Nor do the operator's views hold it.
    expect(
      JSON.stringify([await server.admin.ledger(userId), await server.admin.balance(userId)]),
    ).not.toContain(made[0]?.key.slice(8));
  }, 60_000);

  it("S2: a presented key is never compared as text: src/server holds no ===/!== or string comparison on a key or hash", () => {
    // Keys are hashed and the digest is a map lookup (docs/decisions.md, S2), so no comparison can
    // leak a key through its timing. This guards the design: a future `key === stored` fails here.
    const dir = join(import.meta.dirname, "../../src/server");
    const files: string[] = [];
    const walk = (d: string) => {
      for (const entry of readdirSync(d, { withFileTypes: true })) {
        if (entry.isDirectory()) {
          walk(join(d, entry.name));
        } else if (entry.name.endsWith(".ts")) {
          files.push(join(d, entry.name));
        }
      }
    };
    walk(dir);
    expect(files.length).toBeGreaterThan(10);
    const secret = String.raw`(?:\b(?:hash|digest|secret|credential\.key|apiKey|presented|stored)\b|\bkey\b(?!\.))`;
    const compare = new RegExp(
      String.raw`${secret}\s*(?:===|!==|==|!=|<|>)\s*(?!undefined\b|null\b|"|\d)|(?:===|!==|==|!=)\s*${secret}|${secret}\.(?:localeCompare|startsWith|endsWith)\(`,
    );
    const offenders: string[] = [];
    let scanned = 0;
    for (const file of files) {
      const source = readFileSync(file, "utf8");
      // only the files that handle keys or their hashes (router's "hash" is a URL fragment)
      if (!/hashApiKey|findCaller|ApiKeyRecord|readCredential/.test(source)) {
        continue;
      }
      scanned++;
      source.split("\n").forEach((line, i) => {
        const code = line.trim().replace(/typeof \w+ [!=]==/g, "");
        if (!code.startsWith("*") && !code.startsWith("//") && compare.test(code)) {
          offenders.push(`${file}:${i + 1}: ${code}`);
        }
      });
    }
    expect(offenders).toEqual([]);
    expect(scanned).toBeGreaterThanOrEqual(5);
    // The check would catch the comparison it guards against.
    expect(compare.test("if (stored.hash === hash) return key;")).toBe(true);
    expect(compare.test("return key === presented;")).toBe(true);
  }, 60_000);

  it("S1: a key pasted anywhere (header, path, query, any body field) is never echoed in a response, an error or a log line", async () => {
    const logs: LogEntry[] = [];
    const server = await makeServer({ log: (e) => logs.push(e) });
    const { userId } = await server.admin.createUser({ credits: 100_000 });
    const own = await server.admin.createApiKey(userId);
    const live = await server.admin.createApiKey(userId, { mode: "live" });
    const revoked = await server.admin.createApiKey(userId);
    await server.admin.revokeApiKey(revoked.apiKeyId);
    const secrets = [own.key, live.key, revoked.key];
    // The key as sent, and disguised: another script, other separators or none, a blank inside, encoded.
    const disguise = (k: string, prefix: string) => prefix + k.slice(8);
    const variants = (k: string) => [
      k,
      `${k}x`,
      k.slice(0, -1),
      k.replace("ck_test_", "ck_live_"),
      k.toLowerCase(),
      ` ${k} `,
      disguise(k, "ск_test_"),
      disguise(k, "ck.test."),
      disguise(k, "cktest"),
      disguise(k, "ck_te\u2800st_"),
      disguise(k, "ck%5Ftest%5F"),
      disguise(k, "ck\\u005ftest\\u005f"),
    ];

    let answers = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...secrets),
        fc.constantFrom(...secrets),
        fc.nat({ max: placements.length - 1 }),
        fc.nat({ max: 11 }),
        async (authKey, pasted, where, variant) => {
          const k = variants(pasted)[variant] as string;
          const { path, body } = (placements[where] as (typeof placements)[0])(k);
          // A header carries Latin-1 only: a disguise in another script goes in the path and body.
          const headers = [`Bearer ${authKey}`, `Bearer ${k}`, `Basic ${k}`, k].filter((h) =>
            /^[\x20-\xff]*$/.test(h),
          );
          for (const header of headers) {
            const res = await server.fetch(
              new Request(BASE + path, {
                method: "POST",
                headers: { authorization: header, "content-type": "application/json" },
                body: JSON.stringify(body),
              }),
            );
            answers++;
            let text = await res.text();
            res.headers.forEach((value, name) => {
              text += `\n${name}: ${value}`;
            });
            expect(res.status).toBeLessThan(500);
            for (const s of secrets) {
              expect(text).not.toContain(s.slice(8, 24));
            }
          }
        },
      ),
    );
    expect(answers).toBeGreaterThanOrEqual(fc.readConfigureGlobal().numRuns ?? 100);
    // Admin errors (an operator pasting a key where an id goes) show only the prefix. One call at a
    // time: a call made before the previous one is awaited could reject with no handler yet.
    for (const call of [
      () => server.admin.revokeApiKey(own.key),
      () => server.admin.failJob(own.key),
      () => server.admin.task(own.key),
      () => server.admin.job(own.key),
      () => server.admin.balance(own.key),
      () => server.admin.createApiKey(own.key),
    ]) {
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(String((error as Error).message)).toMatch(/ck_test_\.\.\./);
      expect(String((error as Error).message)).not.toContain(own.key.slice(8, 24));
    }
    expect(logs).toEqual([]);
    for (const line of consoleLines) {
      for (const s of secrets) {
        expect(line).not.toContain(s.slice(8, 24));
      }
    }
  }, 60_000);

  it("S1: regression: a key pasted into a model id, a field name or a quote's kind came back whole in the error (now hidden)", async () => {
    const server = await makeServer();
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    for (const [path, body] of [
      ["/api/generations", { prompt: "x", modelId: key }],
      ["/api/generations", { prompt: "x", [key]: 1 }],
      ["/api/generations", { prompt: "x", quality: key }],
      ["/api/pricing/quote", { kind: key, modelId: "beta" }],
      ["/api/pricing/quote", { kind: "image", modelId: key }],
    ] as const) {
      const { text } = await checkAnswer(await post(server, path, key, body));
      expect(text).not.toContain(key.slice(8));
      expect(text).toContain(HIDDEN);
    }
  }, 60_000);

  it("S1/S12: when the server does fail, the log line and the 500 carry neither the key nor the body", async () => {
    const logs: LogEntry[] = [];
    const store = wrapStore(await makeStore(), {
      commitTask: async () => {
        throw new TypeError("store offline");
      },
    });
    const server = await makeServer({ store, log: (e) => logs.push(e) });
    const { userId } = await server.admin.createUser({ credits: 100 });
    const { key } = await server.admin.createApiKey(userId);
    const res = await post(server, "/api/generations", key, {
      prompt: `secret prompt ${key}`,
      modelId: "beta",
      idempotencyKey: key,
    });
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text).error.message).toMatch(/nothing was charged/);
    expect(text).not.toContain(key.slice(8));
    expect(logs).toHaveLength(1);
    expect(JSON.stringify(logs)).not.toContain(key.slice(8));
    expect(JSON.stringify(logs)).not.toContain("secret prompt");
    expect(await server.admin.balance(userId)).toBe(100);
    expect(await server.admin.ledger(userId)).toHaveLength(1);

    // The default logger writes one JSON line on console.error, with the same guarantees.
    const quiet = await makeServer({ store });
    const user = await quiet.admin.createUser({ credits: 100 });
    const other = await quiet.admin.createApiKey(user.userId);
    expect(
      (await post(quiet, "/api/generations", other.key, { prompt: other.key, modelId: "beta" }))
        .status,
    ).toBe(500);
    expect(consoleLines).toHaveLength(1);
    expect(JSON.parse(consoleLines[0] as string).error.message).toBe("store offline");
    expect(consoleLines[0]).not.toContain(other.key.slice(8));
  }, 60_000);
});
