/**
 * Generated files: write them, or with `--check` exit 1 when a committed one is out of date. The one
 * loop behind `npm run golden`, `npm run catalog:json` and `scripts/jsonSchemas.ts`.
 */
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Writes each file whose text changed, or with `--check` in `argv` reports each stale one.
 *
 * @param files - Each file's path and the text it must hold.
 * @param argv - The script's arguments.
 * @param command - What regenerates the files, for the message of a stale one.
 * @returns The exit code: 0, or 1 when `--check` finds a stale file.
 */
export function writeOrCheck(
  files: readonly (readonly [string, string])[],
  argv: readonly string[],
  command: string,
): number {
  const stale = files.filter(([path, text]) => {
    try {
      return readFileSync(path, "utf8") !== text;
    } catch {
      return true; // not generated yet
    }
  });
  if (argv.includes("--check")) {
    for (const [path] of stale) {
      console.error(`out of date: ${path} (run ${command})`);
    }
    return stale.length > 0 ? 1 : 0;
  }
  for (const [path, text] of stale) {
    writeFileSync(path, text);
    console.log(`wrote ${path}`);
  }
  if (stale.length === 0) {
    console.log("Up to date.");
  }
  return 0;
}
