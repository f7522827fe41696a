import { existsSync, readFileSync } from "node:fs";
import type { CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type OpenPlayground, openPlayground } from "../../scripts/playground-screenshots.js";
import { capabilities, catalog, checkRequest, quote } from "../../src/index.js";

let open: OpenPlayground;
let page: Page;
let cdp: CDPSession;
/** Why the page could not be opened (no Chromium, say), reported by every test rather than skipping them. */
let openError: unknown;

/** Every control of the form, by the label a user reads, in page order. */
const CONTROLS: [label: string, id: string, role: "combobox" | "spinbutton" | "textbox"][] = [
  ["Model", "model", "combobox"],
  ["Generation type", "generationType", "combobox"],
  ["Aspect ratio", "aspectRatio", "combobox"],
  ["Resolution", "resolution", "combobox"],
  ["Quality", "quality", "combobox"],
  ["Background", "background", "combobox"],
  ["Images", "imageCount", "spinbutton"],
  ["Reference images", "referenceCount", "spinbutton"],
  ["Multiplier", "multiplier", "textbox"],
];

/** A control found the way a user or a screen reader finds it: by its label. */
const control = (label: string) => page.getByLabel(label, { exact: true });
const options = (label: string) =>
  control(label).evaluate((select) =>
    Array.from((select as HTMLSelectElement).options, (o) => o.value),
  );
const text = async (selector: string) => (await page.textContent(selector))?.trim();
/** Every amount the breakdown table shows, as written. */
const breakdownAmounts = () =>
  page.$$eval("#breakdown td.n", (cells) => cells.map((c) => c.textContent ?? ""));
/** Ids of the controls marked aria-invalid="true", in page order. */
const invalidControls = () => page.$$eval("[aria-invalid='true']", (list) => list.map((e) => e.id));

/**
 * Runs an expression in the page. A string, not a function: vitest would rewrite a function's
 * `import()` into its own loader, which the page does not have.
 */
const inPage = <T>(expression: string) => page.evaluate(expression) as Promise<T>;

type AxValue = { value?: unknown };
type AxNode = {
  name?: AxValue;
  description?: AxValue;
  properties?: { name: string; value: AxValue }[];
};

/** What Chromium's accessibility tree says of an element: what a screen reader is given. */
async function accessible(selector: string) {
  const { root } = await cdp.send("DOM.getDocument", { depth: 0 });
  const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
  const { nodes } = (await cdp.send("Accessibility.getPartialAXTree", {
    nodeId,
    fetchRelatives: false,
  })) as {
    nodes: AxNode[];
  };
  const node = nodes[0];
  const property = (name: string) => node?.properties?.find((p) => p.name === name)?.value.value;
  return {
    name: node?.name?.value,
    description: node?.description?.value,
    invalid: property("invalid"),
    live: property("live"),
  };
}

