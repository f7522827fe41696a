/**
 * The server of `imagegen-pricing playground`: the page, its two scripts and the core at /core.js,
 * nothing else; a page file missing from the package is a 404 (which the page then names).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PLAYGROUND_HELP, startPlayground } from "../../src/cli/playground.js";
import { run } from "../../src/cli/run.js";

const pageDir = mkdtempSync(join(tmpdir(), "imagegen-playground-page-"));
writeFileSync(join(pageDir, "index.html"), "<!doctype html><title>preview</title>");
writeFileSync(join(pageDir, "app.js"), 'import "./core.js";');
afterAll(() => rmSync(pageDir, { recursive: true, force: true }));

describe("the playground server", () => {
  it("serves the page, its scripts and the core, and nothing else", async () => {
    const core = "export const catalog = {};";
    const playground = await startPlayground({ core, pageDir, port: 0, host: "127.0.0.1" });
    try {
      expect(playground.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      const page = await fetch(playground.url);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await page.text()).toContain("<title>preview</title>");
      const served = await fetch(new URL("core.js", playground.url));
      expect(served.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
      expect(await served.text()).toBe(core);
      expect((await fetch(new URL("app.js", playground.url))).status).toBe(200);
      // fields.js is a page file this folder lacks: 404, as for any path that is not the page's.
      for (const path of ["fields.js", "package.json", "../package.json", "index.htm"]) {
        expect((await fetch(new URL(path, playground.url))).status, path).toBe(404);
      }
      const post = await fetch(playground.url, { method: "POST" });
      expect(post.status).toBe(405);
      expect(post.headers.get("allow")).toBe("GET, HEAD");
    } finally {
      await playground.close();
    }
  });

  it("help playground and playground --help print its usage; a bad --port exits 2", async () => {
    for (const argv of [
      ["help", "playground"],
      ["playground", "--help"],
    ]) {
      let out = "";
      const code = await run(argv, {
        out: (s) => {
          out += s;
        },
        err: () => {},
        readFile: async () => "",
        readStdin: async () => "",
      });
      expect(code).toBe(0);
      expect(out).toBe(PLAYGROUND_HELP);
    }
    let err = "";
    const io = {
      out: () => {},
      err: (s: string) => {
        err += s;
      },
      readFile: async () => "",
      readStdin: async () => "",
    };
    expect(await run(["playground", "--port", "http"], io)).toBe(2);
    expect(err).toContain('--port must be a whole number; received "http".');
  });
});
