/**
 * No test may be skipped, planned, focused or conditional: a test whose dependency is missing
 * fails and says what to install (test/support/beforeAllOrFail.ts does it for a file's setup), and
 * a focused test (`.only`) would silently leave the others out of a run.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url).pathname;

/** What vitest (and Jest-style aliases) offer to skip, plan, focus or condition a test. */
const MODIFIERS = new Set(["skip", "todo", "only", "skipIf", "runIf", "fails"]);
const ALIASES = new Set(["xit", "xtest", "xdescribe", "fit", "fdescribe"]);
/** Python's unittest and pytest equivalents. */
const PYTHON = /\b(?:skip|skipIf|skipUnless|skipTest|expectedFailure|xfail)\b/;

/** Every file under `dir`, as paths from the repository's root (node_modules left out). */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") {
        out.push(...filesUnder(path));
      }
    } else {
      out.push(path);
    }
  }
  return out;
}

/**
 * The skips, plans, focuses and conditions in a TypeScript or JavaScript source: `it.skip`,
 * `describe.only`, `test.skipIf(...)`, `it.todo`, `ctx.skip()`, `xit`, ... (by its syntax tree, so
 * a word in a string or a comment is not one).
 *
 * @param name - The file's name, for the parser.
 * @param text - Its text.
 * @returns Each finding as `line: code`.
 */
function findSkips(name: string, text: string): string[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`;
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && MODIFIERS.has(node.name.text)) {
      found.push(at(node));
    } else if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      ALIASES.has(node.expression.text)
    ) {
      found.push(at(node.expression));
    }
    // `({ skip }) => ...`: the test context's skip, destructured.
    else if (
      ts.isBindingElement(node) &&
      MODIFIERS.has((node.propertyName ?? node.name).getText(source))
    ) {
      found.push(at(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The same for a Python test file (unittest's and pytest's skips and expected failures), by line.
 *
 * @param text - The file's text.
 * @returns Each finding as `line: text`.
 */
function findPythonSkips(text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) =>
      PYTHON.test(line.replace(/#.*$/, "")) ? [`${i + 1}: ${line.trim()}`] : [],
    );
}

describe("no test is skipped, planned, focused or conditional", () => {
  it("the scanner finds each form it looks for, and not the words in strings or comments", () => {
    const flagged = [
      'it.skip("x", () => {});',
      'describe.only("x", () => {});',
      'test.skipIf(!process.env.X)("x", () => {});',
      'it.runIf(true)("x", () => {});',
      'it.todo("x");',
      'it.fails("x", () => {});',
      'describe.concurrent.skip("x", () => {});',
      'it("x", (ctx) => { ctx.skip(); });',
      'it("x", ({ skip }) => { skip(); });',
      'xit("x", () => {});',
      'fdescribe("x", () => {});',
    ];
    for (const code of flagged) {
      expect(findSkips("sample.ts", code), code).toHaveLength(1);
    }
    expect(
      findSkips(
        "sample.ts",
        '// it.skip\nconst words = "it.only and xit";\nit("skips nothing", () => {});',
      ),
    ).toEqual([]);
    expect(
      findPythonSkips("@unittest.skipUnless(shutil.which('x'), 'no x')\ndef test_a(self):"),
    ).toHaveLength(1);
    expect(findPythonSkips("self.skipTest('later')")).toHaveLength(1);
    expect(findPythonSkips("# unittest.skip is never used\nx = 1")).toEqual([]);
  });

  it("no file under test/ or examples/ skips, plans, focuses or conditions a test", () => {
    const files = ["test", "examples"].flatMap(filesUnder);
    const sources = files.filter((f) => /\.(?:[cm]?[jt]s|tsx)$/.test(f) && !f.endsWith(".d.ts"));
    const python = files.filter((f) => f.endsWith(".py"));
    expect(sources.length).toBeGreaterThan(50);
    expect(python.length).toBeGreaterThan(0);
    const findings = [
      ...sources.flatMap((f) =>
        findSkips(f, readFileSync(join(root, f), "utf8")).map((x) => `${relative(".", f)}:${x}`),
      ),
      ...python.flatMap((f) =>
        findPythonSkips(readFileSync(join(root, f), "utf8")).map((x) => `${f}:${x}`),
      ),
    ];
    expect(findings, "a test whose dependency is missing fails and says what to install").toEqual(
      [],
    );
  });
});
