/**
 * A key pasted with a disguised prefix (other scripts, other separators, none, blanks or marks
 * inside, percent- or JSON-escaped) never comes back (S1, S15): not in a 400 naming an unknown
 * field, not in a 404 naming the path, not in the line `serve --log` writes.
 */
import { describe, expect, it } from "vitest";
import { requestLine } from "../../src/cli/serveOutput.js";
import { HIDDEN } from "../../src/echo.js";
import type { ResponseEvent } from "../../src/server/index.js";
import { BASE, setup } from "./helpers.js";

const SECRET = "Qx7_-mN2pL9sT4vW8yZ1aB3cD5eF6gH0";
const hex = (c: string) => c.charCodeAt(0).toString(16).padStart(2, "0");

const percent = (text: string) => [...text].map((c) => `%${hex(c)}`).join("");
const escaped = (text: string) => [...text].map((c) => `\\u00${hex(c)}`).join("");

/** Each disguise: its name, the key so disguised, and the secret as it is written in it. */
const DISGUISES: [string, string, string][] = [
  ["Cyrillic letters", `ск_test_${SECRET}`, SECRET],
  ["a Greek letter", `cκ_test_${SECRET}`, SECRET],
  ["dots", `ck.test.${SECRET}`, SECRET],
  ["slashes", `ck/test/${SECRET}`, SECRET],
  ["colons", `ck:test:${SECRET}`, SECRET],
  ["no separator", `cktest${SECRET}`, SECRET],
  ["a space inside", `ck_te st_${SECRET}`, SECRET],
  ["a tab inside", `ck_te\tst_${SECRET}`, SECRET],
  ["a Braille blank inside", `ck_\u2800test_${SECRET}`, SECRET],
  ["a combining mark inside", `ck_te\u0301st_${SECRET}`, SECRET],
  ["percent-encoded underscores", `ck%5Ftest%5F${SECRET}`, SECRET],
  ["percent-encoded whole", percent(`ck_test_${SECRET}`), percent(SECRET)],
  ["JSON-escaped underscores", `ck\\u005ftest\\u005f${SECRET}`, SECRET],
  ["JSON-escaped whole", escaped(`ck_test_${SECRET}`), escaped(SECRET)],
];

/** Neither the secret nor the form it is written in, as a whole or in any 6-character piece. */
function expectNoSecret(text: string, written: string, where: string) {
  for (const source of [SECRET, written]) {
    for (let i = 0; i + 6 <= source.length; i++) {
      expect(text, where).not.toContain(source.slice(i, i + 6));
    }
  }
}

/** A server with one user and key that keeps what its `onResponse` is told (what `serve --log` prints). */
async function logged(options: Parameters<typeof setup>[0] = {}) {
  const events: ResponseEvent[] = [];
  const s = await setup({ ...options, onResponse: (event) => events.push(event) });
  /** GETs a path with a key; answers the status, the body and what `onResponse` was told. */
  const get = async (path: string, key = s.key) => {
    const res = await s.server.fetch(
      new Request(BASE + path, { headers: { authorization: `Bearer ${key}` } }),
    );
    return { status: res.status, text: await res.text(), event: events.at(-1) as ResponseEvent };
  };
  return { ...s, get };
}

describe("disguised keys are never echoed (S1, S15)", () => {
  it.each(DISGUISES)(
    "S1, S15: a key with %s is not echoed by a 400 naming it as a field, a 404 naming it in the path, or --log",
    async (_, disguised, written) => {
      const { post, get } = await logged();

      // (1) an unknown field named by the key, on both endpoints that name unknown fields
      for (const [path, body] of [
        ["/api/generations", { prompt: "x", [disguised]: 1, imageCount: 1 }],
        ["/api/pricing/quote", { kind: "image", modelId: "beta", [disguised]: 1 }],
        ["/api/generations", { prompt: "x", modelId: disguised }],
      ] as const) {
        const res = await post(path, body);
        expect(res.status).toBe(400);
        const text = await res.text();
        expectNoSecret(text, written, `400 ${path}`);
        expect(text).toContain(HIDDEN);
      }

      // (2) the path of a 404, as a Request (and `serve()`, which makes one) hands it over
      const missing = await get(`/api/nothing/${disguised}`);
      expect(missing.status).toBe(404);
      expectNoSecret(missing.text, written, "404");
      // A URL reads each backslash as a slash: the JSON-escaped secret is already broken up, nothing left to hide.
      const broken = written.includes("\\");
      if (!broken) {
        expect(JSON.parse(missing.text).error.message).toContain(HIDDEN);
      }

      // (3) the line `serve --log` writes for it, as text and as JSON
      for (const json of [false, true]) {
        const line = requestLine(missing.event, json);
        expectNoSecret(line, written, "--log");
        if (!broken) {
          expect(line).toContain(HIDDEN);
        }
      }
    },
  );

  it("S1, S15: ordinary values are still named readably: a short unknown field and a short 404 path", async () => {
    const { post, get } = await logged();
    const res = await post("/api/generations", { prompt: "x", foo: 1 });
    const error = (await res.json()).error;
    expect(error.issues[0]).toMatchObject({ path: "foo", code: "unknown_field" });
    expect(error.issues[0].message).toContain('Field "foo" is not part of a generation request');
    const missing = await get("/api/nothing/here");
    expect(JSON.parse(missing.text).error.message).toBe(
      'There is no endpoint at "/api/nothing/here".',
    );
    expect(requestLine(missing.event, false)).toMatch(
      /^GET \/api\/nothing\/here 404 \d+\.\dms req_/,
    );
  });

  it("S1: an admin token put in a path is neither echoed by the 404 nor logged", async () => {
    const token = "admin-token-for-tests-0123";
    const { key, get } = await logged({ adminToken: token });
    for (const path of [`/api/${token}`, `/admin/${token}`, `/${token}/x`]) {
      const out = await get(path, path.startsWith("/admin/") ? token : key);
      expect(out.status).toBe(404);
      expect(out.text).not.toContain(token.slice(0, 12));
      expect(requestLine(out.event, false)).not.toContain(token.slice(0, 12));
    }
  });
});
