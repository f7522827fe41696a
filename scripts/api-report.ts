/**
 * The public API of each entry point, read from the declarations the build emits
 * (`dist/**\/index.d.ts`), written to `api-report/<entry>.api.md`: every exported name, sorted, with
 * its kind, the first sentence of its TSDoc and its declaration as emitted. A public change is then a
 * reviewed diff of these files; test/package/apiReport.test.ts fails while they differ from the build.
 *
 *   npm run build && npm run api:report              rewrite the reports
 *   npm run build && npm run api:report -- --check   exit 1 when a report is out of date
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";
import { writeOrCheck } from "./generated.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** Where the reports live, one file per entry. */
export const REPORT_DIR = `${ROOT}api-report/`;
const COMMAND = "npm run api:report";

/** One library entry of package.json `exports`: its import path and the ES declarations the build emits for it. */
export type Entry = { importPath: string; reportName: string; declarations: string };

/** One public name of an entry. */
export type PublicName = { name: string; kind: string; summary: string; declaration: string };

/**
 * The library entries of package.json `exports` (the JSON data files are not modules).
 *
 * @returns Each entry's import path, report file name and emitted `.d.ts` path, in `exports` order.
 */
export function entries(): Entry[] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as {
    name: string;
    exports: Record<string, string | { types?: { import?: string } }>;
  };
  const found: Entry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    const declarations = typeof target === "object" ? target.types?.import : undefined;
    if (declarations === undefined) continue;
    const name = subpath === "." ? "" : subpath.slice(2);
    found.push({
      importPath: name ? `${pkg.name}/${name}` : pkg.name,
      reportName: `${name || pkg.name}.api.md`,
      declarations: `${ROOT}${declarations.slice(2)}`,
    });
  }
  return found;
}

/** tsup names shared declaration chunks with a content hash (`modelSpec-BzJJsKnI.d.ts`); the report names the chunk only. */
const normalize = (text: string) => text.replace(/-[A-Za-z0-9_-]{8}(?=\.(?:d\.)?c?[jt]s\b)/g, "");

const KINDS: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.FunctionDeclaration]: "function",
  [ts.SyntaxKind.ClassDeclaration]: "class",
  [ts.SyntaxKind.InterfaceDeclaration]: "interface",
  [ts.SyntaxKind.TypeAliasDeclaration]: "type",
  [ts.SyntaxKind.EnumDeclaration]: "enum",
  [ts.SyntaxKind.ModuleDeclaration]: "namespace",
};

function kindOf(declaration: ts.Declaration): string {
  if (ts.isVariableDeclaration(declaration)) {
    return declaration.parent.flags & ts.NodeFlags.Const ? "const" : "let";
  }
  return KINDS[declaration.kind] ?? ts.SyntaxKind[declaration.kind];
}

/** The statement that holds a declaration (a variable's `declare const` line, otherwise the declaration itself). */
const statementOf = (declaration: ts.Declaration): ts.Node =>
  ts.isVariableDeclaration(declaration) ? declaration.parent.parent : declaration;

/** The last TSDoc comment before a declaration: the one that documents it (an earlier one is a file's comment). */
function docOf(declaration: ts.Declaration): ts.JSDoc | undefined {
  return ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc).at(-1);
}

/**
 * The first sentence of a comment's first paragraph: up to the first `.`, `!` or `?` followed by a
 * space or the end, outside code spans and parentheses, and not the dot of "e.g." or "i.e.".
 *
 * @param comment - The comment's text (without tags).
 * @returns The sentence on one line, or `""` when the comment has no text or no sentence ending.
 */
export function firstSentence(comment: string): string {
  const paragraph = (comment.trim().split(/\n\s*\n/)[0] ?? "").replace(/\s+/g, " ").trim();
  let code = false;
  let depth = 0;
  for (let i = 0; i < paragraph.length; i++) {
    const c = paragraph[i];
    if (c === "`") code = !code;
    else if (code) continue;
    else if (c === "(" || c === "[") depth++;
    else if ((c === ")" || c === "]") && depth > 0) depth--;
    else if (depth === 0 && (c === "." || c === "!" || c === "?") && (i + 1 === paragraph.length || paragraph[i + 1] === " ")) {
      if (/\b(?:e\.g|i\.e)$/.test(paragraph.slice(0, i))) continue;
      return paragraph.slice(0, i + 1);
    }
  }
  return "";
}

/** A comment's `{@link name}` / `{@link name | text}` as the reference page shows it: `` `name` `` / `` `text` ``. */
export const plainLinks = (comment: string) =>
  comment.replace(
    /\{@link(?:code|plain)?\s+([^}|\s]+)\s*(?:\|\s*([^}]*?)\s*)?\}/g,
    (_, name: string, text?: string) => `\`${text || name}\``,
  );

/** The symbol a name stands for, through any `import { a as B }` / `export { a as B }` alias. */
function resolve(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/**
 * One name of the report: its kind, summary and declaration text as emitted, without comments.
 *
 * @param name - The name the entry exports it under.
 * @param symbol - The declared symbol.
 * @returns The report's line and declaration of the name.
 */
function describe(name: string, symbol: ts.Symbol): PublicName {
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const declarations = symbol.declarations ?? [];
  const statements = [...new Set(declarations.map(statementOf))];
  const text = statements.map((s) => printer.printNode(ts.EmitHint.Unspecified, s, s.getSourceFile())).join("\n");
  // A chunk can declare a name under another one (`Foo$1`) that the entry exports under its own.
  const renamed = symbol.name !== name ? `// exported as ${name}\n` : "";
  const doc = declarations.map(docOf).find((d) => d !== undefined);
  return {
    name,
    kind: [...new Set(declarations.map(kindOf))].join(" + "),
    summary: firstSentence(plainLinks(ts.getTextOfJSDocComment(doc?.comment) ?? "")),
    declaration: normalize(renamed + text),
  };
}

const byName = (a: PublicName, b: PublicName) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * The names an emitted declaration file exports, each with the symbol it stands for.
 *
 * @param checker - The program's type checker.
 * @param file - The file's source in the program.
 * @returns Each declared symbol and the name the file exports it under.
 */
function exportsOf(checker: ts.TypeChecker, file: ts.SourceFile | undefined): Map<ts.Symbol, string> {
  const moduleSymbol = file && checker.getSymbolAtLocation(file);
  if (!moduleSymbol) throw new Error(`${file?.fileName} is not a module the compiler can read`);
  return new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [resolve(checker, s), s.name] as const));
}

