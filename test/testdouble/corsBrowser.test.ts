/**
 * CORS in a real browser: a page served on one loopback origin calls the reference server on
 * another with an API key (a preflighted POST with Authorization and Idempotency-Key), and reads
 * the answer and its Request-Id; without the `cors` option the browser blocks the same call.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_FLAGS } from "../../scripts/playground-screenshots.js";
import { type RunningServer, serve } from "../../src/node/index.js";
import { createReferenceServer } from "../../src/server/index.js";

let pageServer: Server;
let origin = "";
let context: BrowserContext | undefined;
let page: Page;
let profile = "";
const running: RunningServer[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: install Debian's with "apt-get install -y chromium", or set CHROMIUM_PATH.`,
    );
  }
  pageServer = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>client</title><p>a client page</p>");
  });
  await new Promise<void>((resolve) => pageServer.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(pageServer.address() as AddressInfo).port}`;
  profile = mkdtempSync(join(tmpdir(), "imagegen-cors-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(origin);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await Promise.all(running.splice(0).map((r) => r.close()));
  await new Promise((resolve) => pageServer?.close(resolve));
  if (profile) {
    rmSync(profile, { recursive: true, force: true });
  }
});

/** A reference server on its own port (another origin than the page's), with one user and key. */
async function apiServer(cors: readonly string[] | undefined) {
  const server = createReferenceServer({ ...(cors ? { cors } : {}) });
  const { userId } = await server.admin.createUser({ credits: 1000 });
  const { key } = await server.admin.createApiKey(userId);
  const r = await serve({ port: 0, server, handleSignals: false });
  running.push(r);
  return { server, userId, key, url: r.url };
}

/** What the page's own fetch gets: the status, Request-Id and body, or the error the browser gave. */
function callFromPage(url: string, key: string) {
  const script = `(async () => {
    try {
      const res = await fetch(${JSON.stringify(`${url}/api/generations`)}, {
        method: "POST",
        headers: {
          Authorization: ${JSON.stringify(`Bearer ${key}`)},
          "Content-Type": "application/json",
          "Idempotency-Key": "browser-1",
        },
        body: JSON.stringify({ prompt: "a fox in the snow" }),
      });
      return { status: res.status, requestId: res.headers.get("Request-Id"), body: await res.json() };
    } catch (error) {
      return { error: String(error) };
    }
  })()`;
  return page.evaluate(script) as Promise<{
    status?: number;
    requestId?: string | null;
    body?: unknown;
    error?: string;
  }>;
}

describe("CORS in headless Chromium", { timeout: 60_000 }, () => {
  it("a page on another loopback origin calls the server with an API key and reads the answer and its Request-Id", async () => {
    const api = await apiServer([origin]);
    expect(new URL(api.url).origin).not.toBe(origin);
    const result = await callFromPage(api.url, api.key);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(202);
    expect(result.requestId).toMatch(/^req_/);
    expect(result.body).toMatchObject({
      billing: { totalCreditCost: 18, balanceAfterCredits: 982 },
    });
    expect(await api.server.admin.balance(api.userId)).toBe(1000 - 18);
  });

  it("without the cors option the browser blocks the same call, and nothing is charged", async () => {
    const api = await apiServer(undefined);
    const result = await callFromPage(api.url, api.key);
    expect(result.error).toMatch(/Failed to fetch/);
    expect(await api.server.admin.balance(api.userId)).toBe(1000);
  });
});
