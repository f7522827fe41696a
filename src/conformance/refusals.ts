/** The free checks of refusals: request rules (N, V), auth (S1) and error answers (S12). */

import {
  BASE,
  generatedCases,
  oracleIssues,
  type RefusalCase,
  refusalCases,
  shrink,
} from "./cases.js";
import { type Answer, errorCode, field, isRefusal } from "./http.js";
import type { Run } from "./run.js";

/** The `path code` pairs of an answer's `error.issues`, sorted. */
function answerIssues(answer: Answer): string[] | undefined {
  const issues = field(field(answer.json, "error"), "issues");
  if (!Array.isArray(issues)) {
    return undefined;
  }
  return issues.map((i) => `${String(field(i, "path"))} ${String(field(i, "code"))}`).sort();
}

/**
 * What is wrong with an answer to a refused request, and the rule it breaks when not the case's
 * own.
 */
type Wrong = { rule?: string; expected: unknown; actual: unknown };

/**
 * Judges the answer to a request that must be refused: accepted, it breaks the case's rule; a 5xx
 * or a 4xx without a JSON `error.message` breaks S12 (the error answer); in the reference profile a
 * status or code other than 400 `invalid_request` breaks S12 too, and issues other than the
 * oracle's break the case's rule.
 *
 * @returns What is wrong, or `undefined` when the answer is right.
 */
function judgeRefusal(run: Run, answer: Answer, body: unknown): Wrong | undefined {
  const actual = {
    status: answer.status === 0 ? `no answer (${answer.lost})` : answer.status,
    error:
      field(answer.json, "error") ??
      (answer.json === undefined ? answer.text.slice(0, 200) : answer.json),
  };
  const refusal = "a 4xx with a JSON error.message";
  if (answer.status >= 500 || (answer.status >= 400 && !isRefusal(answer))) {
    return { rule: "S12", expected: refusal, actual };
  }
  if (!isRefusal(answer)) {
    return { expected: refusal, actual };
  }
  if (!run.reference) {
    return undefined;
  }
  if (answer.status !== 400 || errorCode(answer) !== "invalid_request") {
    return { rule: "S12", expected: { status: 400, code: "invalid_request" }, actual };
  }
  const expectedIssues = oracleIssues(body);
  const issues = answerIssues(answer);
  return issues !== undefined && issues.join("\n") === expectedIssues.join("\n")
    ? undefined
    : { expected: { issues: expectedIssues }, actual: { ...actual, issues } };
}

/**
 * Sends each case that must be refused, one at a time, reading the balance after each (a refusal
 * that
 * charges is caught at that request, and the run stops charging).
 *
 * @param run - The run.
 */
export async function checkRefusals(run: Run): Promise<void> {
  const assets = run.settings.assets;
  const fixed = refusalCases(assets);
  for (const c of fixed) {
    if (!run.wants(c.rule)) {
      continue;
    }
    if (c.referenceOnly && !run.reference) {
      run.skip(c.rule, `the interface leaves ${c.what} open (reference profile only)`);
      continue;
    }
    if ((c.needsAssets ?? 0) > assets.length && !run.reference) {
      run.skip(c.rule, `${c.what} needs ${c.needsAssets} asset ids of the caller (--assets)`);
      continue;
    }
    await refuse(run, c);
  }
  for (const c of generatedCases(run.settings.seed, run.settings.runs)) {
    if (run.wants(c.rule)) {
      await refuse(run, c, c.path);
    }
  }
}

