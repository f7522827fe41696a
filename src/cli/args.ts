/** Command-line values shared by the commands: whole numbers and the instant to price at. */
import { type Catalog, catalog, catalogAt, catalogHistory } from "../index.js";
import { UsageError } from "./io.js";

/**
 * Reads a whole-number argument; anything that is not written as one is a usage error, so that
 * `--refs abc` is caught here while `--refs 99` reaches the pricing rules (and their reason code).
 *
 * @param name - The option, for the message.
 * @param text - What the user typed.
 * @param min - The smallest value accepted.
 * @returns The number.
 */
export function wholeNumber(name: string, text: string, min: number): number {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < min || !Number.isSafeInteger(Number(trimmed))) {
    throw new UsageError(`${name} must be a whole number${min > 0 ? ` of at least ${min}` : ""}; received "${text}".`);
  }
  return Number(trimmed);
}

/**
 * The catalog an `--at` option selects: the built-in history's catalog in force at that instant,
 * or the newest catalog without one.
 *
 * @param at - What the user typed, or `undefined`.
 * @param now - The clock, for `--at now`.
 * @returns The catalog.
 */
export function catalogForAt(at: string | undefined, now: () => number = Date.now): Catalog {
  if (at === undefined) return catalog;
  try {
    return catalogAt(catalogHistory, at.trim() === "now" ? now() : at);
  } catch (error) {
    if (error instanceof RangeError) throw new UsageError(`--at "${at}": ${error.message}`);
    throw error;
  }
}
