/**
 * Masking API keys out of any text the server sends back (S1, S15): one scanner that sees through
 * case, URL and JSON encodings and separator look-alikes, and a helper that cuts an echoed value.
 */

/**
 * One character of the text as read through its encodings: the code point it stands for, and the
 * span of the original text it came from.
 */
type Units = {
  length: number;
  cps: Int32Array;
  starts: Int32Array;
  ends: Int32Array;
  /** 1 when the unit is an escape that ends in a `c` (`%4c`, `\\u00ac`), at any layer. */
  endsInC: Uint8Array;
};

/** Code points, read with `undefined` past the end like an array. */
type Cps = Int32Array;

const newUnits = (length: number): Units => ({
  length,
  cps: new Int32Array(length),
  starts: new Int32Array(length),
  ends: new Int32Array(length),
  endsInC: new Uint8Array(length),
});

/** The value of a hex digit, or -1. */
function hexDigit(cp: number | undefined): number {
  if (cp === undefined) return -1;
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  const lower = cp | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
}
const isHex = (cp: number | undefined) => hexDigit(cp) >= 0;
const hexValue = (cps: Cps, from: number, count: number) => {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 16 + hexDigit(cps[i]);
  return value;
};
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const AMPERSAND = 0x26;
const code = (c: string) => c.charCodeAt(0);
const [DIGIT_2, DIGIT_5, LOWER_X, UPPER_X, LOWER_U, UPPER_U, OPEN_BRACE, CLOSE_BRACE, HASH, SEMICOLON] = [..."25xXuU{}#;"].map(
  code,
) as [number, number, number, number, number, number, number, number, number, number];

/** What a backslash escape letter stands for (JSON, JavaScript, C); any other letter stands for itself. */
const ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, b: 0x08, f: 0x0c, v: 0x0b, "0": 0x00 };

/** Named HTML character references of underscores and dashes (numeric ones are read in general). */
const ENTITIES: Record<string, number> = {
  lowbar: 0x5f,
  UnderBar: 0x5f,
  hyphen: 0x2010,
  dash: 0x2010,
  ndash: 0x2013,
  mdash: 0x2014,
  horbar: 0x2015,
  minus: 0x2212,
  shy: 0xad,
};

/**
 * Reads one byte escape at `i`: `%hh` (also `%25hh`, `%2525hh` ..., an escape URL-encoded again) or
 * a run of backslashes then `xhh`. Answers the byte, where the escape ends and its kind.
 */
function byteAt(cps: Cps, i: number): [number, number, "%" | "x"] | undefined {
  if (cps[i] === PERCENT) {
    let p = i + 1;
    while (cps[p] === DIGIT_2 && cps[p + 1] === DIGIT_5 && isHex(cps[p + 2]) && isHex(cps[p + 3])) p += 2;
    return isHex(cps[p]) && isHex(cps[p + 1]) ? [hexValue(cps, p, 2), p + 2, "%"] : undefined;
  }
  if (cps[i] === BACKSLASH) {
    let q = i;
    while (cps[q] === BACKSLASH) q++;
    if (cps[q] === LOWER_X && isHex(cps[q + 1]) && isHex(cps[q + 2])) return [hexValue(cps, q + 1, 2), q + 3, "x"];
  }
  return undefined;
}

/**
 * Reads a byte escape and, when it starts a UTF-8 sequence, the escapes of the same kind that
 * complete it (`%E2%80%90` is U+2010). A byte that starts no valid sequence stands for itself.
 */
function bytesAt(cps: Cps, i: number): [number, number] | undefined {
  const lead = byteAt(cps, i);
  if (!lead) return undefined;
  const [byte, end, kind] = lead;
  const more = byte >= 0xf0 && byte <= 0xf4 ? 3 : byte >= 0xe0 && byte <= 0xef ? 2 : byte >= 0xc2 && byte <= 0xdf ? 1 : 0;
  let value = more === 3 ? byte & 0x07 : more === 2 ? byte & 0x0f : byte & 0x1f;
  let at = end;
  for (let k = 0; k < more; k++) {
    const next = byteAt(cps, at);
    if (!next || next[2] !== kind || next[0] < 0x80 || next[0] > 0xbf) return [byte, end];
    value = (value << 6) | (next[0] & 0x3f);
    at = next[1];
  }
  return more === 0 ? [byte, end] : [value, at];
}

/**
 * Reads one encoded character at `i`: byte escapes (`%5F`, `%255F`, `\x5f`, UTF-8 sequences of
 * them) and `%uhhhh`; a run of backslashes then `uhhhh`, `u{h...}` or one letter; `&#d...;`,
 * `&#xh...;` and a few named references. Answers the code point and where the encoding ends, or
 * `undefined`.
 */
