/**
 * `imagegen-pricing serve --catalogs <file>` run in-process: a price history from the command line,
 * served with the catalog in force on the test clock (S17, P8), and a bad history refused whole
 * with every problem named (exit code 2, one line on standard error).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runServe } from "../../src/cli/serve.js";
import { type Catalog, catalog } from "../../src/index.js";

const tmp = mkdtempSync(join(tmpdir(), "catalogs-flag-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const file = (name: string, content: unknown) => {
  const path = join(tmp, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
};

const TOKEN = "catalogs-flag-admin-token";
const KEY = "ck_test_catalogs_flag_key_0123456789";
/** A change far after any real time this suite runs at: beta2 4K low 120 -> 130. */
const LATER: Catalog = {
  ...catalog,
  version: "2100-01-01",
  models: {
    ...catalog.models,
    beta2: {
      ...catalog.models.beta2,
      prices: { ...catalog.models.beta2.prices, "4K": { low: 130 } },
    },
  },
};

/** Runs `serve`, collecting what it prints, until `stop()`; `code` resolves with the exit code. */
function serveInProcess(args: string[]) {
  let stdout = "";
  let stderr = "";
  let stop: (by: string) => void = () => {};
  const stopped = new Promise<string>((resolve) => {
    stop = resolve;
  });
  const code = runServe(
    ["--port", "0", ...args],
    {
      out: (s) => {
        stdout += s;
      },
      err: (s) => {
        stderr += s;
      },
      readFile: async () => {
        throw new Error("serve reads its files itself");
      },
      readStdin: async () => "",
    },
    { stop: stopped },
  );
  /** The base URL from the first line, once it is printed (within a generous bound). */
  const url = async () => {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const found =
        /^Listening on (\S+)/.exec(stdout) ?? /^\{"event":"listening","url":"([^"]+)"/.exec(stdout);
      if (found) {
        return found[1] as string;
      }
      const settled = await Promise.race([
        code.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 20)),
      ]);
      if (settled) {
        throw new Error(`serve exited: ${stderr}`);
      }
    }
    throw new Error(`serve printed no URL within 30 s: ${stdout} ${stderr}`);
  };
  return { code, url, stop, out: () => stdout, err: () => stderr };
}

describe("serve --catalogs (S17)", () => {
  it("S17: serve --catalogs prices on the test clock: the quote's price and nextChange change when the clock crosses the change", async () => {
    const history = file("history.json", [catalog, LATER]);
    const fixtures = file("fixtures.json", {
      users: [{ id: "usr_catalogs", credits: 1000, apiKeys: [KEY] }],
    });
    const s = serveInProcess([
      "--catalogs",
      history,
      "--fixtures",
      fixtures,
      "--admin-token",
      TOKEN,
    ]);
    try {
      const base = await s.url();
      expect(s.out()).toContain(
        `Prices: ${history}, 2 catalogs (${catalog.version}, 2100-01-01); in force now: ${catalog.version}`,
      );
      const quote = async () => {
        const res = await fetch(`${base}/api/pricing/quote`, {
          method: "POST",
          headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
          body: JSON.stringify({
            kind: "image",
            modelId: "beta2",
            resolution: "4K",
            quality: "low",
          }),
        });
        expect(res.status).toBe(200);
        return (await res.json()) as Record<string, unknown>;
      };
      expect(await quote()).toMatchObject({
        credits: 120,
        catalogVersion: catalog.version,
        nextChange: {
          version: "2100-01-01",
          effectiveAt: "2100-01-01T00:00:00.000Z",
          credits: 130,
        },
      });
      const moved = await fetch(`${base}/admin/clock`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ now: "2100-01-01T00:00:00Z" }),
      });
      expect(await moved.json()).toEqual({ now: "2100-01-01T00:00:00.000Z", frozen: true });
      const after = await quote();
      expect(after).toMatchObject({ credits: 130, catalogVersion: "2100-01-01" });
      expect(after).not.toHaveProperty("nextChange");
    } finally {
      s.stop("the test");
    }
    expect(await s.code).toBe(0);
  });

  it("S17: the form of the package's data/catalog.json ({ $schema, catalogs }) is read too, and --json lists the versions", async () => {
    const shipped = JSON.parse(
      readFileSync(new URL("../../data/catalog.json", import.meta.url), "utf8"),
    ) as {
      catalogs: Catalog[];
    };
    const s = serveInProcess(["--catalogs", file("shipped.json", shipped), "--json"]);
    try {
      await s.url();
      const first = JSON.parse(s.out().split("\n")[0] ?? "{}") as {
        event: string;
        catalogs: string[];
      };
      expect(first).toMatchObject({
        event: "listening",
        catalogs: shipped.catalogs.map((c) => c.version),
      });
    } finally {
      s.stop("the test");
    }
    expect(await s.code).toBe(0);
  });

  it("S17: a bad history is refused whole, every problem named, exit 2 and one line on standard error", async () => {
    const bad = [
      catalog,
      { ...catalog, version: "2027-13-01" },
      { ...LATER, version: "2026-01-01" },
      { ...catalog, version: "2101-01-01", defaultModelId: 7 },
    ];
    const cases: [content: unknown, says: (string | RegExp)[]][] = [
      [
        bad,
        [
          "entry 1 (version 2027-13-01)",
          "entry 2 (version 2026-01-01)",
          "strictly increasing",
          "entry 3 (version 2101-01-01)",
          "defaultModelId",
        ],
      ],
      [[], ["non-empty array"]],
      [catalog, [/must hold a JSON array of catalogs, oldest first/]],
      [{ catalogs: [catalog], extra: 1 }, [/found "extra"/]],
      ["[{", ["is not valid JSON"]],
      ['[{"version": "2026-11-20", "version": "2026-11-21"}]', ["version"]],
    ];
    for (const [content, says] of cases) {
      const s = serveInProcess(["--catalogs", file("bad.json", content)]);
      const code = await s.code;
      expect(code, JSON.stringify(content).slice(0, 80)).toBe(2);
      expect(s.out()).toBe("");
      expect(s.err().split("\n")).toHaveLength(2); // one line and its newline
      expect(s.err()).toMatch(/^The catalogs file .*bad\.json/);
      for (const text of says) {
        expect(s.err()).toMatch(text);
      }
    }
    const missing = serveInProcess(["--catalogs", join(tmp, "no-such-file.json")]);
    expect(await missing.code).toBe(2);
    expect(missing.err()).toMatch(/^Cannot read the catalogs file /);
  });

  it("S17: the help names --catalogs", async () => {
    const s = serveInProcess(["--help"]);
    expect(await s.code).toBe(0);
    expect(s.out()).toMatch(/--catalogs <file> +a price history/);
  });
});
