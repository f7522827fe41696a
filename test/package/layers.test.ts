/**
 * The import graph of src/ (scripts/layers.ts): no module imports another that imports it back, by
 * any path, and none imports from a higher layer than its own. Type-only imports count too.
 */
import { describe, expect, it } from "vitest";
import {
  findCycles,
  type Graph,
  LAYERS,
  layerOf,
  layerViolations,
  SERVER_LAYERS,
  specifiers,
  srcGraph,
  subgraph,
} from "../../scripts/layers.js";

const graph = srcGraph();
const show = (g: Graph) => findCycles(g).map((c) => c.path.join(" -> "));

describe("the checker (scripts/layers.ts)", () => {
  it("reports a cycle, naming every module around it, and each separate cycle", () => {
    const sample: Graph = new Map([
      ["a", ["b"]],
      ["b", ["c", "d"]],
      ["c", ["a"]],
      ["d", []],
      ["e", ["f"]],
      ["f", ["e"]],
      ["g", ["g"]],
    ]);
    expect(show(sample)).toEqual(["a -> b -> c -> a", "e -> f -> e", "g -> g"]);
    expect(findCycles(sample)[0]?.members).toEqual(["a", "b", "c"]);
  });

  it("finds no cycle in a graph without one, a diamond included", () => {
    const sample: Graph = new Map([
      ["a", ["b", "c"]],
      ["b", ["d"]],
      ["c", ["d"]],
      ["d", []],
    ]);
    expect(findCycles(sample)).toEqual([]);
  });

  it("reports an import from a lower layer to a higher one, and a module no layer names", () => {
    const sample: Graph = new Map([
      ["src/messages.ts", ["src/request/bounds.ts"]],
      ["src/request/bounds.ts", ["src/echo.ts"]],
      ["src/echo.ts", []],
      ["src/elsewhere.ts", []],
    ]);
    const { upward, unplaced } = layerViolations(sample);
    expect(upward).toEqual([{ from: "src/messages.ts", to: "src/request/bounds.ts", fromLayer: "ground", toLayer: "request" }]);
    expect(unplaced).toEqual(["src/elsewhere.ts"]);
  });

  it("reads every kind of import: `import type`, `export ... from`, `import()` and `import(...)` types", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "./b.js";',
      'export { c } from "./c.js";',
      'export type { D } from "./d.js";',
      'const e = await import("./e.js");',
      'type F = import("./f.js").F;',
      'import x from "valibot";',
    ].join("\n");
    expect(specifiers("sample.ts", text)).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js"]);
  });
});

describe("the modules of src/", () => {
  it("reads the whole of src/ (the graph is not empty, and the server's route reaches the store)", () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get("src/server/routes/generations.ts")).toContain("src/store/store.ts");
  });

  it("no import cycle, type-only imports included", () => {
    expect(
      findCycles(graph).map((c) => `${c.path.join(" -> ")} (all of: ${c.members.join(", ")})`),
      "modules that import each other in a circle",
    ).toEqual([]);
  });

  it(`no import from a lower layer to a higher one (${LAYERS.map(([name]) => name).join(" < ")})`, () => {
    const { upward, unplaced } = layerViolations(graph);
    expect(
      upward.map((v) => `${v.from} (${v.fromLayer}) imports ${v.to} (${v.toLayer})`),
      "upward imports",
    ).toEqual([]);
    expect(unplaced, "modules of src/ in no layer of LAYERS").toEqual([]);
  });

  it(`src/server: no import from a lower rung to a higher one (${SERVER_LAYERS.map(([name]) => name).join(" < ")})`, () => {
    const { upward, unplaced } = layerViolations(subgraph(graph, "src/server/"), SERVER_LAYERS);
    expect(
      upward.map((v) => `${v.from} (${v.fromLayer}) imports ${v.to} (${v.toLayer})`),
      "upward imports",
    ).toEqual([]);
    expect(unplaced, "modules of src/server in no rung of SERVER_LAYERS").toEqual([]);
  });

  it("the store is below the server, and PostgreSQL implements it without the server", () => {
    expect(layerOf("src/store/store.ts")).toBeLessThan(layerOf("src/server/index.ts"));
    const postgres = [...graph].filter(([file]) => file.startsWith("src/postgres/"));
    expect(postgres.flatMap(([, targets]) => targets.filter((t) => t.startsWith("src/server/")))).toEqual([]);
  });

  it("one POST /api/generations never returns to a module it left: its route file imports neither the router nor the server", () => {
    const reach = (from: string, seen = new Set<string>()): Set<string> => {
      for (const to of graph.get(from) ?? []) {
        if (seen.has(to)) continue;
        seen.add(to);
        reach(to, seen);
      }
      return seen;
    };
    const below = reach("src/server/routes/generations.ts");
    expect([...below].filter((f) => f === "src/server/router.ts" || f === "src/server/createReferenceServer.ts")).toEqual([]);
  });
});