function decodeAt(cps: Cps, i: number): [number, number] | undefined {
  const first = cps[i];
  if (first === PERCENT) {
    if ((cps[i + 1] === LOWER_U || cps[i + 1] === UPPER_U) && hexRun(cps, i + 2, 4)) {
      return [hexValue(cps, i + 2, 4), i + 6];
    }
    return bytesAt(cps, i);
  }
  if (first === BACKSLASH) {
    const bytes = bytesAt(cps, i);
    if (bytes) return bytes;
    let q = i;
    while (cps[q] === BACKSLASH) q++;
    const letter = cps[q];
    if (letter === undefined) return undefined;
    if (letter === LOWER_U && hexRun(cps, q + 1, 4)) return [hexValue(cps, q + 1, 4), q + 5];
    if (letter === LOWER_U && cps[q + 1] === OPEN_BRACE) {
      let r = q + 2;
      while (isHex(cps[r]) && r - q < 9) r++;
      const value = r > q + 2 && cps[r] === CLOSE_BRACE ? hexValue(cps, q + 2, r - q - 2) : -1;
      if (value >= 0 && value <= 0x10ffff) return [value, r + 1];
    }
    // A backslash run always swallows the letter after it, so that a JSON escape is never split.
    return [ESCAPES[String.fromCodePoint(letter)] ?? letter, q + 1];
  }
  if (first === AMPERSAND) return entityAt(cps, i);
  return undefined;
}

/** Whether `count` hex digits start at `from`. */
function hexRun(cps: Cps, from: number, count: number): boolean {
  for (let k = from; k < from + count; k++) if (!isHex(cps[k])) return false;
  return true;
}

/** Reads an HTML character reference at `i` (`&#95;`, `&#x5F;`, `&lowbar;` ...), or `undefined`. */
function entityAt(cps: Cps, i: number): [number, number] | undefined {
  if (cps[i + 1] === HASH) {
    const hex = cps[i + 2] === LOWER_X || cps[i + 2] === UPPER_X;
    let r = hex ? i + 3 : i + 2;
    let value = 0;
    const start = r;
    for (; r - start < (hex ? 6 : 7); r++) {
      const digit = hexDigit(cps[r]);
      if (digit < 0 || (!hex && digit > 9)) break;
      value = value * (hex ? 16 : 10) + digit;
    }
    return r > start && cps[r] === SEMICOLON && value <= 0x10ffff ? [value, r + 1] : undefined;
  }
  let r = i + 1;
  while (r - i <= 8 && isLetter(cps[r])) r++;
  if (r === i + 1 || cps[r] !== SEMICOLON) return undefined;
  let name = "";
  for (let k = i + 1; k < r; k++) name += String.fromCharCode(cps[k] as number);
  const value = ENTITIES[name];
  return value === undefined ? undefined : [value, r + 1];
}

const isLetter = (cp: number | undefined) => cp !== undefined && (cp | 0x20) >= 0x61 && (cp | 0x20) <= 0x7a;

/** One layer of decoding: every encoded character becomes one unit spanning its whole encoding. */
function decodeLayer(units: Units): { units: Units; changed: boolean } {
  const { cps, starts, ends, endsInC, length } = units;
  const view = cps.subarray(0, length);
  const out = newUnits(length);
  let n = 0;
  for (let i = 0; i < length; ) {
    const decoded = decodeAt(view, i);
    const end = decoded ? decoded[1] : i + 1;
    out.cps[n] = decoded ? decoded[0] : (cps[i] as number);
    out.starts[n] = starts[i] as number;
    out.ends[n] = ends[end - 1] as number;
    // An escape whose last hex digit is a `c` may have eaten the first letter of a key.
    const last = cps[end - 1] as number;
    out.endsInC[n] = endsInC[end - 1] || (decoded !== undefined && (last | 0x20) === 0x63) ? 1 : 0;
    n++;
    i = end;
  }
  out.length = n;
  return { units: out, changed: n !== length };
}

/** Layers of encoding seen through (a key URL-encoded, then put in JSON, then URL-encoded again...). */
const MAX_LAYERS = 4;

/** Dashes and low lines that look like `-` and `_`. */
const LOOK_ALIKES: Record<number, string> = {
  8208: "-",
  8209: "-",
  8210: "-",
  8211: "-",
  8212: "-",
  8213: "-",
  8259: "-",
  8722: "-",
  11834: "-",
  11835: "-",
  65112: "-",
  65123: "-",
  65293: "-",
  8215: "_",
  65101: "_",
  65102: "_",
  65103: "_",
  65343: "_",
};

/**
 * Folds a non-ASCII code point to one UTF-16 unit for matching: look-alike dashes
 * and low lines to `-` and `_`, other non-ASCII characters through NFKC (fullwidth `ｃｋ`, circled
 * or mathematical letters) when that gives one character; anything else past U+FFFF to U+FFFF.
 */
