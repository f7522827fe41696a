import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bundleCore, CORE_BUDGET_BYTES } from "../../scripts/coreBundle.js";

describe("the core entry in a browser", () => {
  it("bundles for a browser (esbuild, minified, gzip) within 18 KiB", async () => {
    const core = await bundleCore();
    expect(core.gzipBytes, `core is ${core.gzipBytes} B gzipped; run "npm run size" to see what makes it up`).toBeLessThanOrEqual(
      CORE_BUDGET_BYTES,
    );
  });

  it("imports nothing from node:* (it bundles with platform browser, and reads no Node built-in)", async () => {
    // With platform "browser", esbuild fails on any `node:*` or bare built-in import, so reaching
    // here proves there is none; the input list says the same thing in a readable way.
    const core = await bundleCore({ minify: false });
    const builtins = core.inputs.filter((path) => path.startsWith("node:") || /^(fs|path|crypto|http|zlib|os|util)$/.test(path));
    expect(builtins).toEqual([]);
    // A dependency may resolve through a linked node_modules (a git worktree's), so match the folder anywhere.
    expect(core.inputs.filter((path) => !path.startsWith("src/") && !path.includes("node_modules/"))).toEqual([]);
    expect(core.code).not.toMatch(/\bfrom\s*["']node:|require\(["']node:|\bprocess\.env\b/);
  });

  it("keeps the JSON Schema converter and the CLI out of the core", async () => {
    const core = await bundleCore({ minify: false });
    expect(core.inputs.filter((path) => /to-json-schema|src\/cli\/|src\/server\/|src\/jsonSchema/.test(path))).toEqual([]);
  });
});

describe("what the docs say about the core's size", () => {
  const root = new URL("../../", import.meta.url).pathname;

  it("the README and getting-started state the budget this suite enforces, and no other size of the core", () => {
    for (const file of ["README.md", "docs/getting-started.md"]) {
      const text = readFileSync(root + file, "utf8");
      const stated = [...text.matchAll(/(\d+(?:\.\d+)?) KiB gzipped/g)].map((m) => Number(m[1]));
      expect(stated, file).toEqual([CORE_BUDGET_BYTES / 1024]);
      // The weight itself changes with every change of the core: `npm run size` prints it.
      expect(text, file).not.toMatch(/about \d+(?:\.\d+)? KiB/);
    }
  });
});
