import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Playground, startPlayground } from "../../scripts/playground.js";
import { capabilities, catalog, quote } from "../../src/index.js";

/** Debian's chromium (apt-get install chromium); CHROMIUM_PATH overrides. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Flags for a root, sandboxed-off, offline machine: no background traffic to the closed network. */
const FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const SCREENSHOTS = new URL("../../reports/playground/", import.meta.url).pathname;

let playground: Playground;
let context: BrowserContext;
let page: Page;
let profile: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's with "apt-get install -y chromium", or set CHROMIUM_PATH.`);
  }
  playground = await startPlayground({ port: 0 });
  profile = mkdtempSync(join(tmpdir(), "imagegen-playground-"));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (error) => pageErrors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(message.text());
  });
  await page.goto(playground.url);
  await page.waitForSelector("body[data-ready='true']");
}, 60_000);

afterAll(async () => {
  await context?.close();
  await playground?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const options = (id: string) => page.$$eval(`#${id} option`, (list) => list.map((o) => (o as HTMLOptionElement).value));
const shown = async (id: string) => (await page.textContent(`#${id}`))?.trim();
/** Every amount the breakdown table shows, as written. */
const breakdownAmounts = () => page.$$eval("#breakdown td.n", (cells) => cells.map((c) => c.textContent ?? ""));
const issueCodes = () => page.$$eval("#issues li", (list) => list.map((li) => (li as HTMLElement).dataset.code));

describe("the live price preview in headless Chromium", { timeout: 30_000 }, () => {
  it("V7: offers every catalog model, and opens on the default one with its price", async () => {
    expect(await options("model")).toEqual(Object.keys(catalog.models));
    expect(await page.inputValue("#model")).toBe(catalog.defaultModelId);
    const expected = quote({ kind: "image", modelId: catalog.defaultModelId });
    expect(await shown("perImage")).toBe(`${expected.credits} credits`);
  });

  it("P4, P7: beta2 at 4K with multiplier 1.15 shows what quote() says (138)", async () => {
    await page.selectOption("#model", "beta2");
    await page.selectOption("#resolution", "4K");
    await page.fill("#multiplier", "1.15");
    const expected = quote(
      { kind: "image", modelId: "beta2", resolution: "4K", quality: "low" },
      { account: { multiplier: "1.15" } },
    );
    expect(expected.credits).toBe(138);
    expect(await shown("perImage")).toBe("138 credits");
    expect(await shown("total")).toBe("138 credits");
    expect(await page.textContent("#breakdown")).toContain("Base price120 credits");
    expect(await issueCodes()).toEqual([]);
  });

  it("V1-V5: the controls offer only what the chosen model accepts", async () => {
    for (const modelId of Object.keys(catalog.models)) {
      await page.selectOption("#model", modelId);
      const caps = capabilities(modelId);
      if (!caps) throw new Error(modelId);
      expect(await options("aspectRatio"), modelId).toEqual(caps.aspectRatios);
      expect(await options("resolution"), modelId).toEqual(caps.resolutions);
      expect(await options("quality"), modelId).toEqual(caps.qualities);
      expect(await options("background"), modelId).toEqual(caps.backgrounds);
      expect(await page.getAttribute("#imageCount", "max"), modelId).toBe(String(caps.maxImageCount));
      expect(await page.inputValue("#aspectRatio"), modelId).toBe(caps.defaultAspectRatio);
      expect(await issueCodes(), modelId).toEqual([]);
    }
  });

  it("P3, P5: an edit with references on a quality model: per image from quote(), total = images x per image", async () => {
    await page.selectOption("#model", "alpha-img2-5-flare");
    await page.selectOption("#generationType", "image-to-image");
    await page.selectOption("#aspectRatio", "21:9");
    await page.selectOption("#resolution", "4K");
    await page.selectOption("#quality", "high");
    await page.selectOption("#background", "transparent");
    await page.fill("#imageCount", "3");
    await page.fill("#referenceCount", "2");
    await page.fill("#multiplier", "2.3");
    const expected = quote(
      { kind: "image", modelId: "alpha-img2-5-flare", resolution: "4K", quality: "high", referenceImageCount: 2 },
      { account: { multiplier: "2.3" } },
    );
    // (750 + 2 x 10) x 2.3 = 1771
    expect(expected.credits).toBe(1771);
    expect(await shown("perImage")).toBe("1771 credits");
    expect(await shown("total")).toBe(`${3 * 1771} credits`);
    expect(await page.textContent("#breakdown")).toContain("Reference surcharge (2 x 10 credits)20 credits");
    expect(await breakdownAmounts()).toEqual(["750 credits", "20 credits", "770 credits", "1771 credits", "5313 credits"]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOTS}playground.png`, fullPage: true });
  });

  it("N11, P4, V5, V6: impossible values show their issues live, and no price", async () => {
    await page.selectOption("#model", "gamma-image-1.5");
    await page.selectOption("#generationType", "image-to-image");
    await page.fill("#referenceCount", "2");
    expect(await issueCodes()).toEqual(["too_many_references"]);
    expect(await shown("perImage")).toBe("-");
    await page.fill("#referenceCount", "1");
    await page.fill("#imageCount", "11");
    expect(await issueCodes()).toEqual(["too_many_images"]);
    await page.fill("#imageCount", "10");
    await page.fill("#multiplier", "1,5");
    expect(await issueCodes()).toEqual(["invalid_multiplier"]);
    expect(await shown("total")).toBe("-");
    await page.fill("#multiplier", "1");
    expect(await issueCodes()).toEqual([]);
    expect(await shown("total")).toBe(
      `${10 * (quote({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 1 }).credits ?? 0)} credits`,
    );
    await page.screenshot({ path: `${SCREENSHOTS}playground-gamma.png`, fullPage: true });
  });

  it("P4: every amount is labelled in credits, one credit in the singular, and the page says what a credit is", async () => {
    await page.selectOption("#model", "beta");
    await page.selectOption("#generationType", "text-to-image");
    await page.fill("#imageCount", "1");
    await page.fill("#multiplier", "0.04");
    // 25 x 0.04 = 1: the one amount that takes the singular.
    expect(await shown("perImage")).toBe("1 credit");
    expect(await shown("total")).toBe("1 credit");
    expect(await breakdownAmounts()).toEqual(["25 credits", "0 credits", "25 credits", "1 credit", "1 credit"]);
    expect(await shown("unit")).toContain("Prices in credits");
    expect(await page.getAttribute("#perImage", "aria-describedby")).toBe("unit");
    expect(await page.getAttribute("#total", "aria-describedby")).toBe("unit");
    await page.fill("#multiplier", "1");
  });

  it("text-to-image offers no reference images", async () => {
    await page.selectOption("#generationType", "text-to-image");
    expect(await page.isDisabled("#referenceCount")).toBe(true);
    expect(await page.inputValue("#referenceCount")).toBe("0");
  });

  it("the page raised no error", () => {
    expect(pageErrors).toEqual([]);
  });
});
