/**
 * The layers of src/ and no import cycles, checked by dependency-cruiser (`npm run depcruise`, part
 * of `npm test`). Every import counts, `import type` included: a type-only import makes no cycle at
 * run time, but a reader of the lower module still has to read the higher one first.
 *
 * From the bottom: the browser-safe core; the memory store, then the server; the PostgreSQL store;
 * the Node binding; the testing and JSON Schema entries; the CLI. The client of the service stands
 * on the core alone. A module imports its own layer and the ones below, never one above.
 */
/** The core entry and what it imports: bundled for a browser, so valibot and nothing else. */
const CORE =
  "^src/(index[.]ts|types[.]ts|messages[.]ts|echo[.]ts|models/|request/|pricing/|generated/)";
/** The modules that may import a Node built-in: only the Node binding, the CLI, the PostgreSQL store and the testing entry. */
const NODE_SIDE = "^src/(node|cli|postgres|testing)/";

/**
 * A rule that a folder imports nothing of the ones named.
 *
 * @param {string} name - The rule's name.
 * @param {string} from - The importing modules (a path pattern).
 * @param {string[]} above - The folders or files of src/ (without `src/`) it may not import.
 * @param {string} comment - Why.
 * @returns {import("dependency-cruiser").IForbiddenRuleType} The rule.
 */
const below = (name, from, above, comment) => ({
  name,
  comment,
  severity: "error",
  from: { path: from },
  // A name ends at a slash or the path's end: `cli` is not the start of `client`.
  to: { path: `^src/(${above.join("|")})(/|$)` },
});

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "Modules that import each other, by any path, type-only imports included.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "core-imports-core",
      comment:
        "The core (src/index.ts and what it imports) imports nothing of the server, stores, Node, CLI, client or testing.",
      severity: "error",
      from: { path: CORE },
      to: { path: "^src/", pathNot: CORE },
    },
    {
      name: "core-is-browser-safe",
      comment: "The core bundles for a browser: no Node built-in.",
      severity: "error",
      from: { path: CORE },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "core-depends-on-valibot-only",
      comment: "valibot is the core's only runtime dependency.",
      severity: "error",
      from: { path: CORE },
      to: { path: "node_modules/", pathNot: "node_modules/valibot/" },
    },
    below(
      "store-below-server",
      "^src/store/",
      ["server", "postgres", "node", "testing", "jsonSchema[.]ts", "cli", "client"],
      "The memory store and the store contract know nothing of the server or of what stands on it.",
    ),
    below(
      "server-below-postgres",
      "^src/server/",
      ["postgres", "node", "testing", "jsonSchema[.]ts", "cli", "client"],
      "The server is a fetch handler: it runs on any store and any runtime.",
    ),
    below(
      "postgres-beside-server",
      "^src/postgres/",
      ["server", "node", "testing", "jsonSchema[.]ts", "cli", "client"],
      "The PostgreSQL store implements the store contract without the server.",
    ),
    below(
      "node-below-testing",
      "^src/node/",
      ["postgres", "testing", "jsonSchema[.]ts", "cli", "client"],
      "The Node binding serves a server; it does not choose the store or run the CLI.",
    ),
    below(
      "testing-below-cli",
      "^src/(testing/|jsonSchema[.]ts)",
      ["cli", "client"],
      "The testing and JSON Schema entries are libraries: they do not run the CLI.",
    ),
    below(
      "client-on-the-core",
      "^src/client/",
      ["server", "store", "node", "postgres", "testing", "jsonSchema[.]ts", "cli"],
      "The client of the service imports the core and nothing of the server side.",
    ),
    below(
      "conformance-on-the-core",
      "^src/conformance/",
      ["server", "store", "node", "postgres", "testing", "jsonSchema[.]ts", "cli", "client"],
      "The conformance kit checks any server over HTTP with the core as its oracle: nothing of the server side.",
    ),
    {
      name: "server-entry-on-top",
      comment: "src/server/index.ts is the entry: nothing inside the server imports it back.",
      severity: "error",
      from: { path: "^src/server/", pathNot: "^src/server/index[.]ts$" },
      to: { path: "^src/server/index[.]ts$" },
    },
    {
      name: "node-builtins-on-the-node-side",
      comment:
        "Only the Node binding, the CLI, the PostgreSQL store and the testing entry import a Node built-in.",
      severity: "error",
      from: { path: "^src/", pathNot: NODE_SIDE },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "pg-in-postgres-only",
      comment: "pg is an optional peer: only the PostgreSQL store loads it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/postgres/" },
      to: { path: "node_modules/(@types/)?pg/" },
    },
    {
      name: "fast-check-in-testing-only",
      comment: "fast-check is an optional peer: only the testing entry loads it.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/testing/" },
      to: { path: "node_modules/fast-check/" },
    },
    {
      name: "hono-in-server-entries-only",
      comment: "hono and @hono/node-server are dependencies of ./server and ./node only.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/(server|node)/" },
      to: { path: "node_modules/(hono|@hono/node-server)/" },
    },
    {
      name: "no-unresolvable",
      comment:
        "An import that resolves to no file: a typo, or a package missing from package.json.",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
