/**
 * `npm run playground:screenshots`: opens the price preview in headless Chromium and writes the
 * pictures docs/playground.md shows (docs/playground/*.png): a valid preview, a request with two
 * problems, and the keyboard focus on a control. Also the one place that launches Chromium for the
 * page, which the browser test uses too.
 *
 * Environment: CHROMIUM_PATH (default /usr/bin/chromium, Debian's `apt-get install chromium`).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { type Playground, startSourcePlayground } from "./playground.js";

/** The Chromium to drive: Debian's (apt-get install chromium); CHROMIUM_PATH overrides. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Flags for a root, sandboxed-off, offline machine: no background traffic to the closed network. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--force-color-profile=srgb",
  "--font-render-hinting=none",
];

/** The page open in Chromium, with what it raised and a way to close everything. */
export type OpenPlayground = {
  page: Page;
  context: BrowserContext;
  playground: Playground;
  /** Uncaught errors and console errors of the page, in order. */
  pageErrors: string[];
  close: () => Promise<void>;
};

/**
 * Starts the playground server on a free loopback port and opens the page in headless Chromium,
 * ready (its first price shown).
 *
 * @param options - `viewport` of the page (default 1000 x 720); `executablePath` (default {@link CHROMIUM}).
 * @returns The page and a way to close the browser, the server and the temporary profile.
 * @throws Error naming how to install Chromium when there is none at {@link CHROMIUM}.
 */
export async function openPlayground(
  options: { viewport?: { width: number; height: number }; executablePath?: string } = {},
): Promise<OpenPlayground> {
  const executablePath = options.executablePath ?? CHROMIUM;
  if (!existsSync(executablePath)) {
    throw new Error(
      `No Chromium at ${executablePath}: install Debian's with "apt-get install -y chromium", or set CHROMIUM_PATH.`,
    );
  }
  const playground = await startSourcePlayground({ port: 0 });
  const profile = mkdtempSync(join(tmpdir(), "imagegen-playground-"));
  const close = async () => {
    await context?.close();
    await playground.close();
    rmSync(profile, { recursive: true, force: true });
  };
  let context: BrowserContext | undefined;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: options.viewport ?? { width: 1000, height: 720 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") {
        pageErrors.push(message.text());
      }
    });
    await page.goto(playground.url);
    await page.waitForSelector("body[data-ready='true']");
    return { page, context, playground, pageErrors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Where the pictures go: next to the page, so docs/playground.md links them as playground/*.png. */
const OUT = new URL("../docs/playground/", import.meta.url);

/**
 * Writes the three pictures of docs/playground.md.
 *
 * @returns The files written.
 */
export async function takeScreenshots(): Promise<string[]> {
  const { page, pageErrors, close } = await openPlayground({
    viewport: { width: 1000, height: 640 },
  });
  const written: string[] = [];
  const shot = async (name: string) => {
    const path = new URL(name, OUT).pathname;
    await page.screenshot({ path, fullPage: true });
    written.push(path);
  };
  try {
    // Set the way a user does: by the labels they read.
    await page.getByLabel("Model").selectOption("alpha-img2-5-flare");
    await page.getByLabel("Generation type").selectOption("image-to-image");
    await page.getByLabel("Resolution").selectOption("4K");
    await page.getByLabel("Quality").selectOption("high");
    await page.getByLabel("Images", { exact: true }).fill("3");
    await page.getByLabel("Reference images").fill("2");
    await page.getByLabel("Multiplier").fill("2.3");
    await page.getByLabel("Multiplier").blur();
    await shot("preview.png");

    await page.getByLabel("Model").selectOption("beta2");
    await page.getByLabel("Images", { exact: true }).fill("6");
    await page.getByLabel("Multiplier").fill("1,15");
    await page.getByLabel("Multiplier").blur();
    await shot("error.png");

    // Back to valid, then reach Resolution with Tab alone and change it with an arrow key.
    await page.getByLabel("Images", { exact: true }).fill("1");
    await page.getByLabel("Multiplier").fill("1.15");
    await page.getByLabel("Resolution").selectOption("1K");
    await page.getByLabel("Aspect ratio").focus();
    await page.keyboard.press("Tab");
    await page.keyboard.press("ArrowDown");
    await shot("keyboard.png");
    if (pageErrors.length > 0) {
      throw new Error(`The page raised: ${pageErrors.join("; ")}`);
    }
  } finally {
    await close();
  }
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of await takeScreenshots()) {
    console.log(`wrote ${file}`);
  }
}
