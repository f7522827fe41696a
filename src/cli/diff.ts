/** The `diff` command: what changed between two catalogs, or along a catalog history, for a reviewer. */
import { parseArgs } from "node:util";
import { type Catalog, type CatalogChange, defineCatalog, defineCatalogHistory, diffCatalogs } from "../index.js";
import { changeLabel, changeValue } from "../models/diff.js";
import { table } from "./format.js";
import { type CliIo, EXIT, InputError, UsageError } from "./io.js";

/** `--help` text of `diff`. */
export const DIFF_HELP = `Usage: imagegen-pricing diff <before.json> <after.json> [--json]
       imagegen-pricing diff <history.json> [--json]

Lists what changed between two catalogs: each price cell (with the change in percent), surcharge,
limit, list of accepted values, default and output format, each model added or removed. A file
holds one catalog (the JSON of a catalog object) or a catalog history ({ "catalogs": [...] },
oldest first, the form of imagegen-pricing/catalog.json); with two files, a history stands for its
newest catalog. With one history file, each catalog is compared with the one before it. "-" reads
standard input.

Options:
      --json    print JSON: { before, after, equal, changes } for two files, or a list of them for
                one history file
  -h, --help    show this help

Exit status: 0 no change, 1 some change, 2 bad arguments or a file that is not a valid catalog or
history (one line says why).

Examples:
  imagegen-pricing diff old/catalog.json node_modules/imagegen-pricing/data/catalog.json
  imagegen-pricing diff data/catalog.json
`;

/** Two catalogs compared and what changed. */
type Comparison = { before: string; after: string; equal: boolean; changes: CatalogChange[] };

/** A file's catalogs, oldest first: one for a catalog file, every entry of a history file. */
async function load(source: string, io: CliIo): Promise<{ catalogs: readonly Catalog[]; history: boolean }> {
  let text: string;
  try {
    text = source === "-" ? await io.readStdin() : await io.readFile(source);
  } catch (error) {
    throw new InputError(`Cannot read ${source}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InputError(`${source} must hold a catalog object or a catalog history ({ "catalogs": [...] }).`);
  }
  // "$schema" only points an editor at the JSON Schema; it is not part of a catalog.
  const { $schema: _schema, ...rest } = data as Record<string, unknown>;
  try {
    if (Object.hasOwn(rest, "catalogs")) {
      const extra = Object.keys(rest).filter((k) => k !== "catalogs");
      if (extra.length > 0)
        throw new TypeError(`a catalog history has only "catalogs" (and "$schema"); found ${extra.join(", ")}.`);
      return { catalogs: defineCatalogHistory(rest.catalogs as readonly Catalog[]), history: true };
    }
    return { catalogs: [defineCatalog(rest as unknown as Catalog)], history: false };
  } catch (error) {
    if (error instanceof TypeError) throw new InputError(`${source}: ${error.message.replace(/\s*\n\s*/g, " ")}`);
    throw error;
  }
}

function compare(before: Catalog, after: Catalog): Comparison {
  const changes = diffCatalogs(before, after);
  return { before: before.version, after: after.version, equal: changes.length === 0, changes };
}

function render(c: Comparison, names?: readonly [string, string]): string {
  const head = names ? `Catalog ${c.before} (${names[0]}) -> ${c.after} (${names[1]})` : `Catalog ${c.before} -> ${c.after}`;
  if (c.equal) return `${head}: no changes.`;
  const rows = c.changes.map((change) => {
    let difference = "";
    if ((change.kind === "price" || change.kind === "surcharge") && change.percent !== null) difference = change.percent;
    if (change.kind === "price" && change.before === null) difference = "newly priced";
    if (change.kind === "price" && change.after === null) difference = "no longer priced";
    if (change.kind === "accepted_values") {
      const parts = [...change.added.map((x) => `+${x}`), ...change.removed.map((x) => `-${x}`)];
      difference = parts.length > 0 ? parts.join(" ") : "reordered";
    }
    return [
      change.modelId ?? "(catalog)",
      changeLabel(change),
      changeValue(change, "before"),
      changeValue(change, "after"),
      difference,
    ];
  });
  const count = `${c.changes.length} change${c.changes.length === 1 ? "" : "s"}`;
  return `${head}: ${count}\n\n${table(["model", "change", "before", "after", "difference"], rows)}`;
}

/**
 * Runs `diff`: compares two catalog files, or each entry of one history file with the one before.
 *
 * @param args - The arguments after `diff`.
 * @param io - Where to read and write.
 * @returns 0 when nothing changed, 1 when something did, 2 on bad arguments or files.
 */
export async function runDiff(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.out(DIFF_HELP);
    return EXIT.ok;
  }
  if (positionals.length < 1 || positionals.length > 2) {
    throw new UsageError("diff needs two catalog files (before and after), or one catalog history file.");
  }
  if (positionals.filter((p) => p === "-").length > 1) throw new UsageError("Only one file may be - (standard input).");

  if (positionals.length === 2) {
    const [beforeName, afterName] = positionals as [string, string];
    const before = (await load(beforeName, io)).catalogs.at(-1) as Catalog;
    const after = (await load(afterName, io)).catalogs.at(-1) as Catalog;
    const c = compare(before, after);
    io.out(values.json ? `${JSON.stringify(c, null, 2)}\n` : `${render(c, [beforeName, afterName])}\n`);
    return c.equal ? EXIT.ok : EXIT.invalid;
  }

  const name = positionals[0] as string;
  const { catalogs: history, history: isHistory } = await load(name, io);
  if (!isHistory)
    throw new UsageError(`With one file, diff compares the entries of a catalog history; ${name} holds one catalog.`);
  const comparisons = history.slice(1).map((after, i) => compare(history[i] as Catalog, after));
  if (values.json) io.out(`${JSON.stringify(comparisons, null, 2)}\n`);
  else if (comparisons.length === 0) io.out(`${name} holds one catalog (${history[0]?.version}): nothing to compare.\n`);
  else io.out(`${comparisons.map((c) => render(c)).join("\n\n")}\n`);
  return comparisons.every((c) => c.equal) ? EXIT.ok : EXIT.invalid;
}
