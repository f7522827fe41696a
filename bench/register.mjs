// Runs the benchmarks' TypeScript as production builds would: esbuild strips the types, and
// nothing else. (tsx also sets esbuild's `keepNames`, which wraps every closure in a `__name()`
// call on each creation: it slowed closure-heavy code, the hand-written baseline most, by ~2x.)
import { register } from "node:module";

register("./loader.mjs", import.meta.url);
