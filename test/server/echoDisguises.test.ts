/**
 * A key pasted with a disguised prefix (other scripts, other separators, none, blanks or marks
 * inside, percent- or JSON-escaped) never comes back (S1, S15): not in a 400 naming an unknown
 * field, not in a 404 naming the path, not in the line `serve --log` writes.
 */
import { describe, expect, it } from "vitest";
import { requestLine } from "../../src/cli/serve.js";
import { HIDDEN } from "../../src/echo.js";
import { bindingOf, type ReferenceServer } from "../../src/server/createReferenceServer.js";
import type { Incoming } from "../../src/server/http/incoming.js";
import type { Outgoing } from "../../src/server/http/respond.js";
import type { ResponseEvent } from "../../src/server/index.js";
import { BASE, setup } from "./helpers.js";

/** A request answered as `serve()` hands it over: the path exactly as sent, not resolved by a `Request`. */
async function respond(server: ReferenceServer, request: Incoming): Promise<Outgoing> {
  const binding = bindingOf(server);
  if (!binding) throw new Error("a reference server has a binding");
  return binding.answer(request);
}

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
    for (let i = 0; i + 6 <= source.length; i++) expect(text, where).not.toContain(source.slice(i, i + 6));
  }
}

/** A request as the Node adapter hands it over: the path exactly as sent. */
const incoming = (path: string, key: string): Incoming => ({
  method: "GET",
  path,
  header: (name) => (name === "authorization" ? `Bearer ${key}` : null),
  readBody: async () => new Uint8Array(0),
});

/** What the server's `onResponse` tells of an answered request. */
const answered = (request: Incoming, out: Outgoing, ms: number): ResponseEvent => ({
  method: request.method,
  path: request.path,
  status: out.status,
  requestId: out.headers["request-id"] ?? "",
  ms,
});

describe("disguised keys are never echoed (S1, S15)", () => {
  it.each(DISGUISES)(
    "S1, S15: a key with %s is not echoed by a 400 naming it as a field, a 404 naming it in the path, or --log",
    async (_, disguised, written) => {
      const { server, key, post } = await setup();

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

      // (2) the path of a 404, given exactly as sent and through a Request
      const raw = await respond(server, incoming(`/api/nothing/${disguised}`, key));
      expect(raw.status).toBe(404);
      expectNoSecret(raw.body, written, "404");
      expect(JSON.parse(raw.body).error.message).toContain(HIDDEN);
      const res = await server.fetch(
        new Request(`${BASE}/api/nothing/${disguised}`, { headers: { authorization: `Bearer ${key}` } }),
      );
      expect(res.status).toBe(404);
      expectNoSecret(await res.text(), written, "404 by fetch");

      // (3) the line `serve --log` writes for it, as text and as JSON
      for (const json of [false, true]) {
        const line = requestLine(answered(incoming(`/api/nothing/${disguised}`, key), raw, 1.5), json);
        expectNoSecret(line, written, "--log");
        expect(line).toContain(HIDDEN);
      }
    },
  );

  it("S1, S15: ordinary values are still named readably: a short unknown field and a short 404 path", async () => {
    const { server, key, post } = await setup();
    const res = await post("/api/generations", { prompt: "x", foo: 1 });
    const error = (await res.json()).error;
    expect(error.issues[0]).toMatchObject({ path: "foo", code: "unknown_field" });
    expect(error.issues[0].message).toContain('Field "foo" is not part of a generation request');
    const missing = await respond(server, incoming("/api/nothing/here", key));
    expect(JSON.parse(missing.body).error.message).toBe('There is no endpoint at "/api/nothing/here".');
    expect(requestLine(answered(incoming("/api/nothing/here", key), missing, 1.5), false)).toMatch(
      /^GET \/api\/nothing\/here 404 1\.5ms req_/,
    );
  });

  it("S1: an admin token put in a path is neither echoed by the 404 nor logged", async () => {
    const token = "admin-token-for-tests-0123";
    const { server, key } = await setup({ adminToken: token });
    for (const path of [`/api/${token}`, `/admin/${token}`, `/${token}/x`]) {
      const out = await respond(server, incoming(path, path.startsWith("/admin/") ? token : key));
      expect(out.status).toBe(404);
      expect(out.body).not.toContain(token.slice(0, 12));
      expect(requestLine(answered(incoming(path, key), out, 1), false)).not.toContain(token.slice(0, 12));
    }
  });
});
