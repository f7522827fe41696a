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
