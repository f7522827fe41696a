/**
 * The `diff` command: what changed between two catalogs, or along a catalog history, for a
 * reviewer.
 */
import * as v from "valibot";
import { type Catalog, type CatalogChange, defineCatalogHistory, diffCatalogs } from "../index.js";
import { changeLabel, changeValue } from "../models/diff.js";
import { CatalogSchema } from "../models/modelSpec.js";
import { JSON_AND_HELP, parseOptions } from "./args.js";
import { table } from "./format.js";
import { type CliIo, EXIT, InputError, oneLine, readJson, UsageError } from "./io.js";

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

/** The parts of a valibot schema or action that say what a catalog field must hold. */
type SchemaPart = {
  readonly type: string;
  readonly pipe?: readonly SchemaPart[];
  readonly entries?: Readonly<Record<string, SchemaPart>>;
  readonly value?: SchemaPart;
  readonly item?: SchemaPart;
  readonly wrapped?: SchemaPart;
  readonly options?: readonly unknown[];
  readonly requirement?: unknown;
  readonly message?: unknown;
  readonly expects?: string | null;
};

/** Most problems named in the one line about a file; the rest are counted. */
const MAX_PROBLEMS = 5;

/** A schema without its pipe and its optional or nullable wrapper: the shape underneath. */
function unwrap(schema: SchemaPart | undefined): SchemaPart | undefined {
  let inner = schema;
  while (inner?.pipe || inner?.wrapped) {
    inner = inner.pipe ? inner.pipe[0] : inner.wrapped;
  }
  return inner;
}

/** The schema at `path` inside a catalog's (undefined where a catalog has no such field). */
function schemaAt(path: readonly unknown[]): SchemaPart | undefined {
  let schema: SchemaPart | undefined = CatalogSchema as unknown as SchemaPart;
  for (const key of path) {
    schema = unwrap(schema);
    if (schema?.entries) {
      schema = Object.hasOwn(schema.entries, String(key)) ? schema.entries[String(key)] : undefined;
    } else {
      schema = schema?.value ?? schema?.item;
    }
  }
  return schema;
}

/**
 * What a field must hold, in words, from its schema: "a whole number of at least 1", "one of png,
 * jpeg, webp".
 */
function expected(schema: SchemaPart | undefined): string {
  if (!schema) {
    return "no such field";
  }
  const base = schema.pipe?.[0] ?? schema;
  const actions = schema.pipe?.slice(1) ?? [];
  const has = (type: string) => actions.find((a) => a.type === type);
  const bounds = [
    has("min_value") && `at least ${String(has("min_value")?.requirement)}`,
    has("max_value") && `at most ${String(has("max_value")?.requirement)}`,
  ].filter(Boolean);
  switch (base.type) {
    case "nullable":
      return `${expected(base.wrapped)}, or null`;
    case "optional":
      return expected(base.wrapped);
    case "string": {
      if (has("iso_date")) {
        return "a date, YYYY-MM-DD";
      }
      const regex = has("regex")?.message;
      return typeof regex === "string" ? `a string: ${regex.replace(/\.$/, "")}` : "a string";
    }
    case "number":
      return (
        (has("safe_integer") ? "a whole number" : "a number") +
        (bounds.length > 0 ? ` of ${bounds.join(" and ")}` : "")
      );
    case "picklist":
      return `one of ${(base.options ?? []).join(", ")}`;
    case "array": {
      const item =
        base.item?.type === "picklist"
          ? `values from ${(base.item.options ?? []).join(", ")}`
          : expected(base.item);
      return (
        `a list of ${item}` +
        (has("min_length") ? ", at least one" : "") +
        (has("check") ? ", each once" : "")
      );
    }
    case "object":
    case "strict_object":
      return `an object with ${Object.keys(base.entries ?? {}).join(", ")}`;
    case "record":
      return "an object of models keyed by their ids";
    default:
      return base.expects ?? base.type;
  }
}

/** A value as the user wrote it, cut short. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/**
 * One schema problem of a catalog in words:
 * `models.beta.maxImageCount is "x"; expected a whole number of at least 1`.
 */
function problem(issue: v.BaseIssue<unknown>): string {
  const keys = (issue.path ?? []).map((item) => item.key);
  const path = keys.map(String).join(".");
  if (issue.type === "strict_object" && issue.expected === "never") {
    // A field the catalog does not have: say which ones its object does have.
    const parent = schemaAt(keys.slice(0, -1));
    const at = keys.length > 1 ? `${keys.slice(0, -1).map(String).join(".")} ` : "a catalog ";
    return (
      `${path} is not a field (${at}has ` +
      `${Object.keys(unwrap(parent)?.entries ?? {}).join(", ")})`
    );
  }
  if (issue.kind === "validation" && issue.type === "check") {
    const rule = issue.message.replace(/\.$/, "");
    const models = issue.input as { defaultModelId?: unknown; models?: object } | undefined;
    if (keys.length === 0 && /default model/.test(rule) && models?.models) {
      return (
        `defaultModelId is ${shown(models.defaultModelId)}; expected the id of one of its ` +
        `models (${Object.keys(models.models).join(", ")})`
      );
    }
    return `${path || "the catalog"}: ${rule}`;
  }
  const what =
    issue.input === undefined ? `${path} is missing` : `${path} is ${shown(issue.input)}`;
  const hint = path === "defaultModelId" ? ", the id of one of its models" : "";
  return `${what}; expected ${expected(schemaAt(keys))}${hint}`;
}

