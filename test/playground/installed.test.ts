/**
 * The price preview from an installed package, in headless Chromium: `imagegen-pricing playground`
 * serves the page with the core it loads from the package's own files; the page served by any
 * other static server, which lacks that core, names the file it could not load; opened as a file,
 * it says that a file cannot load modules.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_FLAGS } from "../../scripts/playground-screenshots.js";
import { catalog, quote } from "../../src/index.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";
import {
  type InstalledPackage,
  installPackage,
  type Started,
  startBin,
} from "./installedPackage.js";

let installed: InstalledPackage;
let browser: Browser;
let playground: Started;
let url = "";
/** A plain static server of the installed docs/playground/ folder, as a user might start one. */
let staticServer: Server | undefined;
let staticUrl = "";

beforeAllOrFail(async () => {
  installed = await installPackage();
  playground = startBin(installed.project, ["imagegen-pricing", "playground", "--port", "0"]);
  url = (await playground.waitFor(/^Live price preview: (http:\/\/127\.0\.0\.1:\d+\/)$/m))[1] ?? "";
  const pageDir = join(installed.project, "node_modules/imagegen-pricing/docs/playground");
  staticServer = createServer((req, res) => {
    const name = new URL(req.url ?? "/", "http://localhost").pathname.slice(1) || "index.html";
    readFile(join(pageDir, name.replace(/[^\w.-]/g, ""))).then(
      (body) => {
        const type = name.endsWith(".html") ? "text/html" : "text/javascript";
        res.writeHead(200, { "content-type": type }).end(body);
      },
      () => res.writeHead(404).end("Not found"),
    );
  });
  await new Promise<void>((resolve) => staticServer?.listen(0, "127.0.0.1", resolve));
  staticUrl = `http://127.0.0.1:${(staticServer.address() as AddressInfo).port}/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS,
  });
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await playground?.stop();
  await new Promise((resolve) => staticServer?.close(resolve) ?? resolve(undefined));
  installed?.remove();
});

/** Opens a page and collects what it raised. */
async function open(address: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(address);
  return { page, errors };
}

describe("the price preview of the installed package", { timeout: 60_000 }, () => {
  it("V7, P4: npx imagegen-pricing playground serves the page with its core: every model, and the default one's price", async () => {
    const { page, errors } = await open(url);
    try {
      await page.waitForSelector("body[data-ready='true']");
      const models = await page.$$eval("#model option", (list) =>
        list.map((o) => (o as HTMLOptionElement).value),
      );
      expect(models).toEqual(Object.keys(catalog.models));
      const expected = quote({ kind: "image", modelId: catalog.defaultModelId }).credits;
      expect((await page.textContent("#perImage"))?.trim()).toBe(`${expected} credits`);
      expect(await page.isVisible("#load-error")).toBe(false);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("served over HTTP without its core, the page names the file the server lacks, not a file:// page", async () => {
    const { page } = await open(staticUrl);
    try {
      await page.waitForSelector("#load-error", { state: "visible" });
      const message = (await page.textContent("#load-error")) ?? "";
      expect(message).toContain(`${staticUrl} does not serve core.js (HTTP 404).`);
      expect(message).toContain("npx imagegen-pricing playground");
      expect(message).not.toContain("opened as a file");
      expect(await page.$$eval("#model option", (list) => list.length)).toBe(0);
    } finally {
      await page.close();
    }
  });

  it("opened as a file, the page says a file cannot load its modules, and how to serve it", async () => {
    const file = join(
      installed.project,
      "node_modules/imagegen-pricing/docs/playground/index.html",
    );
    const { page } = await open(pathToFileURL(file).href);
    try {
      await page.waitForSelector("#load-error", { state: "visible" });
      const message = (await page.textContent("#load-error")) ?? "";
      expect(message).toContain("a page opened as a file cannot load the modules it is made of.");
      expect(message).toContain("npx imagegen-pricing playground");
    } finally {
      await page.close();
    }
  });

  it("playground stops on SIGTERM with exit code 0", async () => {
    const second = startBin(installed.project, ["imagegen-pricing", "playground", "--port", "0"]);
    await second.waitFor(/^Live price preview: http:/m);
    expect(await second.stop()).toBe(0);
  });
});