/**
 * The package's own top-level declarations that the given ones reference, directly or through
 * each other, and that no entry exports (a user meets such a type and cannot import it).
 *
 * @param checker - The program's type checker.
 * @param from - The public symbols of one entry.
 * @param exported - Every symbol some entry exports.
 * @returns The referenced, unexported symbols.
 */
function unexportedReferences(checker: ts.TypeChecker, from: Iterable<ts.Symbol>, exported: ReadonlySet<ts.Symbol>): ts.Symbol[] {
  const found = new Set<ts.Symbol>();
  const topLevelOwn = (d: ts.Declaration) =>
    d.getSourceFile().fileName.startsWith(`${ROOT}dist/`) && ts.isSourceFile(statementOf(d).parent);
  const queue = [...from];
  for (let symbol = queue.pop(); symbol !== undefined; symbol = queue.pop()) {
    const visit = (node: ts.Node): void => {
      const named = ts.isIdentifier(node) ? checker.getSymbolAtLocation(node) : undefined;
      const target = named && resolve(checker, named);
      if (target && !exported.has(target) && !found.has(target) && target.declarations?.some(topLevelOwn)) {
        found.add(target);
        queue.push(target);
      }
      ts.forEachChild(node, visit);
    };
    for (const d of symbol.declarations ?? []) visit(statementOf(d));
  }
  return [...found];
}

/** A table cell: one line, with `|` escaped. */
const cell = (text: string) => text.replace(/\|/g, "\\|");

/**
 * The report of one entry, as markdown.
 *
 * @param entry - The entry.
 * @param names - Its public names and its referenced, unexported ones, from {@link buildReports}.
 * @returns The text of `api-report/<entry>.api.md`.
 */
function render(
  entry: Entry,
  { names, unexported }: { names: readonly PublicName[]; unexported: readonly PublicName[] },
): string {
  const block = (list: readonly PublicName[]) => ["```ts", list.map((n) => n.declaration).join("\n\n"), "```"];
  const lines = [
    `# API report: \`${entry.importPath}\``,
    "",
    `Generated from \`${entry.declarations.slice(ROOT.length)}\` by \`npm run build && ${COMMAND}\`; do not edit.`,
    "`npm test` fails while the built declarations differ from this file: a change here is a change of the public API.",
    "",
    `${names.length} public names.`,
    "",
    "| Name | Kind | Summary |",
    "| --- | --- | --- |",
    ...names.map((n) => `| \`${n.name}\` | ${n.kind} | ${cell(n.summary)} |`),
    "",
    "## Declarations",
    "",
    ...block(names),
    "",
  ];
  if (unexported.length > 0) {
    lines.push(
      "## Referenced, not exported",
      "",
      "Declarations of the package that the public ones use and that no entry exports: a user meets these types and cannot import them.",
      "",
      ...block(unexported),
      "",
    );
  }
  return lines.join("\n");
}

/** One entry's report: its public names and the markdown text. */
export type Report = { entry: Entry; names: PublicName[]; unexported: PublicName[]; path: string; text: string };

/**
 * The reports of every entry, built from the current `dist/`.
 *
 * @returns One report per entry, in package.json `exports` order.
 * @throws When an entry's declarations are missing (`npm run build` makes them).
 */
export function buildReports(): Report[] {
  const all = entries();
  const missing = all.filter((e) => !existsSync(e.declarations)).map((e) => e.declarations.slice(ROOT.length));
  if (missing.length > 0) throw new Error(`missing ${missing.join(", ")}: run \`npm run build\` first`);
  const program = ts.createProgram(
    all.map((e) => e.declarations),
    {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noEmit: true,
      skipLibCheck: true,
      types: ["node"],
    },
  );
  const checker = program.getTypeChecker();
  const exports = all.map((entry) => exportsOf(checker, program.getSourceFile(entry.declarations)));
  const exported = new Set(exports.flatMap((e) => [...e.keys()]));
  return all.map((entry, i) => {
    const own = exports[i] ?? new Map<ts.Symbol, string>();
    const found = {
      names: [...own].map(([symbol, name]) => describe(name, symbol)).sort(byName),
      unexported: unexportedReferences(checker, own.keys(), exported)
        .map((symbol) => describe(symbol.name, symbol))
        .sort(byName),
    };
    return { entry, ...found, path: `${REPORT_DIR}${entry.reportName}`, text: render(entry, found) };
  });
}

function main(argv: readonly string[]): number {
  const reports = buildReports();
  mkdirSync(REPORT_DIR, { recursive: true });
  for (const { entry, names, unexported } of reports) {
    console.log(`${entry.importPath}: ${names.length} public names, ${unexported.length} referenced but not exported`);
  }
  return writeOrCheck(
    reports.map((r) => [r.path, r.text] as const),
    argv,
    COMMAND,
  );
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
