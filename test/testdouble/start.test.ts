/**
 * `npm start` (scripts/start.ts): `serve` with the demo fixtures, whose printed curl lines work as
 * pasted and agree with each other (the quote prices the spec the generation sends).
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type Child, start } from "./builtCli.js";

// tsx as a loader in the server's own process: the tsx command would be a parent that relays
// Ctrl-C and gives the server 30 ms to answer before exiting 130 itself, which a busy machine misses.
const tsx = createRequire(import.meta.url).resolve("tsx");
const script = fileURLToPath(new URL("../../scripts/start.ts", import.meta.url));
const DEMO_KEY = "ck_test_demo_key_for_trying_the_api";

const children: Child[] = [];
afterAll(() => {
  for (const child of children) {
    child.process.kill("SIGKILL");
  }
});

/** The words of a printed command: plain words and single-quoted ones, as a POSIX shell reads them. */
function words(line: string): string[] {
  const out: string[] = [];
  const pattern = /'((?:[^']|'\\'')*)'|(\S+)/g;
  for (const match of line.matchAll(pattern)) {
    out.push(match[1] !== undefined ? match[1].replace(/'\\''/g, "'") : (match[2] as string));
  }
  return out;
}

/** Sends what a printed `curl -s URL -H ... -d ...` line sends. */
async function curl(line: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const [command, silent, url, ...rest] = words(line.trim());
  expect([command, silent]).toEqual(["curl", "-s"]);
  const headers: Record<string, string> = {};
  let body: string | undefined;
  for (let i = 0; i < rest.length; i += 2) {
    const value = rest[i + 1] as string;
    if (rest[i] === "-H") {
      headers[value.slice(0, value.indexOf(":"))] = value.slice(value.indexOf(":") + 1).trim();
    } else if (rest[i] === "-d") {
      body = value;
    } else {
      throw new Error(`unexpected curl option ${rest[i]}`);
    }
  }
  const res = await fetch(url as string, {
    method: body === undefined ? "GET" : "POST",
    headers,
    ...(body ? { body } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("npm start (scripts/start.ts)", () => {
  it("S1, S9, S11: serves the demo fixtures on $PORT and $HOST, prints curl lines that work and agree, and stops with exit 0 on SIGINT", {
    timeout: 60_000,
  }, async () => {
    const child = start(process.execPath, ["--import", tsx, script], {
      PORT: "0",
      HOST: "127.0.0.1",
    });
    children.push(child);
    await child.waitFor("Ctrl-C stops the server.");
    const out = child.stdout();
    expect(out.split("\n")[0]).toMatch(/^Listening on http:\/\/127\.0\.0\.1:\d+$/);
    expect(out).toContain("Fixtures examples/demo-fixtures.json: 1 user");
    expect(out).toContain(
      "usr_demo: 10000 credits, multiplier 1, assets ast_demo_1, ast_demo_2, ast_demo_3",
    );
    expect(out).toContain(`    ${DEMO_KEY}\n`);

    const curls = out.split("\n").filter((line) => line.trim().startsWith("curl "));
    expect(curls).toHaveLength(4);
    const answers: Awaited<ReturnType<typeof curl>>[] = [];
    for (const line of curls) {
      answers.push(await curl(line));
    }
    const [ping, credits, quote, generation] = answers;
    expect(ping).toMatchObject({ status: 200, body: { ok: true, userId: "usr_demo" } });
    expect(credits).toMatchObject({ status: 200, body: { creditBalance: 10000 } });
    expect(quote?.status).toBe(200);
    expect(generation?.status).toBe(202);
    // The quote prices exactly what the generation is charged: the same model, resolution, quality and references.
    const billing = (generation?.body as { billing?: { totalCreditCost: number } } | undefined)
      ?.billing;
    expect(billing?.totalCreditCost).toBe(quote?.body.credits);
    expect(quote?.body.credits).toBe(130);

    child.process.kill("SIGINT");
    expect(await child.exited).toEqual({ code: 0, signal: null });
    expect(child.stdout()).toContain("Stopped (SIGINT)");
  });
});