/**
 * The problems of one catalog, each named by its path and what it must hold; none for a valid
 * catalog.
 */
function catalogProblems(data: unknown): string[] {
  const result = v.safeParse(CatalogSchema, data);
  return result.success ? [] : result.issues.map(problem);
}

/** The problems as one line: the first few, and how many more. */
function listed(problems: readonly string[]): string {
  const more = problems.length - MAX_PROBLEMS;
  return `${problems.slice(0, MAX_PROBLEMS).join("; ")}${more > 0 ? `; and ${more} more` : ""}.`;
}

/** A file's catalogs, oldest first: one for a catalog file, every entry of a history file. */
async function load(
  source: string,
  io: CliIo,
): Promise<{ catalogs: readonly Catalog[]; history: boolean }> {
  const data = await readJson(source, io);
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new InputError(
      `${source} must hold a catalog object or a catalog history ({ "catalogs": [...] }).`,
    );
  }
  // "$schema" only points an editor at the JSON Schema; it is not part of a catalog.
  const { $schema: _schema, ...rest } = data as Record<string, unknown>;
  if (!Object.hasOwn(rest, "catalogs")) {
    const problems = catalogProblems(rest);
    if (problems.length > 0) {
      throw new InputError(`${source} is not a valid catalog: ${listed(problems)}`);
    }
    return { catalogs: [rest as unknown as Catalog], history: false };
  }
  const extra = Object.keys(rest).filter((k) => k !== "catalogs");
  if (extra.length > 0) {
    throw new InputError(
      `${source}: a catalog history has only "catalogs" (and "$schema"); found ` +
        `${extra.join(", ")}.`,
    );
  }
  if (Array.isArray(rest.catalogs)) {
    const problems = rest.catalogs.flatMap((entry: unknown, i) => {
      const version =
        typeof entry === "object" && entry !== null
          ? (entry as { version?: unknown }).version
          : undefined;
      const named = typeof version === "string" ? ` (version ${shown(version)})` : "";
      const name = `catalogs[${i}]${named}`;
      return catalogProblems(entry).map((p) => `${name}: ${p}`);
    });
    if (problems.length > 0) {
      throw new InputError(`${source} is not a valid catalog history: ${listed(problems)}`);
    }
  }
  try {
    // Every entry is a valid catalog by now: what is left is the list itself and the order of its
    // versions.
    return { catalogs: defineCatalogHistory(rest.catalogs as readonly Catalog[]), history: true };
  } catch (error) {
    if (error instanceof TypeError) {
      throw new InputError(`${source}: ${oneLine(error.message)}`);
    }
    throw error;
  }
}

function compare(before: Catalog, after: Catalog): Comparison {
  const changes = diffCatalogs(before, after);
  return { before: before.version, after: after.version, equal: changes.length === 0, changes };
}

function render(c: Comparison, names?: readonly [string, string]): string {
  const head = names
    ? `Catalog ${c.before} (${names[0]}) -> ${c.after} (${names[1]})`
    : `Catalog ${c.before} -> ${c.after}`;
  if (c.equal) {
    return `${head}: no changes.`;
  }
  const rows = c.changes.map((change) => {
    let difference = "";
    if ((change.kind === "price" || change.kind === "surcharge") && change.percent !== null) {
      difference = change.percent;
    }
    if (change.kind === "price" && change.before === null) {
      difference = "newly priced";
    }
    if (change.kind === "price" && change.after === null) {
      difference = "no longer priced";
    }
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
  const changes = table(["model", "change", "before", "after", "difference"], rows);
  return `${head}: ${count}\n\n${changes}`;
}

/**
 * Runs `diff`: compares two catalog files, or each entry of one history file with the one before.
 */
export async function runDiff(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: JSON_AND_HELP,
  });
  if (values.help) {
    io.out(DIFF_HELP);
    return EXIT.ok;
  }
  if (positionals.length < 1 || positionals.length > 2) {
    throw new UsageError(
      "diff needs two catalog files (before and after), or one catalog history file.",
    );
  }
  if (positionals.filter((p) => p === "-").length > 1) {
    throw new UsageError("Only one file may be - (standard input).");
  }

  if (positionals.length === 2) {
    const [beforeName, afterName] = positionals as [string, string];
    const before = (await load(beforeName, io)).catalogs.at(-1) as Catalog;
    const after = (await load(afterName, io)).catalogs.at(-1) as Catalog;
    const c = compare(before, after);
    io.out(
      values.json ? `${JSON.stringify(c, null, 2)}\n` : `${render(c, [beforeName, afterName])}\n`,
    );
    return c.equal ? EXIT.ok : EXIT.invalid;
  }

  const name = positionals[0] as string;
  const { catalogs: history, history: isHistory } = await load(name, io);
  if (!isHistory) {
    throw new UsageError(
      `With one file, diff compares the entries of a catalog history; ${name} holds one catalog.`,
    );
  }
  const comparisons = history.slice(1).map((after, i) => compare(history[i] as Catalog, after));
  if (values.json) {
    io.out(`${JSON.stringify(comparisons, null, 2)}\n`);
  } else if (comparisons.length === 0) {
    io.out(`${name} holds one catalog (${history[0]?.version}): nothing to compare.\n`);
  } else {
    io.out(`${comparisons.map((c) => render(c)).join("\n\n")}\n`);
  }
  return comparisons.every((c) => c.equal) ? EXIT.ok : EXIT.invalid;
}
