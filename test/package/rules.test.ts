/**
 * The rule book, docs/rules.md, checked against the repository: every rule id cited anywhere is
 * defined there, every rule there is named by a test, every link to a rule resolves, and no file
 * refers to a document outside the repository.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), "utf8");

/** Directories that hold no source of the project: dependencies, builds, generated reports. */
const NOT_SOURCE = new Set([
  ".git",
  "node_modules",
  "dist",
  "coverage",
  "reports",
  ".stryker-tmp",
  "docs/api",
]);
/** Files too large or too foreign to read: the lockfile (registry data), packed tarballs, images. */
const NOT_TEXT = /(^|\/)package-lock\.json$|\.(tgz|png|jpe?g|gif|ico|woff2?)$/;

/** Every text file of the project under `dir`, as paths relative to the root. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (path: string) => {
    const rel = relative(root, path);
    if (NOT_SOURCE.has(rel)) {
      return;
    }
    const name = rel.split("/").at(-1) ?? "";
    if (NOT_SOURCE.has(name)) {
      return;
    }
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path).sort()) {
        walk(join(path, entry));
      }
    } else if (!NOT_TEXT.test(rel)) {
      out.push(rel);
    }
  };
  walk(join(root, dir));
  return out;
}

/** The rule ids docs/rules.md defines, in order: each is a heading `### S5`, so `docs/rules.md#s5` links to it. */
const defined = [...read("docs/rules.md").matchAll(/^### ([NVPS]\d{1,2})$/gm)].map(
  (m) => m[1] as string,
);
const definedSet = new Set(defined);

/**
 * Rule ids cited in a text: a capital N, V, P or S and one or two digits, standing alone. A few
 * tokens of that shape are not rule ids (the V8 JavaScript engine, latency percentiles) and are skipped.
 */
function citedIds(text: string): { id: string; line: number }[] {
  const out: { id: string; line: number }[] = [];
  for (const m of text.matchAll(/\b([NVPS])(\d{1,2})\b/g)) {
    const after = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 12);
    if (m[0] === "V8" && /^(?:'s| engine| heap| isolate| flags?\b)/.test(after)) {
      continue;
    }
    if (m[1] === "P" && /^(?:50|90|95|99)$/.test(m[2] as string)) {
      continue;
    }
    out.push({ id: m[0], line: text.slice(0, m.index).split("\n").length });
  }
  return out;
}

/** Expands ranges of one family (`N1-N14`, `V1-V6`) to every id they name. */
function expandRanges(text: string): string {
  return text.replace(
    /\b([NVPS])(\d{1,2})-\1(\d{1,2})\b/g,
    (_, family: string, from: string, to: string) =>
      Array.from(
        { length: Math.max(0, Number(to) - Number(from) + 1) },
        (_, i) => `${family}${Number(from) + i}`,
      ).join(" "),
  );
}

/** The names of the tests in a test file: the title of every `it`, `test` and `describe` call (with `.each`, `.concurrent`, ...). */
function testTitles(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    read(file),
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind.TS,
  );
  const titles: string[] = [];
  const isTestFunction = (callee: ts.Expression): boolean => {
    if (ts.isIdentifier(callee)) {
      return ["it", "test", "describe"].includes(callee.text);
    }
    // A skipped or planned test pins nothing.
    if (ts.isPropertyAccessExpression(callee)) {
      return !["skip", "todo"].includes(callee.name.text) && isTestFunction(callee.expression);
    }
    if (ts.isCallExpression(callee)) {
      return isTestFunction(callee.expression); // it.each(table)("title", ...)
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && isTestFunction(node.expression)) {
      const first = node.arguments[0];
      if (first && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) {
        titles.push(first.text);
      } else if (first && ts.isTemplateExpression(first)) {
        // Interpolated parts are unknown here; the literal parts still name the rule (`S4: ${n} requests ...`).
        titles.push([first.head.text, ...first.templateSpans.map((s) => s.literal.text)].join(" "));
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return titles;
}

describe("docs/rules.md: the rule book", () => {
  it("defines N1-N15, V1-V8, P1-P8 and S1-S17, each once, in order, as a heading of its own", () => {
    const expected = [
      ...Array.from({ length: 15 }, (_, i) => `N${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `V${i + 1}`),
      ...Array.from({ length: 8 }, (_, i) => `P${i + 1}`),
      ...Array.from({ length: 17 }, (_, i) => `S${i + 1}`),
    ];
    expect(defined).toEqual(expected);
  });

  it("every rule id cited in src, test, docs, scripts, bench, the README and the changelog is defined there", () => {
    const files = ["src", "test", "docs", "scripts", "bench", "README.md", "CHANGELOG.md"].flatMap(
      filesUnder,
    );
    expect(files.length).toBeGreaterThan(50);
    const unknown: string[] = [];
    let citations = 0;
    for (const file of files) {
      for (const { id, line } of citedIds(read(file))) {
        citations++;
        if (!definedSet.has(id)) {
          unknown.push(`${file}:${line}: ${id}`);
        }
      }
    }
    expect(citations).toBeGreaterThan(500);
    expect(unknown).toEqual([]);
  });

  it('every rule is named by at least one test (`it("S5: ...")`; a range such as N1-N14 names each rule in it)', () => {
    const named = new Set<string>();
    // This file's own titles name every family's whole range; they check the book, not the rules.
    const self = relative(root, new URL(import.meta.url).pathname);
    for (const file of filesUnder("test").filter((f) => f.endsWith(".ts") && f !== self)) {
      for (const title of testTitles(file)) {
        for (const { id } of citedIds(expandRanges(title))) {
          named.add(id);
        }
      }
    }
    expect(named.size).toBeGreaterThan(30);
    expect(defined.filter((id) => !named.has(id))).toEqual([]);
  });

  it("every link to a rule (`rules.md#s5`) points to a rule the page defines", () => {
    const anchors = new Set([
      ...defined.map((id) => id.toLowerCase()),
      ...slugsOf(read("docs/rules.md")),
    ]);
    const broken: string[] = [];
    for (const file of [...filesUnder("."), "README.md"]) {
      for (const m of read(file).matchAll(/rules\.md#([A-Za-z0-9-]+)/g)) {
        if (!anchors.has(m[1] as string)) {
          broken.push(`${file}: ${m[0]}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

/** The anchors of a Markdown page's headings, as GitHub and typedoc make them (lower case, punctuation dropped, spaces to dashes). */
function slugsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
    (m[1] as string)
      .toLowerCase()
      .replace(/[^a-z0-9 -]/g, "")
      .replace(/ /g, "-"),
  );
}

describe("the repository reads on its own", () => {
  /** Ways of pointing at documents that are not in the repository. */
  const OUTSIDE = [
    /\bRULES\.md\b/,
    /\bAPI\.md\b/,
    /\bSTYLE\.md\b/,
    /\.\.\/shared\b/,
    /\bshared\/seed\b/,
    /\bthe seed\b/i,
    /\bissue #?\d+/i,
  ];

  it("no file refers to a document outside it (the rule book, notes or tickets kept elsewhere)", () => {
    const files = filesUnder(".");
    expect(files).toContain("README.md");
    expect(files).toContain("src/index.ts");
    const found: string[] = [];
    for (const file of files) {
      for (const [i, line] of read(file).split("\n").entries()) {
        const pattern = OUTSIDE.find((p) => p.test(line));
        if (pattern) {
          found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
