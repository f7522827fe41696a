/**
 * `serve --fixtures <file>` run in-process: what is refused before anything is served (exit code
 * 2, one line on standard error): anything but a regular file, a file over 16 MiB, bytes that are
 * not UTF-8, and keys given twice in one object.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runServe } from "../../src/cli/serve.js";
import { MAX_FIXTURES_FILE_BYTES } from "../../src/cli/serveFiles.js";

const tmp = mkdtempSync(join(tmpdir(), "fixtures-file-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const file = (name: string, content: string | Uint8Array) => {
  const path = join(tmp, name);
  writeFileSync(path, content);
  return path;
};

/** Runs `serve` with these arguments; every case here is refused before it listens. */
async function serveRefused(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runServe(["--port", "0", ...args], {
    out: (s) => {
      stdout += s;
    },
    err: (s) => {
      stderr += s;
    },
    readFile: async () => {
      throw new Error("serve reads the fixtures file itself");
    },
    readStdin: async () => "",
  });
  expect(stdout).toBe("");
  expect(stderr.split("\n")).toHaveLength(2); // one line and its newline
  return { code, stderr };
}

describe("serve --fixtures: the file", () => {
  it("S15: a FIFO is refused at once (it would block the start forever), exit 2", {
    timeout: 30_000,
  }, async () => {
    const fifo = join(tmp, "fifo.json");
    execFileSync("mkfifo", [fifo]);
    const { code, stderr } = await serveRefused(["--fixtures", fifo]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `Cannot read the fixtures file ${fifo}: it is not a regular file (a directory, FIFO, socket or device); give a JSON file.\n`,
    );
  });

  it("S15: a directory is refused the same way", async () => {
    const dir = join(tmp, "dir.json");
    mkdirSync(dir);
    const { code, stderr } = await serveRefused(["--fixtures", dir]);
    expect(code).toBe(2);
    expect(stderr).toContain("it is not a regular file");
  });

  it("S15: a file over 16 MiB is refused by its size, before it is read; 16 MiB exactly is read", async () => {
    expect(MAX_FIXTURES_FILE_BYTES).toBe(16 * 1024 * 1024);
    const big = file("big.json", "");
    truncateSync(big, MAX_FIXTURES_FILE_BYTES + 1); // sparse: no disk or memory spent
    const refused = await serveRefused(["--fixtures", big]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      `Cannot read the fixtures file ${big}: it is ${MAX_FIXTURES_FILE_BYTES + 1} bytes; a fixtures file is at most ${MAX_FIXTURES_FILE_BYTES} bytes (16 MiB).\n`,
    );
    // At the bound it is read whole: NUL bytes are not JSON, which is the next refusal.
    truncateSync(big, MAX_FIXTURES_FILE_BYTES);
    const read = await serveRefused(["--fixtures", big]);
    expect(read.code).toBe(2);
    expect(read.stderr).toMatch(/^The fixtures file .*big\.json is not valid JSON: /);
  });

  it("S1: bytes that are not UTF-8 are refused, not read as U+FFFD", async () => {
    const path = file(
      "latin1.json",
      new Uint8Array([
        ...Buffer.from('{"users":[{"credits":1,"assets":["caf'),
        0xe9,
        ...Buffer.from('"]}]}'),
      ]),
    );
    const { code, stderr } = await serveRefused(["--fixtures", path]);
    expect(code).toBe(2);
    expect(stderr).toBe(`The fixtures file ${path} is not UTF-8 text.\n`);
  });

  it("S1: a key given twice in one object is refused at its path, wherever it is (JSON.parse would keep the last)", async () => {
    const path = file(
      "twice.json",
      '{"users":[{"id":"usr_a","credits":1,"assets":["x"]},{"credits":5,"credits":5000000}],"users":[{"credits":1}]}',
    );
    const { code, stderr } = await serveRefused(["--fixtures", path]);
    expect(code).toBe(2);
    expect(stderr).toBe(
      `The fixtures file ${path}: Fixtures refused, nothing loaded: users[1].credits: Key "credits" is given twice in this object: give it once, as JSON keeps only the last; users: Key "users" is given twice in this object: give it once, as JSON keeps only the last.\n`,
    );
  });

  it("S1: an asset id with U+0000 or two that differ only in a lone surrogate are refused before any store is made", async () => {
    const path = file(
      "odd.json",
      '{"users":[{"credits":1,"assets":["a\\u0000b","c\\ud800","c\\ud801"]}]}',
    );
    const { code, stderr } = await serveRefused([
      "--fixtures",
      path,
      "--database-url",
      "postgres://nobody@127.0.0.1:1/none",
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^The fixtures file .*odd\.json: Fixtures refused, nothing loaded: users\[0\]\.assets\[0\]: An asset id is /,
    );
    expect(stderr).toContain("users[0].assets[1]");
    expect(stderr).toContain("users[0].assets[2]");
  });
});
