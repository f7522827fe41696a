/**
 * The server's sentences under their former module name, for the quote-spec schema that still
 * imports them from here; they live in errors.ts.
 */
export { serverMessages } from "./errors.js";
