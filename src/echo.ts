/**
 * The one way a client's text goes back out, in a message, an issue path, a 404 or a log line
 * (S1, S15): only plain characters, no secret-shaped run, and short.
 */

/**
 * The most code points of a client value shown in a message, a path or a log line; a longer one is
 * cut there and ends in `...`. `BOUNDS.maxEchoChars` of the core is this number.
 */
export const MAX_ECHO_CHARS = 40;

/**
 * The shortest run that is hidden whole: the fewest secret characters an API key may have (16; a
 * key made by the service has 32). Whatever its prefix looks like, a key's secret is such a run on
 * its own, and so is an id or an admin token of that length; field names and words of up to 15
 * characters (`imageCount`, `referenceImages`) stay readable.
 */
export const HIDDEN_RUN_CHARS = 16;

/** What a hidden run is shown as. */
export const HIDDEN = "<hidden>";

/**
 * A run: key-alphabet characters (`A-Z a-z 0-9 _ -`), `%` and every character that is not shown
 * (anything outside printable ASCII, `"` and `\`), that is everything but the space and
 * ``! # $ & ' ( ) * + , . / : ; < = > ? @ [ ] ^ ` { | } ~``. A character that is not shown or an
 * escape sign therefore never splits a run: `ab%43de`, `ab\u0043de` and `ab<U+200B>cd` are each
 * one run.
 */
const RUN = /[^\x20\x21\x23\x24\x26-\x2c\x2e\x2f\x3a-\x40\x5b\x5d\x5e\x60\x7b-\x7e]+/y;
/** A character not shown as itself: anything but printable ASCII, and `"` and `\`. */
const UNSHOWN = /[^\x20\x21\x23-\x5b\x5d-\x7e]/gu;

/** Whether a run holds at least {@link HIDDEN_RUN_CHARS} code points. */
function long(run: string): boolean {
  if (run.length >= 2 * HIDDEN_RUN_CHARS) {
    return true;
  }
  let points = 0;
  for (const _ of run) {
    points++;
  }
  return points >= HIDDEN_RUN_CHARS;
}

/** What ends a cut text: the sign that more followed. */
const CUT_MARK = "...";

/**
 * Cuts a text to at most `max` UTF-16 units, never between the two halves of a surrogate pair (the
 * pair goes whole), and marks the cut with `...`; a text of `max` units or fewer comes back as it
 * is. On printable ASCII, which is all {@link safeEcho} returns, a unit is a character. The one cut
 * of a client's text: an echo and each field of an error answer (S15) are cut by it.
 *
 * @param text - Any text.
 * @param max - The most units kept before `...`.
 * @returns The text, or its first `max` units (one fewer where a pair would be split) and `...`.
 * @example
 * ```ts
 * cut("abcdef", 3); // "abc..."
 * cut("ab\u{1F600}", 3); // "ab..." (the emoji is two units, kept whole or not at all)
 * ```
 */
export function cut(text: string, max: number): string {
  if (text.length <= max) {
    return text;
  }
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return `${text.slice(0, end)}${CUT_MARK}`;
}

/**
 * A client's text made safe to send back or log: each run of {@link HIDDEN_RUN_CHARS} or more
 * key-alphabet characters (letters, digits, `_`, `-`, `%` and characters not shown) becomes
 * {@link HIDDEN}, each character outside printable ASCII (and `"`, `\`) becomes `?`, and the result
 * is cut to `max` characters followed by `...`. The result is printable ASCII without `"` or `\`,
 * so no escape or encoding can carry anything past the mask, and masking comes before cutting, so a
 * cut never leaves a short piece of a secret. Reads only as much of `value` as the result needs
 * (plus the rest of a run it reaches).
 *
 * @param value - The text as the client sent it.
 * @param max - The most characters kept before `...` (default {@link MAX_ECHO_CHARS}).
 * @returns The text to echo.
 * @example
 * ```ts
 * safeEcho("imageCount"); // "imageCount"
 * safeEcho("ск_test_AbCdEfGhIjKlMnOpQrStUvWx"); // "<hidden>"
 * safeEcho("/api/nothing/ck.test.AbCdEfGhIjKlMnOp"); // "/api/nothing/ck.test.<hidden>"
 * ```
 */
export function safeEcho(value: string, max: number = MAX_ECHO_CHARS): string {
  let out = "";
  let i = 0;
  // Read one piece past `max` when there is more: {@link cut} then sees that there was more.
  while (i < value.length && out.length <= max) {
    RUN.lastIndex = i;
    const run = RUN.exec(value)?.[0];
    if (run === undefined) {
      out += value[i]; // a printable ASCII character outside any run
      i++;
      continue;
    }
    i += run.length;
    if (!long(run)) {
      out += run.replace(UNSHOWN, "?");
    } else if (out.length + HIDDEN.length <= max) {
      out += HIDDEN;
    } else {
      return `${out}${CUT_MARK}`; // never half a mask
    }
  }
  return cut(out, max);
}
