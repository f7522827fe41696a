/**
 * The files `imagegen-pricing serve` starts from: the fixtures (`--fixtures`) and the price history
 * (`--catalogs`). Each is read whole and checked before any database work, so that a bad file is
 * refused with its first problems named and exit code 2, and nothing is loaded.
 */
import { constants as fsConstants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { buffer } from "node:stream/consumers";
import { show } from "../messages.js";
import { CatalogHistoryError, defineCatalogHistory } from "../models/history.js";
import type { Catalog } from "../models/modelSpec.js";
import {
  type CheckedFixtures,
  checkFixtures,
  duplicateKeyIssues,
  FixturesError,
} from "../server/fixtures.js";
import type { Fixtures } from "../server/index.js";
import { oneLine, StartError } from "./io.js";
import { packagePath } from "./packageFiles.js";

/**
 * The largest fixtures file read: far more than any test suite's users, far less than a string's
 * limit.
 */
export const MAX_FIXTURES_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Reads and parses a fixtures or catalogs file, straight from the file system (not through `io`):
 * only an open file can be asked what it is. A FIFO or a device would block the start or never
 * end, and a huge file would fail later with an obscure message, so only a regular file of at most
 * {@link MAX_FIXTURES_FILE_BYTES} bytes of UTF-8 is read, and a key given twice in one object is
 * refused (`JSON.parse` would keep the last one silently).
 */
async function readJsonFile(path: string, what: "fixtures" | "catalogs"): Promise<unknown> {
  const cannot = (why: string) => new StartError(`Cannot read the ${what} file ${path}: ${why}`);
  const tooLarge = (size: string) =>
    cannot(
      `it is ${size} bytes; a ${what} file is at most ${MAX_FIXTURES_FILE_BYTES} bytes (16 MiB).`,
    );
  let handle: FileHandle;
  try {
    // Non-blocking: opening a FIFO that has no writer returns at once (then refused below).
    handle = await open(path, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    const example =
      what === "fixtures" && (error as { code?: unknown }).code === "ENOENT"
        ? ` The package ships an example to start from: ${packagePath("examples/fixtures.json")}`
        : "";
    throw cannot(`${oneLine((error as Error).message)}.${example}`);
  }
  let bytes: Uint8Array;
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw cannot(
        "it is not a regular file (a directory, FIFO, socket or device); give a JSON file.",
      );
    }
    if (info.size > MAX_FIXTURES_FILE_BYTES) {
      throw tooLarge(String(info.size));
    }
    // One byte more than the bound (`end` is inclusive): a file that grew since the stat is caught
    // too.
    bytes = await buffer(
      handle.createReadStream({ start: 0, end: MAX_FIXTURES_FILE_BYTES, autoClose: false }),
    );
    if (bytes.byteLength > MAX_FIXTURES_FILE_BYTES) {
      throw tooLarge(`more than ${MAX_FIXTURES_FILE_BYTES}`);
    }
  } catch (error) {
    throw error instanceof StartError ? error : cannot(oneLine((error as Error).message));
  } finally {
    await handle.close().catch(() => {});
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new StartError(`The ${what} file ${path} is not UTF-8 text.`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new StartError(
      `The ${what} file ${path} is not valid JSON: ${oneLine((error as Error).message)}`,
    );
  }
  const duplicates = duplicateKeyIssues(text);
  if (duplicates.length > 0) {
    const problems = new FixturesError(
      duplicates,
      `${what === "fixtures" ? "Fixtures" : "Catalogs"} refused, nothing loaded`,
    );
    throw new StartError(`The ${what} file ${path}: ${oneLine(problems.message)}`);
  }
  return value;
}

/**
 * Reads a price history file: a JSON array of catalogs, oldest first, or `{ "catalogs": [...] }`
 * (with `$schema`, as the package's data/catalog.json), checked whole as `createReferenceServer`
 * checks its `catalogs` option: every problem of every entry is named, and nothing is served.
 */
async function readCatalogs(path: string): Promise<readonly Catalog[]> {
  const value = await readJsonFile(path, "catalogs");
  let list: unknown = value;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const extra = Object.keys(value).filter((k) => k !== "catalogs" && k !== "$schema");
    if (!Object.hasOwn(value, "catalogs") || extra.length > 0) {
      const found = extra.length > 0 ? `; found ${extra.slice(0, 5).map(show).join(", ")}.` : ".";
      throw new StartError(
        `The catalogs file ${path} must hold a JSON array of catalogs, oldest first, or ` +
          `{ "catalogs": [...] }${found}`,
      );
    }
    list = (value as { catalogs: unknown }).catalogs;
  }
  if (!Array.isArray(list)) {
    throw new StartError(
      `The catalogs file ${path} must hold a JSON array of catalogs, oldest first; it ` +
        `holds ${show(list)}.`,
    );
  }
  try {
    return defineCatalogHistory(list as readonly Catalog[]);
  } catch (error) {
    if (!(error instanceof CatalogHistoryError)) {
      throw error;
    }
    throw new StartError(`The catalogs file ${path}: ${oneLine(error.message)}`);
  }
}

/** What the files of a start hold, checked. */
type StartFiles = {
  /**
   * The fixtures as served, every user with its id (made now for a user given without one); none
   * without `--fixtures`.
   */
  fixtures: Fixtures | undefined;
  /**
   * The fixture users as checked, in the file's order, with those same ids; empty without
   * `--fixtures`.
   */
  users: CheckedFixtures["users"];
  /** The price history of `--catalogs`, oldest first; none without it. */
  catalogs: readonly Catalog[] | undefined;
};

/**
 * Reads the fixtures and catalogs files `serve` was given, and checks the fixtures as the server
 * will: a bad file is refused whole with a StartError (exit code 2), its first problems named.
 */
export async function readStartFiles(paths: {
  fixtures: string | undefined;
  catalogs: string | undefined;
}): Promise<StartFiles> {
  const fixtures =
    paths.fixtures === undefined ? undefined : await readJsonFile(paths.fixtures, "fixtures");
  const catalogs = paths.catalogs === undefined ? undefined : await readCatalogs(paths.catalogs);
  if (fixtures === undefined) {
    return { fixtures: undefined, users: [], catalogs };
  }
  const checked = checkFixtures(fixtures);
  if (!checked.success) {
    throw fixturesRefused(paths.fixtures, new FixturesError(checked.issues));
  }
  const { users } = checked.output;
  // Each user with the id the check made for one given without, so that what is printed is what is
  // served.
  const served = (fixtures as Fixtures).users.map((user, i) => ({
    ...user,
    id: users[i]?.id as string,
  }));
  return { fixtures: { ...(fixtures as Fixtures), users: served }, users, catalogs };
}

/**
 * The reason to stop for fixtures refused, when read here or when the server loads them: the file
 * and its first problems.
 */
export function fixturesRefused(path: string | undefined, error: FixturesError): StartError {
  return new StartError(`The fixtures file ${path}: ${oneLine(error.message)}`);
}
