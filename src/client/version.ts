/**
 * The package's version, sent in the client's `User-Agent`; a test keeps it equal to
 * package.json's. @internal
 */
export const VERSION = "0.5.0";
