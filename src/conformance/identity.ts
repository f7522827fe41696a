/** The first requests of a run: GET /api/ping (S9) and GET /api/query/credits (S10). */
import { field } from "./http.js";
import type { Run } from "./run.js";

/**
 * Why a run could not start: a wrong option, the server unreachable, or the key refused by ping;
 * the CLI exits 2 with it.
 */
export class ConformanceError extends Error {
  override readonly name = "ConformanceError";
}

/**
 * Pings with the key (a refusal or no answer stops the run with {@link ConformanceError}), checks
 * the answers of ping (S9) and credits (S10), and records the starting balance.
 *
 * @param run - The run.
 * @throws {@link ConformanceError} when the server cannot be reached or refuses the key.
 */
export async function checkIdentity(run: Run): Promise<void> {
  const ping = await run.send({ method: "GET", path: "/api/ping" });
  if (ping.status === 0) {
    throw new ConformanceError(
      `Cannot reach ${run.http.baseUrl}/api/ping: ${run.http.mask(ping.lost ?? "no answer")}`,
    );
  }
  if (ping.status === 401 || ping.status === 403) {
    throw new ConformanceError(`The key was refused by GET /api/ping (status ${ping.status}).`);
  }
  const body = ping.json;
  const userId = field(body, "userId");
  const apiKeyId = field(body, "apiKeyId");
  const problems: string[] = [];
  if (ping.status !== 200) {
    problems.push(`status ${ping.status}`);
  }
  if (field(body, "ok") !== true) {
    problems.push("ok is not true");
  }
  if (typeof field(body, "service") !== "string") {
    problems.push("service is not a string");
  }
  if (field(body, "authProvider") !== "api_key") {
    problems.push('authProvider is not "api_key"');
  }
  if (typeof userId !== "string" || !/^usr_./.test(userId)) {
    problems.push("userId is not usr_<id>");
  }
  if (typeof apiKeyId !== "string" || !/^apk_./.test(apiKeyId)) {
    problems.push("apiKeyId is not apk_<id>");
  }
  if (ping.status !== 200 && ping.status >= 400) {
    throw new ConformanceError(`GET /api/ping answered ${ping.status}: the run cannot start.`);
  }
  if (problems.length > 0) {
    run.fail("S9", {
      message: `GET /api/ping: ${problems.join("; ")}.`,
      expected: {
        ok: true,
        service: "<string>",
        authProvider: "api_key",
        userId: "usr_<id>",
        apiKeyId: "apk_<id>",
      },
      actual: body ?? ping.text.slice(0, 200),
      answer: ping,
    });
  } else {
    run.pass("S9");
  }
  run.userId = typeof userId === "string" ? userId : "";
  run.apiKeyId = typeof apiKeyId === "string" ? apiKeyId : "";

  const credits = await run.send({ method: "GET", path: "/api/query/credits" });
  const c = credits.json;
  const balance = field(c, "creditBalance");
  const wrong: string[] = [];
  if (credits.status !== 200) {
    wrong.push(`status ${credits.status}`);
  }
  if (typeof balance !== "number" || !Number.isSafeInteger(balance) || balance < 0) {
    wrong.push("creditBalance is not a whole number of at least 0");
  }
  if (field(c, "currency") !== "credits") {
    wrong.push('currency is not "credits"');
  }
  if (field(c, "userId") !== userId) {
    wrong.push("userId differs from ping's");
  }
  if (field(c, "apiKeyId") !== apiKeyId) {
    wrong.push("apiKeyId differs from ping's");
  }
  if (wrong.length > 0) {
    run.fail("S10", {
      message: `GET /api/query/credits: ${wrong.join("; ")}.`,
      expected: { creditBalance: "<whole number>", currency: "credits", userId, apiKeyId },
      actual: c ?? credits.text.slice(0, 200),
      answer: credits,
    });
  } else {
    run.pass("S10");
  }
  if (typeof balance !== "number" || !Number.isSafeInteger(balance)) {
    throw new ConformanceError("GET /api/query/credits gives no balance: nothing can be checked.");
  }
  run.startBalance = balance;
  run.lastBalance = balance;
}