function fold(cp: number): number {
  const known = cp <= 0xffff ? BMP_FOLDS[cp] : 0;
  if (known) return known;
  const normal = String.fromCodePoint(cp).normalize("NFKC").toLowerCase();
  let out = LOOK_ALIKES[cp];
  if (out === undefined && normal.length === 1) out = LOOK_ALIKES[normal.charCodeAt(0)] ?? normal;
  const folded = out !== undefined ? out.charCodeAt(0) : cp > 0xffff ? 0xffff : cp;
  if (cp <= 0xffff) BMP_FOLDS[cp] = folded;
  return folded;
}

/** Folds of the basic plane already worked out (0: not yet): NFKC is the slow part. */
const BMP_FOLDS = new Uint16Array(0x10000);

const startsEscape = (cp: number) => cp === PERCENT || cp === BACKSLASH || cp === AMPERSAND;
const ASCII_FOLDS = Array.from({ length: 0x80 }, (_, cp) => String.fromCharCode(cp).toLowerCase().charCodeAt(0));

/**
 * A separator: `_`, `-` and their look-alikes (folded to them), control characters other than
 * tab, line feed and carriage return (NUL among them), the soft hyphen and the invisible format
 * characters (zero-width spaces and joiners, bidi marks, the byte-order mark). Visible spaces are
 * not separators: whitespace ends a key.
 */
const SEP =
  "[-_\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f\\xad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\ufeff]";

/** A key after its `c` in folded text: the rest of the prefix, separators anywhere in it, then the secret run. */
const AFTER_C = `${SEP}*k${SEP}+(?:(t)${SEP}*e${SEP}*s${SEP}*t|l${SEP}*i${SEP}*v${SEP}*e)${SEP}+[a-z0-9](?:[a-z0-9]|${SEP})*`;
const KEY = new RegExp(`c${AFTER_C}`, "g");
/** The same after an escape that ended in the `c` (`%4c` before `k_test_...`), tried where it ends. */
const KEY_AFTER_ESCAPE = new RegExp(AFTER_C, "y");

/** Text with nothing encoded, no control and no non-ASCII character: matched as it is, lower-cased. */
const PLAIN = /^[\x20-\x24\x27-\x5b\x5d-\x7e]*$/;
/** Text with nothing encoded and no surrogate: one unit per UTF-16 unit. */
const UNENCODED = /^[^%&\\\ud800-\udfff]*$/;

/**
 * Masks every API key in a text, whole: `ck_test_` or `ck_live_` and the secret run after it are
 * replaced by `ck_test_...` or `ck_live_...`.
 *
 * The exact rule. The text is first read through up to four layers of encoding: percent-encoding
 * (`%5F`, `%5f`, `%255F`, `%u005F`), backslash escapes (`\u005f`, `\u{5f}`, `\x5f`, `\0`, `\n` ...,
 * preceded by any number of backslashes, so JSON escapes and escaped escapes both read) and HTML
 * character references (`&#95;`, `&#x5F;`, `&lowbar;`, `&hyphen;` ...). Each character is then folded:
 * any case, fullwidth and other compatibility forms (NFKC), and look-alike dashes (U+2010..U+2015,
 * U+2043, U+2212, U+FE58, U+FE63, U+FF0D) and low lines (U+2017, U+FE4D..U+FE4F, U+FF3F) count as
 * `-` and `_`. A key is then `c`, `k`, the mode `test` or `live`, and the secret, where:
 *
 * - separators may stand anywhere inside the prefix: any number between two of its letters, and at
 *   least one between `ck` and the mode and between the mode and the secret. A separator is `_`,
 *   `-`, a look-alike of either, a control character other than tab, line feed and carriage return
 *   (NUL among them), the soft hyphen or an invisible format character (zero-width spaces and
 *   joiners, bidi marks, U+FEFF);
 * - the secret is everything from the first ASCII letter or digit after the prefix up to the first
 *   character that is neither a letter, a digit nor a separator: whitespace, a quote, `.`, `/`, `&`,
 *   `?` ... end it. However short (a key already cut), it is masked.
 *
 * The mask replaces whole encoded characters only, so a JSON text stays valid JSON and a path stays
 * a path. Text without a key comes back unchanged (the same string). A word such as
 * `stuck_test_case` also reads as a key and is masked: for an echo, masking too much is the safe side.
 *
 * @param text - Any text: a JSON body, a path, a message.
 * @returns The text with every key masked.
 * @example
 * ```ts
 * redactSecrets('{"modelId":"CK%5FTEST%5FAbC123xyz"}'); // '{"modelId":"ck_test_..."}'
 * ```
 */
