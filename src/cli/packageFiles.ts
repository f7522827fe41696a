/**
 * The package's own files, found from the running command line (dist/cli.js in an installed
 * package, src/cli in a clone): its version, the example fixtures, the price preview's page.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The package.json fields the command line reads. */
type Manifest = { name?: unknown; version?: unknown };

/**
 * The folder of the package: the nearest one above this module whose package.json is named
 * imagegen-pricing.
 *
 * @returns Its absolute path.
 * @throws Error when no such folder is above this module (the file was copied out of the package).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, "utf8")) as Manifest;
      if (name === "imagegen-pricing") {
        return dir;
      }
    }
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error(`No imagegen-pricing package.json above ${fileURLToPath(import.meta.url)}.`);
    }
    dir = parent;
  }
}

/** The version of the package, as its package.json says. */
export function packageVersion(): string {
  const { version } = JSON.parse(
    readFileSync(join(packageRoot(), "package.json"), "utf8"),
  ) as Manifest;
  return String(version);
}

/**
 * A file of the package as a user would type it from the current folder: relative when it is
 * below that folder (`node_modules/imagegen-pricing/examples/fixtures.json`), else absolute.
 *
 * @param path - The file's path inside the package, such as `examples/fixtures.json`.
 * @returns The path to show.
 */
export function packagePath(path: string): string {
  const absolute = join(packageRoot(), path);
  const fromHere = relative(process.cwd(), absolute);
  return fromHere.startsWith("..") || isAbsolute(fromHere) ? absolute : fromHere;
}
