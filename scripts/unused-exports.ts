/**
 * Unused exports of `src/`: an exported name that no other module of the repository imports
 * (source, tests, scripts, examples, benchmarks) and that no entry of package.json `exports` makes public is
 * dead code, or an `export` keyword too many. test/package/unusedExports.test.ts fails on one.
 *
 *   npx tsx scripts/unused-exports.ts   list them (exit 1 on one), and the exports only tests, scripts, examples or benchmarks import
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The source of each library entry (package.json `exports`, built by tsup.config.ts), and of the command-line tool. */
const ENTRIES = [
  "src/index.ts",
  "src/server/index.ts",
  "src/node/index.ts",
  "src/testing/index.ts",
  "src/jsonSchema.ts",
  "src/postgres/index.ts",
  "src/client/index.ts",
  "src/cli/bin.ts",
];

/** An exported name of a module under `src/`. */
export type Export = { file: string; name: string };

/**
 * What the check finds: exports nothing imports (dead code, or used in its own module only, where
 * the `export` keyword is one too many), and exports only tests, scripts, examples or benchmarks import.
 */
export type Findings = { dead: Export[]; localOnly: Export[]; testOnly: Export[] };

/** The symbol a name stands for, through any import or re-export alias. */
function resolve(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/**
 * Finds the unused exports of `src/`, reading the repository as tsconfig.json does.
 *
 * @returns The exports no module imports and no entry makes public, and those only tests, scripts,
 *   examples or benchmarks import; each sorted by file and name.
 */
export function findUnusedExports(): Findings {
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.json`,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.json could not be read");
  // The benchmarks are outside tsconfig.json (bench/run.ts loads them with its own loader) but import src/ too.
  const bench = ts.sys.readDirectory(`${ROOT}bench`, [".ts"], ["**/baseline/**"]);
  const program = ts.createProgram([...config.fileNames, ...bench], config.options);
  const checker = program.getTypeChecker();
  const src = `${ROOT}src/`;
  const exportsOf = (file: ts.SourceFile) => {
    const moduleSymbol = checker.getSymbolAtLocation(file);
    return moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : [];
  };

  // Every symbol an entry makes public, through any chain of re-exports.
  const isPublic = new Set<ts.Symbol>();
  for (const entry of ENTRIES) {
    const file = program.getSourceFile(`${ROOT}${entry}`);
    if (!file) throw new Error(`${entry} is not in the program`);
    for (const symbol of exportsOf(file)) isPublic.add(resolve(checker, symbol));
  }

  // Every symbol some module imports or re-exports from another, and who: `src/` or a test, script, example or benchmark.
  const importedBySrc = new Set<ts.Symbol>();
  const importedElsewhere = new Set<ts.Symbol>();
  const wholeModules = new Set<ts.Symbol>(); // `import * as`, `import()`, `typeof import()`: every export counts as used
  for (const file of program.getSourceFiles()) {
    if (file.isDeclarationFile || !file.fileName.startsWith(ROOT) || file.fileName.includes("/node_modules/")) continue;
    const into = file.fileName.startsWith(src) ? importedBySrc : importedElsewhere;
    const visit = (node: ts.Node): void => {
      if (ts.isImportSpecifier(node) || ts.isExportSpecifier(node)) {
        const symbol = checker.getSymbolAtLocation(node.propertyName ?? node.name);
        if (symbol) into.add(resolve(checker, symbol));
      } else if (ts.isNamespaceImport(node) || ts.isNamespaceExport(node)) {
        const symbol = checker.getSymbolAtLocation(node.name);
        if (symbol) wholeModules.add(resolve(checker, symbol));
      } else if (ts.isExportDeclaration(node) && !node.exportClause && node.moduleSpecifier) {
        const symbol = checker.getSymbolAtLocation(node.moduleSpecifier); // `export * from`
        if (symbol) wholeModules.add(symbol);
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0]) {
        const symbol = checker.getSymbolAtLocation(node.arguments[0]);
        if (symbol) wholeModules.add(symbol);
      } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
        const symbol = checker.getSymbolAtLocation(node.argument.literal);
        if (symbol) wholeModules.add(symbol);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  /** Is the symbol referred to in its own file, other than where it is declared? */
  const usedIn = (file: ts.SourceFile, symbol: ts.Symbol): boolean => {
    const names = new Set(symbol.declarations?.map((d) => ts.getNameOfDeclaration(d)));
    const visit = (node: ts.Node): boolean =>
      (ts.isIdentifier(node) &&
        !names.has(node) &&
        node.text === symbol.name &&
        checker.getSymbolAtLocation(node) !== undefined &&
        resolve(checker, checker.getSymbolAtLocation(node) as ts.Symbol) === symbol) ||
      (ts.forEachChild(node, visit) ?? false);
    return visit(file);
  };

  const findings: Findings = { dead: [], localOnly: [], testOnly: [] };
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(src) || file.isDeclarationFile) continue;
    const moduleSymbol = checker.getSymbolAtLocation(file);
    if (moduleSymbol && wholeModules.has(moduleSymbol)) continue;
    const name = file.fileName.slice(ROOT.length);
    for (const exported of exportsOf(file)) {
      const symbol = resolve(checker, exported);
      // A re-export is checked where the name is declared.
      if (symbol.declarations?.some((d) => d.getSourceFile() !== file) ?? true) continue;
      if (isPublic.has(symbol) || importedBySrc.has(symbol)) continue;
      const found = { file: name, name: exported.name };
      if (importedElsewhere.has(symbol)) findings.testOnly.push(found);
      else if (usedIn(file, symbol)) findings.localOnly.push(found);
      else findings.dead.push(found);
    }
  }
  const order = (a: Export, b: Export) => a.file.localeCompare(b.file) || a.name.localeCompare(b.name);
  for (const list of Object.values(findings)) list.sort(order);
  return findings;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { dead, localOnly, testOnly } = findUnusedExports();
  const list = (exports: readonly Export[]) => exports.map((e) => `  ${e.file}: ${e.name}`).join("\n") || "  (none)";
  console.log(`Exported and used nowhere (dead code):\n${list(dead)}`);
  console.log(`Exported, used only in its own module (drop the export keyword):\n${list(localOnly)}`);
  console.log(`Exported, imported only by tests, scripts, examples or benchmarks:\n${list(testOnly)}`);
  process.exitCode = dead.length + localOnly.length > 0 ? 1 : 0;
}
