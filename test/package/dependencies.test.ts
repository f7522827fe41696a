import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
};

/** Every file under a folder whose name matches. */
function files(dir: string, match: RegExp): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => match.test(name))
    .map((name) => join(dir, name));
}

/** The package a bare import specifier names (`@scope/name/sub` -> `@scope/name`); undefined for relative and built-in ones. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("node:") || specifier.startsWith("/")) {
    return undefined;
  }
  const parts = specifier.split("/");
  if (builtinModules.includes(parts[0] as string)) {
    return undefined; // the build writes `crypto` for `node:crypto`
  }
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** The packages a JavaScript or TypeScript text imports, statically or dynamically, or requires. */
function importedPackages(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm,
  )) {
    const name = packageOf(m[1] as string);
    if (name !== undefined) {
      found.add(name);
    }
  }
  return found;
}

// The package's own name appears in examples (and may be imported by itself through its exports).
const runtime = new Set([...Object.keys(pkg.dependencies ?? {}), pkg.name]);
const optionalPeers = new Set(
  Object.keys(pkg.peerDependencies ?? {}).filter(
    (name) => pkg.peerDependenciesMeta?.[name]?.optional,
  ),
);

describe("what a consumer installs", () => {
  it("valibot, hono and @hono/node-server are the runtime dependencies; the other peers are optional", () => {
    // The core imports valibot alone, and only ./server and ./node import hono (.dependency-cruiser.cjs).
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual([
      "@hono/node-server",
      "hono",
      "valibot",
    ]);
    expect(
      Object.keys(pkg.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)),
    ).toEqual([]);
  });

  it("the sources import nothing but node:*, the dependencies and the optional peers (no JSON Schema converter)", () => {
    const imported = new Map<string, string[]>();
    for (const file of files(join(root, "src"), /\.ts$/)) {
      for (const name of importedPackages(readFileSync(file, "utf8"))) {
        imported.set(name, [...(imported.get(name) ?? []), file]);
      }
    }
    const outside = [...imported.keys()].filter(
      (name) => !runtime.has(name) && !optionalPeers.has(name),
    );
    expect(outside, JSON.stringify(Object.fromEntries(imported))).toEqual([]);
    expect(imported.has("valibot")).toBe(true);
  });

  it("the built files (code and types) import nothing but node:*, the dependencies and the optional peers", () => {
    const dist = join(root, "dist");
    if (!existsSync(join(dist, "index.js"))) {
      throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
    }
    const imported = new Set<string>();
    for (const file of files(dist, /\.(c?js|d\.c?ts)$/)) {
      for (const name of importedPackages(readFileSync(file, "utf8"))) {
        imported.add(name);
      }
    }
    expect([...imported].filter((name) => !runtime.has(name) && !optionalPeers.has(name))).toEqual(
      [],
    );
    expect(imported.has("valibot")).toBe(true);
  });
});
