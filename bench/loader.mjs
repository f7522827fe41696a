// Node module hooks for the benchmarks: `.js` specifiers that name a `.ts` source resolve to it,
// and `.ts` files are transformed by esbuild with no `keepNames` (see register.mjs).
import { readFile } from "node:fs/promises";
import { transform } from "esbuild";

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const relative =
      specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:");
    if (!relative || !specifier.endsWith(".js")) {
      throw error;
    }
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith(".ts")) {
    return nextLoad(url, context);
  }
  const source = await readFile(new URL(url), "utf8");
  const { code } = await transform(source, {
    loader: "ts",
    format: "esm",
    target: "node20",
    // Node 20 reads `with { type: "json" }`; esbuild would drop it for that target.
    supported: { "import-attributes": true },
    sourcemap: "inline",
    sourcefile: url,
  });
  return { format: "module", source: code, shortCircuit: true };
}
