/**
 * The import graph of `src/` and its two checks: no import cycle, and no import from a lower layer
 * to a higher one (LAYERS). test/package/layers.test.ts fails on either.
 *
 * Every import counts, `import type` and `export type ... from` too: a type-only import cannot make
 * a cycle at run time, but it still makes a reader of the lower module read the higher one first.
 *
 *   npx tsx scripts/layers.ts   list the cycles and the upward imports (exit 1 on one)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** An import graph: each module (a path relative to the repository) and the modules it imports. */
export type Graph = ReadonlyMap<string, readonly string[]>;

/**
 * The layers of `src/`, lowest first; a module may import from its own layer and the ones below.
 * Each layer is a list of path prefixes (a folder ends with `/`, a file is named whole).
 */
export const LAYERS: readonly (readonly [name: string, prefixes: readonly string[]])[] = [
  ["ground", ["src/types.ts", "src/messages.ts", "src/echo.ts", "src/generated/"]],
  ["models", ["src/models/"]],
  ["request", ["src/request/"]],
  ["pricing", ["src/pricing/"]],
  ["core", ["src/index.ts"]],
  ["client", ["src/client/"]],
  ["store", ["src/store/"]],
  ["server", ["src/server/"]],
  ["postgres", ["src/postgres/"]],
  ["node", ["src/node/"]],
  ["testing", ["src/testing/", "src/jsonSchema.ts"]],
  ["cli", ["src/cli/"]],
];

/**
 * The rungs of `src/server`, lowest first, checked the same way among the server's own modules: what
 * a request is made of below, then what answers one endpoint, then the router, then the wiring.
 */
export const SERVER_LAYERS: readonly (readonly [name: string, prefixes: readonly string[]])[] = [
  ["codes and sentences", ["src/server/errors.ts", "src/server/messages.ts", "src/server/ids.ts"]],
  ["http", ["src/server/http/"]],
  ["openapi", ["src/server/openapi/"]],
  ["catalogs", ["src/server/catalogs.ts"]],
  ["context", ["src/server/context.ts"]],
  ["keys and fixtures", ["src/server/auth.ts", "src/server/fixtures.ts"]],
  ["test-double controls", ["src/server/faults.ts", "src/server/journal.ts"]],
  ["endpoints", ["src/server/routes/", "src/server/admin/"]],
  ["router", ["src/server/router.ts"]],
  ["server", ["src/server/createReferenceServer.ts"]],
  ["entry", ["src/server/index.ts"]],
];

/**
 * The part of a graph among the modules under a folder.
 *
 * @param graph - An import graph.
 * @param prefix - The folder, ending with `/`.
 * @returns The modules under it, each with the modules under it that it imports.
 */
export function subgraph(graph: Graph, prefix: string): Graph {
  return new Map(
    [...graph]
      .filter(([file]) => file.startsWith(prefix))
      .map(([file, targets]) => [file, targets.filter((t) => t.startsWith(prefix))] as const),
  );
}

/** Every `.ts` file under a folder, as paths relative to the repository. */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** The relative module specifiers a source text names: static imports and re-exports, `import()` and `import("...")` types. */
export function specifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) found.push(arg.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.filter((s) => s.startsWith("."));
}

/** The file a relative specifier names: `./x.js` is `./x.ts`, a folder its `index.ts`. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const base = resolve(ROOT, dirname(from), specifier);
  const candidates = [base.replace(/\.js$/, ".ts"), base, `${base}.ts`, join(base, "index.ts")];
  const hit = candidates.find((c) => c.endsWith(".ts") && existsSync(c));
  return hit === undefined ? undefined : relative(ROOT, hit).split("\\").join("/");
}

/**
 * The import graph of `src/`, read from the files as they are.
 *
 * @returns Each module of `src/` and the modules of `src/` it imports, each once.
 */