export function redactSecrets(text: string): string {
  if (PLAIN.test(text)) {
    const lower = text.toLowerCase();
    return lower.includes("ck") ? replace(text, findKeys(lower, same, same)) : text;
  }
  if (UNENCODED.test(text)) {
    // One unit per UTF-16 unit: fold in place, no map needed.
    const codes = new Uint16Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      codes[i] = c < 0x80 ? (ASCII_FOLDS[c] as number) : fold(c);
    }
    const folded = fromCodes(codes);
    return folded.includes("c") ? replace(text, findKeys(folded, same, same)) : text;
  }
  const { folded, endsInC, startOf, endOf } = read(text);
  const keys = findKeys(folded, startOf, endOf);
  for (let unit = 0; unit < endsInC.length; unit++) {
    if (!endsInC[unit] || folded[unit] === "c") continue;
    // Read the escape's last digit as the `c` of a key: `%4` just before `ck_test_...` reads `%4c`.
    KEY_AFTER_ESCAPE.lastIndex = unit + 1;
    const m = KEY_AFTER_ESCAPE.exec(folded);
    if (m) keys.push({ start: startOf(unit), end: endOf(unit + 1 + m[0].length), mode: m[1] ? "test" : "live" });
  }
  return keys.length === 0 ? text : replace(text, keys);
}

/** Positions in text read one unit per UTF-16 unit map to themselves. */
const same = (i: number) => i;

/** A key found: where it starts and ends in the original text, and its mode. */
type Found = { start: number; end: number; mode: "test" | "live" };

/**
 * Reads a text through its layers of encoding into folded text, one character per unit, with
 * the map from unit positions back to the original text.
 */
function read(text: string) {
  let units = newUnits(text.length);
  let n = 0;
  let escapes = false;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    units.cps[n] = cp;
    units.starts[n] = i;
    units.ends[n] = i + width;
    escapes ||= startsEscape(cp);
    n++;
    i += width;
  }
  units.length = n;
  for (let layer = 0; layer < MAX_LAYERS && escapes; layer++) {
    const next = decodeLayer(units);
    units = next.units;
    escapes = next.changed && units.cps.subarray(0, units.length).some(startsEscape);
  }
  const codes = new Uint16Array(units.length);
  for (let i = 0; i < units.length; i++) {
    const cp = units.cps[i] as number;
    codes[i] = cp < 0x80 ? (ASCII_FOLDS[cp] as number) : fold(cp);
  }
  const { starts, ends } = units;
  return {
    folded: fromCodes(codes),
    endsInC: units.endsInC.subarray(0, units.length),
    startOf: (unit: number) => starts[unit] as number,
    endOf: (unitEnd: number) => ends[unitEnd - 1] as number,
  };
}

/** A string from UTF-16 code units, in slices small enough to spread. */
function fromCodes(codes: Uint16Array): string {
  let out = "";
  for (let i = 0; i < codes.length; i += 8192) out += String.fromCharCode(...codes.subarray(i, i + 8192));
  return out;
}

/** Every key in folded text (one character per unit), mapped back to the original text. */
function findKeys(folded: string, startOf: (unit: number) => number, endOf: (unitEnd: number) => number): Found[] {
  const found: Found[] = [];
  KEY.lastIndex = 0;
  for (let m = KEY.exec(folded); m !== null; m = KEY.exec(folded)) {
    found.push({ start: startOf(m.index), end: endOf(m.index + m[0].length), mode: m[1] ? "test" : "live" });
  }
  return found;
}

/** Replaces each key, overlapping ones merged, by its mask. */
function replace(text: string, keys: Found[]): string {
  if (keys.length === 0) return text;
  keys.sort((a, b) => a.start - b.start);
  let out = "";
  let copied = 0;
  for (let i = 0; i < keys.length; ) {
    const key = keys[i] as Found;
    let end = key.end;
    for (i++; i < keys.length && (keys[i] as Found).start < end; i++) end = Math.max(end, (keys[i] as Found).end);
    out += `${text.slice(copied, key.start)}ck_${key.mode}_...`;
    copied = end;
  }
  return out + text.slice(copied);
}

/**
 * A client's value made safe to quote in a message: keys masked first ({@link redactSecrets}), then
 * cut to at most `max` characters (code points, never half a surrogate pair) with `…` in place of
 * the rest. Masking before cutting means a cut can never leave a piece of a key unrecognised.
 *
 * @param value - The value as the client sent it.
 * @param max - The most characters to keep, the `…` included (at least 1).
 * @returns The masked, cut value.
 * @example
 * ```ts
 * cutForEcho("x".repeat(100), 10); // "xxxxxxxxx…"
 * ```
 */
export function cutForEcho(value: string, max: number): string {
  const masked = redactSecrets(value);
  const limit = Math.max(1, Math.floor(max));
  if (masked.length <= limit) return masked;
  const points = Array.from(masked.slice(0, 2 * limit));
  if (points.length <= limit && masked.length <= 2 * limit) return masked;
  return `${points.slice(0, limit - 1).join("")}…`;
}
