/**
 * The client entry is browser-safe code in itself: it bundles for a browser and takes in the core
 * only, nothing of the server side (its guard, not its imports, keeps it out of pages).
 */
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("the client entry in a browser bundle", () => {
  it("bundles with platform browser, from the core's modules and valibot alone, with no node:* import", async () => {
    const result = await build({
      entryPoints: [new URL("../../src/client/index.ts", import.meta.url).pathname],
      bundle: true,
      write: false,
      platform: "browser",
      format: "esm",
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.endsWith("src/client/createClient.ts"))).toBe(true);
    expect(
      inputs.filter((path) => /src\/(server|store|node|postgres|cli|testing)\/|^node:/.test(path)),
    ).toEqual([]);
    expect(
      inputs.filter((path) => !path.startsWith("src/") && !path.includes("node_modules/valibot/")),
    ).toEqual([]);
    expect(result.outputFiles[0]?.text).not.toMatch(/from\s*["']node:|require\(["']node:/);
  });
});
