/** `npm run size`: what the core entry weighs in a browser, against its budget, and what makes it up. */
import { bundleCore, CORE_BUDGET_BYTES } from "./coreBundle.js";

const kib = (n: number) => `${(n / 1024).toFixed(2)} KiB`;
const core = await bundleCore();
console.log(`core entry (esbuild, browser, minified): ${kib(core.bytes)}; gzip -9: ${kib(core.gzipBytes)}`);
console.log(`budget: ${kib(CORE_BUDGET_BYTES)} gzipped (${core.gzipBytes <= CORE_BUDGET_BYTES ? "within" : "OVER"})`);

// Each input's share of the minified output.
const output = Object.values(core.metafile.outputs)[0];
const rows = Object.entries(output?.inputs ?? {}).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
for (const [path, { bytesInOutput }] of rows.slice(0, 12)) {
  console.log(`  ${String(bytesInOutput).padStart(7)} B  ${path}`);
}
process.exitCode = core.gzipBytes <= CORE_BUDGET_BYTES ? 0 : 1;
