#!/usr/bin/env node
/**
 * The `imagegen-pricing` command: quote, check, models, schema, diff, serve. See
 * `imagegen-pricing --help`.
 *
 * @packageDocumentation
 */
import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import { run } from "./run.js";

const code = await run(process.argv.slice(2), {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  readFile: (path) => readFile(path, "utf8"),
  readStdin: () => text(process.stdin),
});
process.exitCode = code;
