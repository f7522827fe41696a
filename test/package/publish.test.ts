import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import { createOpenApiDocument } from "../../src/server/openapi/document.js";
import { beforeAllOrFail } from "../support/beforeAllOrFail.js";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const bin = (name: string) => `${root}node_modules/.bin/${name}`;
const pkg = JSON.parse(readFileSync(`${root}package.json`, "utf8")) as {
  exports: Record<string, string | Record<string, unknown>>;
  bin: Record<string, string>;
  sideEffects: boolean;
  scripts: Record<string, string>;
};

/** Runs a command; on failure the assertion shows everything it printed. */
async function sh(file: string, args: string[], cwd = root) {
  try {
    // `npm pack` would rebuild dist/ through `prepack` while other tests read it: npm test has just
    // built it, so pack what is there.
    const env = { ...process.env, npm_config_ignore_scripts: "true" };
    const { stdout, stderr } = await run(file, args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

/** A scratch folder: the tarball, and a consumer project with the tarball installed in it. */
let scratch = "";
let tarball = "";
/** The consumer project, which has the package and its dependencies (valibot, hono, @hono/node-server), and neither pg nor @types/pg. */
let project = "";
/** Where the tarball is installed in the consumer project. */
let installed = "";

beforeAllOrFail(async () => {
  if (!existsSync(`${root}dist/index.js`)) {
    throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
  }
  // Packed once for every test here.
  scratch = mkdtempSync(join(tmpdir(), "imagegen-pricing-pack-"));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const packed = await sh(npm, ["pack", "--pack-destination", scratch]);
  const name = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
  if (packed.code !== 0 || name === undefined) {
    throw new Error(`npm pack failed:\n${packed.output}`);
  }
  tarball = join(scratch, name);
  // Installed as npm installs a tarball: its `package/` folder becomes node_modules/imagegen-pricing.
  project = join(scratch, "consumer");
  installed = join(project, "node_modules", "imagegen-pricing");
  mkdirSync(installed, { recursive: true });
  const untar = await sh("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
  if (untar.code !== 0) {
    throw new Error(`tar failed:\n${untar.output}`);
  }
  for (const dependency of ["valibot", "hono", "@hono/node-server"]) {
    mkdirSync(join(project, "node_modules", dependency, ".."), { recursive: true });
    symlinkSync(
      `${root}node_modules/${dependency}`,
      join(project, "node_modules", dependency),
      "dir",
    );
  }
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true }));
}, 300_000);

afterAll(() => {
  if (scratch) {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** Runs Node in the consumer project. */
const consumerNode = (args: string[]) => sh(process.execPath, args, project);

/** The relative links of a Markdown file (no URLs, no anchors within the page). */
const relativeLinks = (markdown: string): string[] =>
  [...markdown.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? "")
    .filter((target) => target !== "" && !/^[a-z]+:/.test(target));

describe("the published package", () => {
  it("every exports entry lists types first, then import and require", () => {
    for (const [subpath, entry] of Object.entries(pkg.exports)) {
      if (typeof entry === "string") {
        continue; // ./package.json
      }
      expect(Object.keys(entry), subpath).toEqual(["types", "import", "require"]);
      expect(Object.keys(entry.types as object), subpath).toEqual(["import", "require"]);
    }
    expect(pkg.sideEffects).toBe(false);
  });

  it("npm pack builds the package first, so a tarball never carries a stale or missing dist/", () => {
    expect(pkg.scripts.prepack).toBe("npm run build");
  });

  it("passes publint --strict on the packed tarball", { timeout: 60_000 }, async () => {
    const result = await sh(bin("publint"), ["run", tarball, "--strict"]);
    expect(result.output).toContain("All good");
    expect(result.code, result.output).toBe(0);
  });

  it("passes are-the-types-wrong on the packed tarball (node16 profile)", {
    timeout: 60_000,
  }, async () => {
    const result = await sh(bin("attw"), [
      tarball,
      "--profile",
      "node16",
      "--format",
      "table-flipped",
    ]);
    expect(result.code, result.output).toBe(0);
  });

  it("each subpath loads by its package name from ESM and from CommonJS", {
    timeout: 60_000,
  }, async () => {
    // A package may import itself by name through its own exports map (self-reference).
    const names = Object.keys(pkg.exports)
      .filter((s) => s !== "./package.json")
      .map((s) => (s === "." ? "imagegen-pricing" : `imagegen-pricing/${s.slice(2)}`));
    const require = createRequire(`${root}package.json`);
    for (const name of names) {
      const cjs = require(name) as Record<string, unknown>;
      if (name.endsWith(".json")) {
        // Data, not code (the catalog history and its schema): an ES module imports it as JSON.
        expect(
          ((await import(name, { with: { type: "json" } })) as { default: unknown }).default,
          name,
        ).toEqual(cjs);
        continue;
      }
      const esm = (await import(name)) as Record<string, unknown>;
      expect(Object.keys(cjs).sort(), name).toEqual(Object.keys(esm).sort());
      expect(Object.keys(esm).length, name).toBeGreaterThan(0);
    }
  });

  it("the bin runs from dist/", { timeout: 60_000 }, async () => {
    const file = `${root}${pkg.bin["imagegen-pricing"]}`;
    expect(readFileSync(file, "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    const result = await sh(process.execPath, [
      file,
      "quote",
      "--model",
      "beta2",
      "--resolution",
      "4K",
      "--multiplier",
      "1.15",
      "--json",
    ]);
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toMatchObject({ credits: 138 });
  });
});

describe("the tarball installed in an empty project (no pg, no @types/pg)", () => {
  it("ships the guides and recipes: every relative link of its README and guides resolves inside the package", () => {
    const guides = readdirSync(join(installed, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`);
    // Every guide of the repository is in the package.
    expect(guides.sort()).toEqual(
      readdirSync(`${root}docs`)
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`)
        .sort(),
    );
    const broken: string[] = [];
    let links = 0;
    for (const file of ["README.md", "CHANGELOG.md", ...guides]) {
      for (const target of relativeLinks(readFileSync(join(installed, file), "utf8"))) {
        // The API reference (docs/api/) is generated by `npm run docs`, in a checkout.
        if (target.startsWith("api/") || target.startsWith("docs/api/")) {
          continue;
        }
        links++;
        const path = resolve(dirname(join(installed, file)), target);
        if (relative(installed, path).startsWith("..") || !existsSync(path)) {
          broken.push(`${file} -> ${target}`);
        }
      }
    }
    expect(links).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it("S12: imagegen-pricing/openapi.json and imagegen-pricing/admin-openapi.json are the documents the server builds", {
    timeout: 30_000,
  }, async () => {
    const printed = await consumerNode([
      "-e",
      'console.log(JSON.stringify([require("imagegen-pricing/openapi.json"), require("imagegen-pricing/admin-openapi.json")]))',
    ]);
    expect(printed.code, printed.output).toBe(0);
    const [service, admin] = JSON.parse(printed.output) as unknown[];
    expect(service).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument())));
    expect(admin).toEqual(JSON.parse(JSON.stringify(createAdminOpenApiDocument())));
    expect(existsSync(join(installed, "data", "openapi.json"))).toBe(true);
  });

  const pgMissing = "Error: imagegen-pricing/postgres needs pg 8: npm install pg";
  /** What a user sees: the one line naming the install, and none of the module resolution's trace. */
  const expectOneLine = (result: { code: number; output: string }) => {
    expect(result.code, result.output).toBe(1);
    expect(result.output).toContain(pgMissing);
    expect(result.output.split("\n").filter((line) => line.includes("npm install pg"))).toEqual([
      pgMissing,
    ]);
    expect(result.output).not.toMatch(
      /ERR_MODULE_NOT_FOUND|Cannot find (package|module)|Require stack/,
    );
  };

  it("importing imagegen-pricing/postgres from ESM without pg throws one line that says npm install pg", {
    timeout: 30_000,
  }, async () => {
    expectOneLine(
      await consumerNode([
        "--input-type=module",
        "-e",
        'await import("imagegen-pricing/postgres");',
      ]),
    );
  });

  it("requiring imagegen-pricing/postgres from CommonJS without pg throws the same line", {
    timeout: 30_000,
  }, async () => {
    expectOneLine(await consumerNode(["-e", 'require("imagegen-pricing/postgres");']));
  });

  it("imagegen-pricing serve --database-url without pg says to install it, in one line", {
    timeout: 30_000,
  }, async () => {
    const cli = join(installed, "dist", "cli.js");
    const result = await consumerNode([
      cli,
      "serve",
      "--database-url",
      "postgres://127.0.0.1:1/imagegen",
    ]);
    expect(result.code, result.output).toBe(1);
    expect(result.output.trim()).toBe(
      "--database-url needs the pg package: install it next to imagegen-pricing (npm install pg).",
    );
  });

  it("a TypeScript consumer of imagegen-pricing/postgres compiles with pg's own types, a pg.Pool as the pool (ESM and CommonJS)", {
    // A few seconds of CPU for tsc; generous for a machine busy with other work.
    timeout: 300_000,
  }, async () => {
    // The pool option is pg's own Pool: @types/pg (a dev dependency here) types it, nothing else.
    const consumer = `import type { Pool } from "pg";
import { createPostgresStore, migratePostgres, type PostgresStoreOptions, StoreUnavailableError } from "imagegen-pricing/postgres";
import { createReferenceServer } from "imagegen-pricing/server";

export async function start(pool: Pool): Promise<Response> {
  const options: PostgresStoreOptions = { pool, schema: "imagegen" };
  const { version } = await migratePostgres(options);
  const store = await createPostgresStore(options);
  const server = createReferenceServer({ store });
  const answer = await server.fetch(new Request("http://localhost/api/ping"));
  await store.close();
  return version > 0 && !(answer instanceof StoreUnavailableError) ? answer : Response.error();
}
`;
    writeFileSync(join(project, "consumer.mts"), consumer);
    writeFileSync(join(project, "consumer.cts"), consumer);
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          exactOptionalPropertyTypes: true,
          // The package's own declaration files are checked too: an import of "pg" there would fail.
          skipLibCheck: false,
          noEmit: true,
          types: [],
        },
        files: ["consumer.mts", "consumer.cts"],
      }),
    );
    expect(existsSync(join(project, "node_modules", "pg"))).toBe(false);
    const types = join(project, "node_modules", "@types");
    mkdirSync(types, { recursive: true });
    symlinkSync(`${root}node_modules/@types/pg`, join(types, "pg"), "dir");
    try {
      const result = await sh(bin("tsc"), ["-p", project], project);
      expect(result.output).toBe("");
      expect(result.code).toBe(0);
    } finally {
      rmSync(join(types, "pg"));
    }
  });

  it("with pg installed, imagegen-pricing/postgres loads from ESM and CommonJS", {
    timeout: 30_000,
  }, async () => {
    symlinkSync(`${root}node_modules/pg`, join(project, "node_modules", "pg"), "dir");
    try {
      const esm = await consumerNode([
        "--input-type=module",
        "-e",
        'const m = await import("imagegen-pricing/postgres"); console.log(typeof m.createPostgresStore)',
      ]);
      expect(esm.output.trim()).toBe("function");
      const cjs = await consumerNode([
        "-e",
        'console.log(typeof require("imagegen-pricing/postgres").createPostgresStore)',
      ]);
      expect(cjs.output.trim()).toBe("function");
    } finally {
      rmSync(join(project, "node_modules", "pg"));
    }
  });
});
