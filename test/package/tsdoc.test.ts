import ts from "typescript";
import { describe, expect, it } from "vitest";
import { firstSentence, plainLinks } from "../../scripts/api-report.js";

const root = new URL("../../", import.meta.url).pathname;
/** The source of each subpath export (see package.json and tsup.config.ts). */
const ENTRIES: Record<string, string> = {
  ".": "src/index.ts",
  "./json-schema": "src/jsonSchema.ts",
  "./server": "src/server/index.ts",
  "./node": "src/node/index.ts",
  "./testing": "src/testing/index.ts",
  "./client": "src/client/index.ts",
};
/** The entries whose every public name is summed up in one sentence (the API reference shows a first paragraph as the summary). */
const ONE_SENTENCE_ENTRIES = [".", "./testing", "./json-schema", "./client"];
const MAIN_FUNCTIONS = ["normalizeRequest", "validateForModel", "quote", "computeCharge"];

const program = ts.createProgram(
  Object.values(ENTRIES).map((f) => root + f),
  {
    strict: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
  },
);
const checker = program.getTypeChecker();

type Problem = string;

/** What TSDoc a declaration lacks: a summary always; `@param` for each parameter and `@returns` on functions. */
function problemsOf(name: string, declaration: ts.Declaration): Problem[] {
  const problems: Problem[] = [];
  const docs = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc);
  const doc = docs.at(-1);
  const summary = typeof doc?.comment === "string" ? doc.comment : ts.getTextOfJSDocComment(doc?.comment);
  if (!summary?.trim()) problems.push(`${name}: no summary`);
  if (ts.isClassDeclaration(declaration)) {
    for (const member of declaration.members) {
      if (ts.isConstructorDeclaration(member) && member.parameters.length > 0) {
        problems.push(...problemsOf(`${name} constructor`, member).filter((p) => !p.endsWith("no @returns")));
      }
    }
  }
  const fn = ts.isFunctionDeclaration(declaration) || ts.isConstructorDeclaration(declaration) ? declaration : undefined;
  if (fn) {
    const tags = doc?.tags ?? [];
    const params = new Set<string>();
    for (const tag of tags) if (ts.isJSDocParameterTag(tag)) params.add(tag.name.getText());
    for (const p of fn.parameters) {
      const pname = p.name.getText();
      if (!params.has(pname)) problems.push(`${name}: no @param ${pname}`);
    }
    if (!tags.some((t) => t.tagName.text === "returns")) problems.push(`${name}: no @returns`);
  }
  return problems;
}

function exportsOf(file: string) {
  const source = program.getSourceFile(root + file);
  if (!source) throw new Error(`${file} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return { name: symbol.name, declarations: target.declarations ?? [] };
  });
}

/** Is a declaration from this package (not a re-exported dependency type)? */
const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(`${root}src/`);

describe("TSDoc on every export", () => {
  for (const [subpath, file] of Object.entries(ENTRIES)) {
    it(`${subpath}: every export has a summary; every function @param for each parameter and @returns`, () => {
      const problems: Problem[] = [];
      for (const { name, declarations } of exportsOf(file)) {
        const own = declarations.filter(ours);
        // A function's overloads and a class with its namespace: the first own declaration carries the doc.
        const first = own[0];
        if (first) problems.push(...problemsOf(name, first));
      }
      expect(exportsOf(file).length, "exports found").toBeGreaterThan(2);
      expect(problems).toEqual([]);
    });
  }

  it("every public name of the core, ./testing, ./json-schema and ./client has a first paragraph of exactly one sentence", () => {
    const long: string[] = [];
    for (const subpath of ONE_SENTENCE_ENTRIES) {
      for (const { name, declarations } of exportsOf(ENTRIES[subpath] as string)) {
        const doc = declarations
          .filter(ours)
          .map((d) => ts.getJSDocCommentsAndTags(d).filter(ts.isJSDoc).at(-1))
          .find((d) => d !== undefined);
        const text = plainLinks(ts.getTextOfJSDocComment(doc?.comment) ?? "");
        const paragraph = (text.trim().split(/\n\s*\n/)[0] ?? "").replace(/\s+/g, " ").trim();
        if (paragraph === "" || firstSentence(text) !== paragraph) long.push(`${subpath} ${name}: ${paragraph}`);
      }
    }
    expect(long, "end the first paragraph after its first sentence (a blank line, then the rest)").toEqual([]);
  });

  it("the four main functions have an @example", () => {
    const core = exportsOf(ENTRIES["."] as string);
    for (const name of MAIN_FUNCTIONS) {
      const declaration = core.find((e) => e.name === name)?.declarations[0];
      if (!declaration) throw new Error(`${name} is not exported`);
      expect(
        ts.getJSDocTags(declaration).some((t) => t.tagName.text === "example"),
        name,
      ).toBe(true);
    }
  });
});