describe("the live price preview in headless Chromium", { timeout: 60_000 }, () => {
  beforeAll(async () => {
    try {
      open = await openPlayground();
      page = open.page;
      // Every element the tests read is on the page at once; a missing one should fail soon, not in 30 s.
      page.setDefaultTimeout(5_000);
      cdp = await open.context.newCDPSession(page);
    } catch (error) {
      openError = error;
    }
  }, 60_000);

  // Without Chromium each test fails with the reason ("install it with apt-get install -y chromium").
  beforeEach(() => {
    if (openError) {
      throw openError;
    }
  });

  afterAll(async () => {
    await open?.close();
  });

  it("every control has a visible label, and is found by that label and by its role and name", async () => {
    for (const [label, id, role] of CONTROLS) {
      expect(await control(label).getAttribute("id"), label).toBe(id);
      expect(
        await page.getByRole(role, { name: label, exact: true }).getAttribute("id"),
        label,
      ).toBe(id);
      expect(await page.locator(`label[for="${id}"]`).isVisible(), label).toBe(true);
      expect((await accessible(`#${id}`)).name, label).toBe(label);
    }
    // No control of the form is left without a label.
    const unlabelled = await page.$$eval("#spec input, #spec select", (list) =>
      list.filter((e) => ((e as HTMLInputElement).labels?.length ?? 0) === 0).map((e) => e.id),
    );
    expect(unlabelled).toEqual([]);
    expect(await page.$$eval("#spec input, #spec select", (list) => list.map((e) => e.id))).toEqual(
      CONTROLS.map((c) => c[1]),
    );
  });

  it("V7: offers every catalog model, and opens on the default one with its price", async () => {
    expect(await options("Model")).toEqual(Object.keys(catalog.models));
    expect(await control("Model").inputValue()).toBe(catalog.defaultModelId);
    const expected = quote({ kind: "image", modelId: catalog.defaultModelId });
    expect(await text("#perImage")).toBe(`${expected.credits} credits`);
    expect(await text("#status")).toBe(`Total ${expected.credits} credits for 1 image.`);
  });

  it("P4, P7: beta2 at 4K with multiplier 1.15 shows what quote() says (138), in whole credits", async () => {
    await control("Model").selectOption("beta2");
    await control("Resolution").selectOption("4K");
    await control("Multiplier").fill("1.15");
    const expected = quote(
      { kind: "image", modelId: "beta2", resolution: "4K", quality: "low" },
      { account: { multiplier: "1.15" } },
    );
    expect(expected.credits).toBe(138);
    expect(await text("#perImage")).toBe("138 credits");
    expect(await text("#total")).toBe("138 credits");
    expect(await text("#status")).toBe("Total 138 credits for 1 image.");
    expect(await page.textContent("#breakdown")).toContain("Base price120 credits");
    expect(await invalidControls()).toEqual([]);
  });

  it("V1-V5: the controls offer only what the chosen model accepts", async () => {
    for (const modelId of Object.keys(catalog.models)) {
      await control("Model").selectOption(modelId);
      const caps = capabilities(modelId);
      if (!caps) {
        throw new Error(modelId);
      }
      expect(await options("Aspect ratio"), modelId).toEqual(caps.aspectRatios);
      expect(await options("Resolution"), modelId).toEqual(caps.resolutions);
      expect(await options("Quality"), modelId).toEqual(caps.qualities);
      expect(await options("Background"), modelId).toEqual(caps.backgrounds);
      expect(await control("Images").getAttribute("max"), modelId).toBe(String(caps.maxImageCount));
      expect(await text("#imageCount-hint"), modelId).toBe(
        `1 to ${caps.maxImageCount} for this model.`,
      );
      expect(await control("Aspect ratio").inputValue(), modelId).toBe(caps.defaultAspectRatio);
      expect(await invalidControls(), modelId).toEqual([]);
    }
  });

  it("P3, P5: an edit with references on a quality model: per image from quote(), total = images x per image", async () => {
    await control("Model").selectOption("alpha-img2-5-flare");
    await control("Generation type").selectOption("image-to-image");
    await control("Aspect ratio").selectOption("21:9");
    await control("Resolution").selectOption("4K");
    await control("Quality").selectOption("high");
    await control("Background").selectOption("transparent");
    await control("Images").fill("3");
    await control("Reference images").fill("2");
    await control("Multiplier").fill("2.3");
    const expected = quote(
      {
        kind: "image",
        modelId: "alpha-img2-5-flare",
        resolution: "4K",
        quality: "high",
        referenceImageCount: 2,
      },
      { account: { multiplier: "2.3" } },
    );
    // (750 + 2 x 10) x 2.3 = 1771
    expect(expected.credits).toBe(1771);
    expect(await text("#perImage")).toBe("1771 credits");
    expect(await text("#total")).toBe(`${3 * 1771} credits`);
    expect(await text("#status")).toBe("Total 5313 credits: 3 images at 1771 credits each.");
    expect(await page.textContent("#breakdown")).toContain(
      "Reference surcharge (2 x 10 credits)20 credits",
    );
    expect(await breakdownAmounts()).toEqual([
      "750 credits",
      "20 credits",
      "770 credits",
      "1771 credits",
      "5313 credits",
    ]);
  });

  it("V5: a value the model refuses marks that control invalid, described by its label, and says so in the live region", async () => {
    await control("Model").selectOption("beta2");
    await control("Images").fill("6");
    expect(await invalidControls()).toEqual(["imageCount"]);
    const images = await accessible("#imageCount");
    expect(images.invalid).toBe("true");
    // The error first, then the hint: what Chromium gives a screen reader for the control.
    expect(images.description).toBe("Images: at most 4 for this model 1 to 4 for this model.");
    expect(await control("Images").getAttribute("aria-describedby")).toBe(
      "imageCount-error imageCount-hint",
    );
    expect(await text("#imageCount-error")).toBe("Images: at most 4 for this model");
    expect(await page.isVisible("#imageCount-error")).toBe(true);
    expect(await text("#status")).toBe("No price: Images: at most 4 for this model.");
    expect(await text("#perImage")).toBe("-");
    expect(await page.isVisible("#breakdown")).toBe(false);
    // No issue names the API field; each names a label.
    expect(await page.textContent("#result")).not.toContain("imageCount");

    await control("Images").fill("4");
    expect(await invalidControls()).toEqual([]);
    expect(await control("Images").getAttribute("aria-invalid")).toBeNull();
    expect(await control("Images").getAttribute("aria-describedby")).toBe("imageCount-hint");
    expect(await page.isVisible("#imageCount-error")).toBe(false);
    expect((await accessible("#imageCount")).invalid).toBe("false");
    expect(await text("#status")).toMatch(/^Total \d+ credits: 4 images at \d+ credits each\.$/);
  });

  it("N15, P4: every problem at once, each on its own control, in page order in the live region", async () => {
    await control("Model").selectOption("beta2");
    await control("Images").fill("6");
    await control("Multiplier").fill("1,15");
    expect(await invalidControls()).toEqual(["imageCount", "multiplier"]);
    expect((await accessible("#multiplier")).description).toBe(
      "Multiplier: a plain decimal from 0 to 1000, such as 1.15 Your account's price adjustment, such as 1.15.",
    );
    expect(await text("#status")).toBe(
      "No price: Images: at most 4 for this model; Multiplier: a plain decimal from 0 to 1000, such as 1.15.",
    );
    await control("Images").fill("1");
    await control("Multiplier").fill("1");
    expect(await invalidControls()).toEqual([]);
  });

  it("N11, V5, V6: reference and image counts are named by their labels, with the model's limits", async () => {
    await control("Model").selectOption("gamma-image-1.5");
    await control("Generation type").selectOption("image-to-image");
    const says = async (label: string, value: string) => {
      await control(label).fill(value);
      return [await invalidControls(), await text("#status")];
    };
    expect(await says("Reference images", "2")).toEqual([
      ["referenceCount"],
      "No price: Reference images: at most 1 for this model.",
    ]);
    expect(await says("Reference images", "0")).toEqual([
      ["referenceCount"],
      "No price: Reference images: at least 1 with image-to-image.",
    ]);
    expect(await says("Reference images", "-1")).toEqual([
      ["referenceCount"],
      "No price: Reference images: a whole number from 1 to 1.",
    ]);
    await control("Reference images").fill("1");
    expect(await says("Images", "11")).toEqual([
      ["imageCount"],
      "No price: Images: at most 10 for this model.",
    ]);
    expect(await says("Images", "")).toEqual([
      ["imageCount"],
      "No price: Images: a whole number from 1 to 10.",
    ]);
    expect(await says("Images", "2.5")).toEqual([
      ["imageCount"],
      "No price: Images: a whole number from 1 to 10.",
    ]);
    expect(await says("Images", "10")).toEqual([
      [],
      `Total ${10 * (quote({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 1 }).credits ?? 0)} credits: 10 images at ${quote({ kind: "image", modelId: "gamma-image-1.5", referenceImageCount: 1 }).credits} credits each.`,
    ]);
    await control("Images").fill("1");
  });

  it("every issue path checkRequest gives for the page's fields belongs to a control", async () => {
    // Every field the page sends, each wrong, with a known model so that its limits are judged too.
    const body = {
      prompt: "price preview",
      modelId: "beta2",
      generationType: "x",
      aspectRatio: "7:5",
      resolution: "8K",
      quality: "ultra",
      background: "green",
      imageCount: 99,
      inputAssetIds: Array.from({ length: 40 }, (_, i) => `r${i}`),
    };
    // And a blank reference, whose issue is at a path into the list (inputAssetIds[1]).
    const edit = { ...body, generationType: "image-to-image", inputAssetIds: ["r1", " "] };
    const paths = ["modelId", "referenceCount", "account.multiplier"];
    for (const request of [body, edit]) {
      const checked = checkRequest(request);
      if (checked.success) {
        throw new Error("expected issues");
      }
      paths.push(...checked.issues.map((i) => i.path));
    }
    expect(paths).toContain("inputAssetIds[1]");
    const controls = await inPage<(string | null)[]>(
      `import("/fields.js").then(({ controlFor }) => ${JSON.stringify(paths)}.map((path) => controlFor(path) ?? null))`,
    );
    expect(
      controls.every((id) => id !== null),
      JSON.stringify(paths),
    ).toBe(true);
    for (const id of controls) {
      expect(CONTROLS.map((c) => c[1])).toContain(id);
    }
    expect(controls[paths.indexOf("inputAssetIds[1]")]).toBe("referenceCount");
    expect(controls[paths.indexOf("account.multiplier")]).toBe("multiplier");
  });

  it("Tab reaches every control in page order; arrow keys choose an option and the price follows", async () => {
    // From a fresh page, as a keyboard user arrives: Tab from the top.
    await page.reload();
    await page.waitForSelector("body[data-ready='true']");
    const order: string[] = [];
    for (let i = 0; i < CONTROLS.length - 1; i++) {
      await page.keyboard.press("Tab");
      order.push(await page.evaluate(() => document.activeElement?.id ?? ""));
    }
    // Reference images are off for text-to-image (the page's start), so Tab passes them by.
    expect(await control("Generation type").inputValue()).toBe("text-to-image");
    expect(order).toEqual(CONTROLS.map((c) => c[1]).filter((id) => id !== "referenceCount"));

    await control("Model").selectOption("beta2");
    await control("Resolution").selectOption("1K");

    // From Aspect ratio, Tab to Resolution and choose 2K then 4K with the arrow key alone.
    await control("Aspect ratio").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("resolution");
    await page.keyboard.press("ArrowDown");
    expect(await control("Resolution").inputValue()).toBe("2K");
    expect(await text("#perImage")).toBe(
      `${quote({ kind: "image", modelId: "beta2", resolution: "2K" }).credits} credits`,
    );
    await page.keyboard.press("ArrowDown");
    expect(await control("Resolution").inputValue()).toBe("4K");
    expect(await text("#status")).toBe(
      `Total ${quote({ kind: "image", modelId: "beta2", resolution: "4K" }).credits} credits for 1 image.`,
    );

    // Generation type by keyboard turns on Reference images, which Tab then reaches.
    await control("Generation type").focus();
    await page.keyboard.press("ArrowDown");
    expect(await control("Generation type").inputValue()).toBe("image-to-image");
    expect(await control("Reference images").isEnabled()).toBe(true);
    await control("Images").focus();
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("referenceCount");
    // Typed, not filled: the keys a user presses.
    await page.keyboard.press("Control+A");
    await page.keyboard.type("20");
    expect(await text("#status")).toBe("No price: Reference images: at most 14 for this model.");
    await page.keyboard.press("Backspace");
    expect(await text("#status")).toMatch(/^Total \d+ credits for 1 image\.$/);
    // No element is made focusable or operable outside the natural order.
    expect(await page.$$eval("[tabindex], [onclick]", (list) => list.length)).toBe(0);
  });

  it("one polite live region announces the price or the problem; the figures stay quiet", async () => {
    expect(await accessible("#status")).toMatchObject({ live: "polite" });
    expect(await page.getAttribute("#status", "role")).toBe("status");
    expect(await page.getAttribute("#status", "aria-atomic")).toBe("true");
    // <output> is a live region by default: the figures opt out, so each change is said once. (The
    // load error is an alert shown only when the page cannot run, and then nothing else speaks.)
    const live = await page.$$eval("[aria-live], [role='status'], [role='alert'], output", (list) =>
      list
        .filter((e) => e.getAttribute("aria-live") !== "off" && !e.closest("[hidden]"))
        .map((e) => e.id),
    );
    expect(live).toEqual(["status"]);
    expect([undefined, "off"]).toContain((await accessible("#perImage")).live);
    expect([undefined, "off"]).toContain((await accessible("#total")).live);
  });

  it("P4: every amount is labelled in credits, one credit in the singular, and the page says what a credit is", async () => {
    await control("Model").selectOption("beta");
    await control("Generation type").selectOption("text-to-image");
    await control("Images").fill("1");
    await control("Multiplier").fill("0.04");
    // 25 x 0.04 = 1: the one amount that takes the singular.
    expect(await text("#perImage")).toBe("1 credit");
    expect(await text("#total")).toBe("1 credit");
    expect(await text("#status")).toBe("Total 1 credit for 1 image.");
    expect(await breakdownAmounts()).toEqual([
      "25 credits",
      "0 credits",
      "25 credits",
      "1 credit",
      "1 credit",
    ]);
    expect(await text("#unit")).toContain("Prices in credits");
    expect(await page.getAttribute("#perImage", "aria-describedby")).toBe("unit");
    expect(await page.getAttribute("#total", "aria-describedby")).toBe("unit");
    expect((await accessible("#total")).name).toBe("Total");
    await control("Multiplier").fill("1");
  });

  it("text-to-image offers no reference images", async () => {
    await control("Generation type").selectOption("text-to-image");
    expect(await control("Reference images").isDisabled()).toBe(true);
    expect(await control("Reference images").inputValue()).toBe("0");
    expect(await text("#referenceCount-hint")).toBe("Only with image-to-image.");
  });

  it("docs/playground.md: its path -> control -> label table is the page's, and its pictures exist", async () => {
    const doc = readFileSync(new URL("../../docs/playground.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| `([^`]*)` \| `#([A-Za-z]+)` \| (.+?) \|$/gm)].map((m) => [
      m[1],
      m[2],
      m[3],
    ]);
    const fromPage = await inPage<string[][]>(
      `import("/fields.js").then(({ FIELDS }) => Object.entries(FIELDS).map(([path, id]) =>
        [path, id, document.getElementById(id).labels[0].textContent.trim()]))`,
    );
    expect(rows).toEqual(fromPage);
    const pictures = [...doc.matchAll(/!\[[^\]]*\]\((playground\/[^)]+\.png)\)/g)].map(
      (m) => m[1] ?? "",
    );
    expect(pictures.length).toBeGreaterThanOrEqual(2);
    for (const picture of pictures) {
      expect(existsSync(new URL(`../../docs/${picture}`, import.meta.url)), picture).toBe(true);
    }
  });

  it("the page raised no error, and its load error stays hidden", async () => {
    expect(open.pageErrors).toEqual([]);
    expect(await page.isVisible("#load-error")).toBe(false);
  });

  it("opened as a file, where its modules cannot load, the page says so instead of showing empty lists", async () => {
    const file = await open.context.newPage();
    try {
      await file.goto(new URL("../../docs/playground/index.html", import.meta.url).href);
      await file.waitForSelector("#load-error", { state: "visible" });
      expect(await file.textContent("#load-error")).toContain("npm run playground");
      expect(await file.$$eval("#model option", (list) => list.length)).toBe(0);
    } finally {
      await file.close();
    }
  });
});

describe("without Chromium", () => {
  it("opening the page fails and says how to install Chromium", async () => {
    await expect(openPlayground({ executablePath: "/nonexistent/chromium" })).rejects.toThrow(
      /No Chromium at \/nonexistent\/chromium: install Debian's with "apt-get install -y chromium", or set CHROMIUM_PATH/,
    );
  });
});
