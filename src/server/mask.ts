/**
 * What the request journal and `onResponse` keep of a client's text (a method, a path, an
 * idempotency key): masked by what a secret is, not only by its length, so that no piece of an
 * API key or of the admin token can be joined back into it.
 */
import { cut, HIDDEN, safeEcho } from "../echo.js";

/** Any run of characters other than letters and digits: what may sit inside a key's prefix. */
const GAP = "[^a-z0-9]*";

/** A pattern of `word` with a {@link GAP} between each two of its letters. */
const spaced = (word: string) => [...word].join(GAP);

/**
 * An API key's prefix (`ck_live_`, `ck_test_`) in any case, starting a word, with any characters
 * other than letters and digits inside it: `CK_Test`, `ck.test`, `c-k-live`.
 */
const KEY_PREFIX = new RegExp(
  `(?<![a-z0-9])${spaced("ck")}${GAP}(?:${spaced("live")}|${spaced("test")})`,
  "i",
);

/** What may follow a key's prefix before its secret: separators (a mask begins with `<`). */
const SEPARATORS = /^[^a-z0-9<]*/i;

/**
 * The masker of one server: a client's text made safe to keep. The admin token's letters and
 * digits, in order with anything between them (`adm_probe_.token_0123.456789abcd.ef`), are hidden
 * first; then every run that {@link safeEcho} hides; then whatever follows an API key's prefix,
 * split or not (`/api/ck_test_/Qx7mN2pL/9vR4tY8w`); the result is cut to `max` characters and
 * `...`. A caller's ordinary values (`order-1042`, `ast_harbour_1`) come back as they are.
 *
 * @param adminToken - The server's admin token, when it has one.
 * @returns A function of the text and the most characters kept (default: all).
 * @internal
 */
export function createMasker(
  adminToken: string | undefined,
): (value: string, max?: number) => string {
  const letters = adminToken?.replace(/[^A-Za-z0-9]/g, "") ?? "";
  const token = letters === "" ? undefined : new RegExp(letters.split("").join("[^a-z0-9]*"), "gi");
  return (value, max = Number.POSITIVE_INFINITY) => {
    const unshared = token === undefined ? value : value.replace(token, HIDDEN);
    const echoed = safeEcho(unshared, Number.POSITIVE_INFINITY);
    const prefix = KEY_PREFIX.exec(echoed);
    if (prefix === null) {
      return cut(echoed, max);
    }
    const end = prefix.index + prefix[0].length;
    const lead = SEPARATORS.exec(echoed.slice(end))?.[0] ?? "";
    const secret = echoed.slice(end + lead.length);
    const masked =
      secret === "" || secret === HIDDEN ? echoed : `${echoed.slice(0, end)}${lead}${HIDDEN}`;
    return cut(masked, max);
  };
}