/** Sends one case; on a wrong answer shrinks it (generated cases) and confirms once online. */
async function refuse(run: Run, c: RefusalCase, path?: string): Promise<void> {
  if (run.stopped) {
    run.skip(c.rule, `charging stopped: ${run.stopped}`);
    return;
  }
  const answer = await run.send({ method: "POST", path: "/api/generations", body: c.body });
  const wrong = judgeRefusal(run, answer, c.body);
  const free = await run.expectFree(c.rule, answer);
  if (!wrong) {
    if (free) {
      run.pass(c.rule);
    }
    return;
  }
  let shown = answer;
  let shownWrong = wrong;
  let note = "";
  const accepted = answer.status >= 200 && answer.status < 300;
  if (accepted) {
    run.stop(`a request that breaks ${c.rule} was accepted`);
  }
  if (path !== undefined && typeof c.body === "object" && c.body !== null && !run.stopped) {
    const small = shrink(
      c.body as Record<string, unknown>,
      path,
      c.rule.startsWith("V") ? ["modelId"] : [],
    );
    if (JSON.stringify(small) !== JSON.stringify(c.body)) {
      const again = await run.send({ method: "POST", path: "/api/generations", body: small });
      const againWrong = judgeRefusal(run, again, small);
      await run.expectFree(c.rule, again);
      if (againWrong) {
        shown = again;
        shownWrong = againWrong;
        note = " (shrunk, confirmed online)";
      } else {
        note = " (its shrunk form was refused: shown as generated)";
      }
    }
  }
  const verdict = accepted
    ? "accepted"
    : shownWrong.rule === "S12"
      ? "refused without the error answer the rule requires"
      : "not refused as the rule requires";
  run.fail(shownWrong.rule ?? c.rule, {
    message: `${c.what} (${c.rule}): ${verdict}${note}.`,
    expected: shownWrong.expected,
    actual: shownWrong.actual,
    answer: shown,
  });
}

/** A made-up key of the right shape that no server issued. */
const UNKNOWN_KEY = `ck_test_${"0".repeat(12)}conformance${"0".repeat(9)}`;

/**
 * S1: every endpoint refuses a request without the key, with another scheme, or with a key it did
 * not issue; the reference profile also wants 401 and its codes, and a lower-case scheme accepted.
 *
 * @param run - The run.
 */
export async function checkAuth(run: Run): Promise<void> {
  if (!run.wants("S1")) {
    return;
  }
  const endpoints = [
    { method: "GET", path: "/api/ping" },
    { method: "GET", path: "/api/query/credits" },
    {
      method: "POST",
      path: "/api/pricing/quote",
      body: { kind: "image", modelId: "beta2", resolution: "2K" },
    },
    { method: "POST", path: "/api/generations", body: BASE },
  ];
  const variants: { what: string; authorization: string | null; code: string }[] = [
    { what: "no Authorization header", authorization: null, code: "missing_api_key" },
    {
      what: "the Basic scheme",
      authorization: `Basic ${run.settings.key}`,
      code: "missing_api_key",
    },
    {
      what: "a key the server did not issue",
      authorization: `Bearer ${UNKNOWN_KEY}`,
      code: "invalid_api_key",
    },
    { what: "a malformed key", authorization: "Bearer not-a-key", code: "invalid_api_key" },
  ];
  for (const endpoint of endpoints) {
    for (const variant of variants) {
      if (run.stopped && endpoint.method === "POST" && endpoint.path === "/api/generations") {
        run.skip("S1", `charging stopped: ${run.stopped}`);
        continue;
      }
      const answer = await run.send({
        ...endpoint,
        headers: { authorization: variant.authorization },
      });
      const right = run.reference
        ? answer.status === 401 && isRefusal(answer) && errorCode(answer) === variant.code
        : isRefusal(answer);
      const free = await run.expectFree("S1", answer);
      if (right && free) {
        run.pass("S1");
      } else if (!right) {
        if (answer.status >= 200 && answer.status < 300 && endpoint.path === "/api/generations") {
          run.stop("a create without a valid key was accepted (S1)");
        }
        run.fail("S1", {
          message: `${endpoint.method} ${endpoint.path} with ${variant.what} is not refused.`,
          expected: run.reference
            ? { status: 401, code: variant.code }
            : "a 4xx with a JSON error.message",
          actual: { status: answer.status, code: errorCode(answer) },
          answer,
        });
      }
    }
  }
  if (run.reference) {
    const answer = await run.send({
      method: "GET",
      path: "/api/ping",
      headers: { authorization: `bearer ${run.settings.key}` },
    });
    if (answer.status === 200) {
      run.pass("S1");
    } else {
      run.fail("S1", {
        message: "The Bearer scheme is case-insensitive: `bearer <key>` is accepted.",
        expected: 200,
        actual: answer.status,
        answer,
      });
    }
  }
}

