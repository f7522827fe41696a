/** The command line's boundary with the world: streams, files, clock, exit codes and its errors. */
import type { Catalog } from "../index.js";

/** What a command may touch, so that tests run it in-process with fake streams, files and clock. */
export type CliIo = {
  /** Writes text to standard output as given (no newline added). */
  out: (text: string) => void;
  err: (text: string) => void;
  /** Read a whole file, and all of standard input, as UTF-8. */
  readFile: (path: string) => Promise<string>;
  readStdin: () => Promise<string>;
  /** The catalog history `--at` chooses from (default: the package's `catalogHistory`). */
  history?: readonly Catalog[];
  /** The clock of `--at now`, in epoch milliseconds (default: `Date.now`). */
  now?: () => number;
};

/**
 * Exit codes: 0 done, 1 the request or spec is invalid or cannot be priced (or catalogs differ), 2
 * bad arguments.
 */
export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/** A mistake in the command line itself: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * A file the command cannot use (unreadable, not JSON, not a valid catalog): one line, exit code 2.
 */
export class InputError extends Error {
  override readonly name = "InputError";
}

/**
 * A reason for `serve` to stop before serving: one line, and the exit code (1 could not start, 2
 * bad options or files).
 */
export class StartError extends Error {
  override readonly name = "StartError";

  /**
   * Makes the reason to stop: the line printed on standard error (without its newline), and the
   * exit code.
   */
  constructor(
    message: string,
    readonly code: number = EXIT.usage,
  ) {
    super(message);
  }
}

/** A message on one line, each line break and the spaces around it one space. */
export const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();

/**
 * Reads a JSON file, or standard input for `-`, before anything in it is judged: `Unreadable` when
 * it cannot be read, InputError saying where the JSON breaks when it is not JSON.
 */
export async function readJson(
  source: string,
  io: Pick<CliIo, "readFile" | "readStdin">,
  Unreadable: new (message: string) => Error = InputError,
): Promise<unknown> {
  let text: string;
  try {
    text = source === "-" ? await io.readStdin() : await io.readFile(source);
  } catch (error) {
    throw new Unreadable(`Cannot read ${source}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    // Not JSON is a bad file (exit 2), like one that cannot be read: there is nothing in it to
    // judge.
    throw new InputError(
      `${source === "-" ? "Standard input" : source} is not valid JSON: ` +
        `${(error as Error).message}`,
    );
  }
}
