/**
 * `npm start`: `imagegen-pricing serve` from the sources with the demo fixtures
 * (examples/demo-fixtures.json: one user, three assets and a ck_test_ key), on 127.0.0.1:$PORT
 * (default 8787; $HOST to change the address, $DATABASE_URL to keep the state in PostgreSQL). It
 * prints the base URL, the demo key and curl lines that work as pasted; Ctrl-C stops it cleanly.
 */
import { readFile } from "node:fs/promises";
import { relative } from "node:path";
import { text } from "node:stream/consumers";
import { fileURLToPath } from "node:url";
import { run } from "../src/cli/run.js";

const port = process.env.PORT || "8787";
if (!/^\d+$/.test(port) || Number(port) > 65535) {
  console.error(`PORT must be a whole number from 0 to 65535; got ${JSON.stringify(port)}.`);
  process.exit(2);
}
const fixtures = relative(
  process.cwd(),
  fileURLToPath(new URL("../examples/demo-fixtures.json", import.meta.url)),
);
const args = [
  "serve",
  "--port",
  port,
  "--host",
  process.env.HOST || "127.0.0.1",
  "--fixtures",
  fixtures,
];
if (process.env.DATABASE_URL) {
  args.push("--database-url", process.env.DATABASE_URL);
}

process.exitCode = await run(args, {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  readFile: (path) => readFile(path, "utf8"),
  readStdin: () => text(process.stdin),
});