/**
 * S12: the reference profile's own answers (404, 405 with Allow, 415, 413, 400 invalid_json,
 * Request-Id); in both profiles, a body that is not JSON is refused with a JSON error.
 *
 * @param run - The run.
 */
export async function checkErrors(run: Run): Promise<void> {
  if (!run.wants("S12")) {
    return;
  }
  if (run.stopped) {
    run.skip("S12", `charging stopped: ${run.stopped}`);
    return;
  }
  const notJson = await run.send({ method: "POST", path: "/api/generations", raw: '{"prompt": ' });
  const notJsonRight = run.reference
    ? notJson.status === 400 && errorCode(notJson) === "invalid_json" && isRefusal(notJson)
    : isRefusal(notJson);
  await judge(
    run,
    notJson,
    notJsonRight,
    "a body that is not JSON",
    run.reference ? { status: 400, code: "invalid_json" } : "a 4xx with a JSON error.message",
  );
  if (!run.reference) {
    run.skip("S12", "the interface fixes no status, code, route or media-type answer");
    return;
  }
  const cases: {
    what: string;
    send: () => Promise<Answer>;
    status: number;
    code: string;
    allow?: string;
  }[] = [
    {
      what: "an unknown route",
      send: () => run.send({ method: "GET", path: "/api/conformance-no-such-route" }),
      status: 404,
      code: "not_found",
    },
    {
      what: "a wrong method",
      send: () => run.send({ method: "GET", path: "/api/generations" }),
      status: 405,
      code: "method_not_allowed",
      allow: "POST",
    },
    {
      what: "a body that is not application/json",
      send: () =>
        run.send({
          method: "POST",
          path: "/api/generations",
          raw: JSON.stringify(BASE),
          headers: { "content-type": "text/plain" },
        }),
      status: 415,
      code: "unsupported_media_type",
    },
    {
      what: "a body over the size limit",
      send: () =>
        run.send({
          method: "POST",
          path: "/api/generations",
          body: { ...BASE, prompt: "a".repeat(400 * 1024) },
        }),
      status: 413,
      code: "payload_too_large",
    },
  ];
  for (const c of cases) {
    if (run.stopped) {
      run.skip("S12", `charging stopped: ${run.stopped}`);
      return;
    }
    const answer = await c.send();
    const allow = answer.headers.get("allow") ?? "";
    const right =
      answer.status === c.status &&
      isRefusal(answer) &&
      errorCode(answer) === c.code &&
      (c.allow === undefined || allow.split(/\s*,\s*/).includes(c.allow));
    await judge(run, answer, right, c.what, {
      status: c.status,
      code: c.code,
      ...(c.allow ? { allow: c.allow } : {}),
    });
  }
  const missing = run.missingRequestId;
  if (missing) {
    run.fail("S12", {
      message: "An answer has no Request-Id header.",
      expected: "a Request-Id header on every answer",
      actual: `status ${missing.status} without Request-Id`,
      answer: missing,
    });
  } else {
    run.pass("S12");
  }
}

/** Records an S12 case, and checks it charged nothing. */
async function judge(
  run: Run,
  answer: Answer,
  right: boolean,
  what: string,
  expected: unknown,
): Promise<void> {
  const free = await run.expectFree("S12", answer);
  if (right && free) {
    run.pass("S12");
  } else if (!right) {
    if (answer.status >= 200 && answer.status < 300) {
      run.stop(`${what} was accepted (S12)`);
    }
    run.fail("S12", {
      message: `${what}: not answered as the rule requires.`,
      expected,
      actual: {
        status: answer.status,
        code: errorCode(answer),
        allow: answer.headers.get("allow"),
      },
      answer,
    });
  }
}
