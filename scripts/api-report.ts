/**
 * API Extractor over every library entry of package.json `exports`: `api-report/<entry>.api.md` is
 * its report, and `api-report/<entry>.summary.md` the summary of each public name, read from its doc
 * model (the report shows declarations, not their comments). A name without a summary fails, and so
 * does any warning of API Extractor's (a TSDoc comment that does not parse, for one).
 *
 * API Extractor writes its report to reports/api-report/; this script compares it with the committed
 * one. Any warning of API Extractor's fails, `ae-forgotten-export` included (a type an entry's
 * declarations use that the entry does not export), whether it is printed or written in a report.
 *
 *   npm run build && npm run api:report   rewrite the reports
 *   npm run api:check                     exit 1 when a report differs from the build (part of npm test)
 */
import { readFileSync } from "node:fs";
import { Extractor, ExtractorConfig, type IConfigFile } from "@microsoft/api-extractor";
import { type ApiDocumentedItem, ApiModel } from "@microsoft/api-extractor-model";
import { writeOrCheck } from "./generated.js";

const ROOT = new URL("../", import.meta.url).pathname;
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as {
  name: string;
  exports: Record<string, string | { types?: { import?: string } }>;
};
const base = ExtractorConfig.loadFile(`${ROOT}api-extractor.json`);

/** A TSDoc node as its source text, on one line. */
type DocNode = { getChildNodes(): readonly DocNode[]; content?: { toString(): string } };
const source = (node: DocNode): string =>
  node.content?.toString() ?? node.getChildNodes().map(source).join("");
/** A paragraph as the API reference shows it: `{@link name}` and `{@link name | text}` read `name` and `text`. */
const text = (node: DocNode) =>
  source(node)
    .replace(
      /\{@link(?:code|plain)?\s+([^}|\s]+)\s*(?:\|\s*([^}]*?)\s*)?\}/g,
      (_, name: string, label?: string) => `\`${label || name}\``,
    )
    .replace(/\s+/g, " ")
    .trim();

let failed = false;
/** Each report and summary file, with the text it must hold. */
const files: [string, string][] = [];
for (const [subpath, target] of Object.entries(pkg.exports)) {
  const declarations = typeof target === "object" ? target.types?.import : undefined;
  if (declarations === undefined) {
    continue; // a JSON data file, not a module
  }
  const name = subpath === "." ? pkg.name : subpath.slice(2);
  const docModel = `${ROOT}reports/api-report/${name}.api.json`;
  const configObject: IConfigFile = {
    ...base,
    mainEntryPointFilePath: `<projectFolder>/${declarations}`,
    apiReport: { ...base.apiReport, enabled: true, reportFileName: name },
    docModel: { ...base.docModel, enabled: true, apiJsonFilePath: docModel },
  };
  const config = ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: `${ROOT}api-extractor.json`,
    packageJsonFullPath: `${ROOT}package.json`,
  });
  const result = Extractor.invoke(config, {
    localBuild: true,
    // Which TypeScript API Extractor bundles is no news on every run.
    messageCallback: (message) => {
      if (message.messageId === "console-preamble") {
        message.handled = true;
      }
    },
  });
  if (result.errorCount + result.warningCount > 0) {
    console.error(
      `${subpath}: API Extractor found ${result.errorCount} errors and ${result.warningCount} warnings`,
    );
    failed = true;
  }
  const report = readFileSync(`${ROOT}reports/api-report/${name}.api.md`, "utf8");
  // A warning written into the report instead of the console is still a warning.
  if (/^\s*\/\/ Warning/m.test(report)) {
    console.error(`${subpath}: the report carries a warning of API Extractor's`);
    failed = true;
  }
  files.push([
    `${ROOT}api-report/${name}.api.md`,
    report.replace(/^(\/\/ \S+?)(?:-[\w-]{8})?(\.d\.c?ts):\d+:\d+ - /gm, "$1$2 - "),
  ]);

  // One row per public name: a function's overloads share theirs.
  const rows = new Map<string, string>();
  const entry = new ApiModel().loadPackage(docModel).entryPoints[0];
  for (const item of (entry?.members ?? []) as ApiDocumentedItem[]) {
    const paragraph = item.tsdocComment?.summarySection.nodes[0];
    const summary = (paragraph ? text(paragraph) : "").replace(/\|/g, "\\|");
    const row = summary && `| \`${item.displayName}\` | ${item.kind} | ${summary} |`;
    if (!rows.get(item.displayName)) {
      rows.set(item.displayName, row);
    }
  }
  const missing = [...rows].filter(([, row]) => row === "").map(([n]) => n);
  if (missing.length > 0) {
    console.error(
      `${subpath}: no summary for ${missing.join(", ")} (a TSDoc comment whose first paragraph says what it is)`,
    );
    failed = true;
  }
  files.push([
    `${ROOT}api-report/${name}.summary.md`,
    [
      `# \`${subpath === "." ? pkg.name : `${pkg.name}/${name}`}\`: ${rows.size} public names`,
      "",
      `The first paragraph of each one's TSDoc, from API Extractor's doc model; \`npm run api:report\` writes this file.`,
      "",
      "| Name | Kind | Summary |",
      "| --- | --- | --- |",
      ...[...rows.keys()].sort().map((n) => rows.get(n)),
      "",
    ].join("\n"),
  ]);
}
process.exitCode = writeOrCheck(files, process.argv, "npm run api:report") || (failed ? 1 : 0);
