/**
 * TSDoc on every export of the entries: a summary, `@param` and `@returns` on functions, one
 * sentence as the first paragraph where the reference pages show it as the summary, and an
 * `@example` on the four main functions. (A public name without a summary also fails
 * `npm run api:check`, which reads API Extractor's doc model.)
 */
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * The first sentence of a comment's first paragraph: up to the first `.`, `!` or `?` followed by a
 * space or the end, outside code spans and parentheses, and not the dot of "e.g." or "i.e.".
 */
function firstSentence(comment: string): string {
  const paragraph = (comment.trim().split(/\n\s*\n/)[0] ?? "").replace(/\s+/g, " ").trim();
  let code = false;
  let depth = 0;
  for (let i = 0; i < paragraph.length; i++) {
    const c = paragraph[i];
    if (c === "`") {
      code = !code;
    } else if (code) {
    } else if (c === "(" || c === "[") {
      depth++;
    } else if ((c === ")" || c === "]") && depth > 0) {
      depth--;
    } else if (
      depth === 0 &&
      (c === "." || c === "!" || c === "?") &&
      (i + 1 === paragraph.length || paragraph[i + 1] === " ")
    ) {
      if (/\b(?:e\.g|i\.e)$/.test(paragraph.slice(0, i))) {
        continue;
      }
      return paragraph.slice(0, i + 1);
    }
  }
  return "";
}

/** A comment's `{@link name}` / `{@link name | text}` as the reference page shows it: `` `name` `` / `` `text` ``. */
const plainLinks = (comment: string) =>
  comment.replace(
    /\{@link(?:code|plain)?\s+([^}|\s]+)\s*(?:\|\s*([^}]*?)\s*)?\}/g,
    (_, name: string, text?: string) => `\`${text || name}\``,
  );

const root = new URL("../../", import.meta.url).pathname;
/** The source of each subpath export (see package.json and tsup.config.ts). */
const ENTRIES: Record<string, string> = {
  ".": "src/index.ts",
  "./json-schema": "src/jsonSchema.ts",
  "./server": "src/server/index.ts",
  "./node": "src/node/index.ts",
  "./testing": "src/testing/index.ts",
  "./client": "src/client/index.ts",
  "./conformance": "src/conformance/index.ts",
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
  const summary =
    typeof doc?.comment === "string" ? doc.comment : ts.getTextOfJSDocComment(doc?.comment);
  if (!summary?.trim()) {
    problems.push(`${name}: no summary`);
  }
  if (ts.isClassDeclaration(declaration)) {
    for (const member of declaration.members) {
      if (ts.isConstructorDeclaration(member) && member.parameters.length > 0) {
        problems.push(
          ...problemsOf(`${name} constructor`, member).filter((p) => !p.endsWith("no @returns")),
        );
      }
    }
  }
  const fn =
    ts.isFunctionDeclaration(declaration) || ts.isConstructorDeclaration(declaration)
      ? declaration
      : undefined;
  if (fn) {
    const tags = doc?.tags ?? [];
    const params = new Set<string>();
    for (const tag of tags) {
      if (ts.isJSDocParameterTag(tag)) {
        params.add(tag.name.getText());
      }
    }
    for (const p of fn.parameters) {
      const pname = p.name.getText();
      if (!params.has(pname)) {
        problems.push(`${name}: no @param ${pname}`);
      }
    }
    if (!tags.some((t) => t.tagName.text === "returns")) {
      problems.push(`${name}: no @returns`);
    }
  }
  return problems;
}

function exportsOf(file: string) {
  const source = program.getSourceFile(root + file);
  if (!source) {
    throw new Error(`${file} is not in the program`);
  }
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) {
    return [];
  }
  return checker.getExportsOfModule(moduleSymbol).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    return { name: symbol.name, declarations: target.declarations ?? [] };
  });
}

/** Is a declaration from this package (not a re-exported dependency type)? */
const ours = (d: ts.Declaration) => d.getSourceFile().fileName.startsWith(`${root}src/`);

describe("firstSentence (what the one-sentence check reads as a sentence)", () => {
  it("ends at the first full stop followed by a space, across lines", () => {
    expect(firstSentence("Prices one output image.\nThe rest follows.")).toBe(
      "Prices one output image.",
    );
    expect(firstSentence("Lists what a model\naccepts, read from the catalog.")).toBe(
      "Lists what a model accepts, read from the catalog.",
    );
  });

  it("does not end inside a code span, parentheses or at e.g.", () => {
    expect(firstSentence("Reads `2.3` (read as 2. 3) as e.g. two. More.")).toBe(
      "Reads `2.3` (read as 2. 3) as e.g. two.",
    );
  });

  it("reads a {@link} as the reference page shows it: its text, or else its target", () => {
    expect(plainLinks("See {@link quote | the quote} and {@link Foo}.")).toBe(
      "See `the quote` and `Foo`.",
    );
  });

  it("is empty for no comment and for a first paragraph with no sentence ending", () => {
    expect(firstSentence("")).toBe("");
    expect(firstSentence("A fragment\n\nA sentence.")).toBe("");
  });
});

describe("TSDoc on every export", () => {
  for (const [subpath, file] of Object.entries(ENTRIES)) {
    it(`${subpath}: every export has a summary; every function @param for each parameter and @returns`, () => {
      const problems: Problem[] = [];
      for (const { name, declarations } of exportsOf(file)) {
        const own = declarations.filter(ours);
        // A function's overloads and a class with its namespace: the first own declaration carries the doc.
        const first = own[0];
        if (first) {
          problems.push(...problemsOf(name, first));
        }
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
        if (paragraph === "" || firstSentence(text) !== paragraph) {
          long.push(`${subpath} ${name}: ${paragraph}`);
        }
      }
    }
    expect(
      long,
      "end the first paragraph after its first sentence (a blank line, then the rest)",
    ).toEqual([]);
  });

  it("the four main functions have an @example", () => {
    const core = exportsOf(ENTRIES["."] as string);
    for (const name of MAIN_FUNCTIONS) {
      const declaration = core.find((e) => e.name === name)?.declarations[0];
      if (!declaration) {
        throw new Error(`${name} is not exported`);
      }
      expect(
        ts.getJSDocTags(declaration).some((t) => t.tagName.text === "example"),
        name,
      ).toBe(true);
    }
  });
});