export function srcGraph(): Graph {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles("src").sort()) {
    const targets = new Set<string>();
    for (const specifier of specifiers(file, readFileSync(join(ROOT, file), "utf8"))) {
      const target = resolveSpecifier(file, specifier);
      if (target?.startsWith("src/")) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/**
 * A set of modules that import each other in a circle (a strongly connected component): every
 * member, and one shortest cycle through its first member as `[a, b, ..., a]`.
 */
export type Cycle = { members: string[]; path: string[] };

/**
 * The cycles of a graph: one per strongly connected component of more than one module (or a module
 * importing itself). Every cycle of the graph lies inside one of them.
 *
 * @param graph - An import graph.
 * @returns Each component, with its members and one cycle through them, in a stable order.
 */
export function findCycles(graph: Graph): Cycle[] {
  // Tarjan's algorithm, iterative over the (small) graph.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const strongConnect = (start: string): void => {
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; next: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++] as string;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop() as string;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) strongConnect(node);

  const cycles: Cycle[] = [];
  for (const component of components) {
    const members = [...component].sort();
    const first = members[0] as string;
    if (members.length === 1 && !(graph.get(first) ?? []).includes(first)) continue;
    cycles.push({ members, path: pathBack(graph, new Set(members), first) });
  }
  return cycles.sort((a, b) => (a.members[0] as string).localeCompare(b.members[0] as string));
}

/** The shortest path from a module back to itself inside its component (breadth first). */
function pathBack(graph: Graph, members: ReadonlySet<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i] as string;
    for (const to of graph.get(node) ?? []) {
      if (!members.has(to)) continue;
      if (to === start) {
        const path: string[] = [];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at)) path.unshift(at);
        return [start, ...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

/**
 * The layer of a module: the position in `layers` of the entry with a prefix that names it.
 *
 * @param file - A module's path.
 * @param layers - The layers, lowest first.
 * @returns Its layer's position, or -1 when no layer names it.
 */
export function layerOf(file: string, layers: typeof LAYERS = LAYERS): number {
  return layers.findIndex(([, prefixes]) => prefixes.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p)));
}

/** An import against the layer order: `from` (in a lower layer) imports `to` (in a higher one). */
export type Violation = { from: string; to: string; fromLayer: string; toLayer: string };

/**
 * The imports from a lower layer to a higher one, and the modules no layer names.
 *
 * @param graph - An import graph.
 * @param layers - The layers, lowest first.
 * @returns The upward imports, and the modules without a layer.
 */
export function layerViolations(graph: Graph, layers: typeof LAYERS = LAYERS): { upward: Violation[]; unplaced: string[] } {
  const upward: Violation[] = [];
  const unplaced: string[] = [];
  const name = (i: number) => (layers[i] as (typeof layers)[number])[0];
  for (const [from, targets] of graph) {
    const fromLayer = layerOf(from, layers);
    if (fromLayer < 0) {
      unplaced.push(from);
      continue;
    }
    for (const to of targets) {
      const toLayer = layerOf(to, layers);
      if (toLayer > fromLayer) upward.push({ from, to, fromLayer: name(fromLayer), toLayer: name(toLayer) });
    }
  }
  return { upward, unplaced };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const graph = srcGraph();
  const cycles = findCycles(graph);
  const { upward, unplaced } = layerViolations(graph);
  const server = layerViolations(subgraph(graph, "src/server/"), SERVER_LAYERS);
  upward.push(...server.upward);
  unplaced.push(...server.unplaced);
  console.log(`Import cycles (${cycles.length}):`);
  for (const { members, path } of cycles) {
    console.log(`  ${path.join(" -> ")}\n    (${members.length} modules in this circle: ${members.join(", ")})`);
  }
  console.log(`Imports from a lower layer to a higher one (${upward.length}):`);
  for (const v of upward) console.log(`  ${v.from} (${v.fromLayer}) -> ${v.to} (${v.toLayer})`);
  if (unplaced.length > 0) console.log(`Modules in no layer:\n  ${unplaced.join("\n  ")}`);
  process.exitCode = cycles.length + upward.length + unplaced.length > 0 ? 1 : 0;
}
