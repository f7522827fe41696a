/**
 * The API reference (`npm run docs`): built with typedoc into a temporary directory, it must build
 * without a warning, title each module by its import path, link the main functions from its first
 * page, show each public name with its summary on its module page and include every guide.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  name: string;
  exports: Record<string, unknown>;
};
const config = JSON.parse(readFileSync(`${root}typedoc.json`, "utf8")) as {
  readme: string;
  projectDocuments: string[];
  treatWarningsAsErrors: boolean;
};
/** The import paths of the package's library entries (`imagegen-pricing`, `imagegen-pricing/server`, ...); data files are not modules. */
const importPaths = Object.keys(pkg.exports)
  .filter((s) => !s.endsWith(".json"))
  .map((s) => (s === "." ? pkg.name : `${pkg.name}/${s.slice(2)}`));

let out = "";
let build = { code: 0, output: "" };

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), "imagegen-pricing-api-"));
  try {
    const { stdout, stderr } = await run(
      `${root}node_modules/.bin/typedoc`,
      ["--out", out, "--treatWarningsAsErrors"],
      {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    build = { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    build = { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}, 300_000);

afterAll(() => {
  if (out) {
    rmSync(out, { recursive: true, force: true });
  }
});

const page = (path: string) => readFileSync(join(out, path), "utf8");

/** Text of an HTML fragment: no tags, entities decoded, whitespace collapsed. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ")
    .trim();

/** The names a module page lists, each with the summaries shown next to it (a function and a type can share a name). */
function summaries(html: string): Map<string, string[]> {
  const shown = new Map<string, string[]>();
  for (const [, dt = "", dd = ""] of html.matchAll(
    /<dt class="tsd-member-summary"[^>]*>(.*?)<\/dt><dd class="tsd-member-summary">(.*?)<\/dd>/gs,
  )) {
    // A re-export from another entry reads `Name → Name`.
    const name = text(dt).split("→")[0]?.trim() ?? "";
    shown.set(name, [...(shown.get(name) ?? []), text(dd)]);
  }
  return shown;
}

/** The names and summaries of an entry's API report (api-report/*.summary.md, checked against the build by `npm run api:check`). */
function reported(importPath: string): Map<string, string> {
  const file =
    importPath === pkg.name
      ? `${pkg.name}.summary.md`
      : `${importPath.slice(pkg.name.length + 1)}.summary.md`;
  const rows = readFileSync(`${root}api-report/${file}`, "utf8").matchAll(
    /^\| `([^`]+)` \| [^|]+ \| (.*) \|$/gm,
  );
  return new Map(
    [...rows].map(([, name = "", summary = ""]) => [
      name,
      summary.replace(/\\\|/g, "|").replace(/`/g, ""),
    ]),
  );
}

describe("the API reference (npm run docs)", () => {
  it("builds without a warning (typedoc.json treats warnings as errors, so npm run docs fails on one)", () => {
    expect(config.treatWarningsAsErrors).toBe(true);
    expect(build.output).not.toMatch(/\[warning\]|\[error\]/);
    expect(build.code, build.output).toBe(0);
  });

  it("titles each module by its import path, one module per entry of package.json exports", () => {
    const titles = readdirSync(join(out, "modules")).map(
      (file) => /<h1>Module ([^<]+)<\/h1>/.exec(page(`modules/${file}`))?.[1],
    );
    expect(titles.sort()).toEqual([...importPaths].sort());
  });

  it("links the four main functions and the server from its first page", () => {
    const index = page("index.html");
    for (const name of ["normalizeRequest", "validateForModel", "computeCharge", "quote"]) {
      expect(index).toContain(`href="functions/imagegen-pricing.${name}.html"`);
    }
    expect(index).toContain('href="functions/imagegen-pricing_server.createReferenceServer.html"');
  });

  it("shows the summary sentence of quote and checkRequest on the core's module page", () => {
    const core = summaries(page("modules/imagegen-pricing.html"));
    expect(core.get("quote")).toContainEqual(
      expect.stringMatching(/^Prices one output image for an account \(P1-P4\)/),
    );
    expect(core.get("checkRequest")).toContainEqual(
      expect.stringMatching(
        /^Checks a generation request body against the shape rules and its model's own limits/,
      ),
    );
  });

  it("lists on each module page every public name of its entry's API report, with the report's summary", () => {
    for (const importPath of importPaths) {
      const file = `modules/${importPath.replace("/", "_")}.html`;
      const shown = summaries(page(file));
      const names = reported(importPath);
      expect([...shown.keys()].sort(), file).toEqual([...names.keys()].sort());
      const missing = [...names].filter(
        ([name, summary]) => !shown.get(name)?.some((s) => s.startsWith(summary)),
      );
      expect(missing.map(([name, summary]) => `${importPath} ${name}: ${summary}`)).toEqual([]);
    }
  });

  it("renders every guide in docs/ as a page", () => {
    const guides = readdirSync(`${root}docs`)
      .filter((f) => f.endsWith(".md") && `docs/${f}` !== config.readme)
      .map((f) => `docs/${f}`);
    expect(guides).toContain("docs/rules.md");
    expect([...config.projectDocuments].sort()).toEqual(guides.sort());
    const pages = readdirSync(join(out, "documents"));
    for (const guide of guides) {
      expect(pages, guide).toContain(`${guide.slice("docs/".length, -".md".length)}.html`);
    }
  });
});
