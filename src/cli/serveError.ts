/**
 * How each step of `imagegen-pricing serve` refuses to start: a {@link StartError} carries the one
 * line `serve` prints on standard error and the exit code it ends with.
 */

/** A reason to stop before serving: one line, and the exit code. */
export class StartError extends Error {
  override readonly name = "StartError";

  /**
   * Makes the reason to stop.
   *
   * @param message - The line printed on standard error (without its newline).
   * @param code - The exit code: 1 could not start, 2 bad options or a bad file.
   */
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/**
 * One line, whatever a message holds.
 *
 * @param text - A message, perhaps of several lines.
 * @returns The message on one line, each line break and the spaces around it one space.
 */
export const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ").trim();
