/**
 * Every TypeScript and JavaScript example of the README and the guides is a complete program: all of
 * them are type-checked together (one `tsc` run, against the source, with the repository's strict
 * options), and those that need neither a port nor a database run against the built package, each
 * `expression; // result` comment checked against what the expression gives.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = new URL("../../", import.meta.url).pathname;
const dir = `${root}reports/doc-examples/`;

type Block = { file: string; line: number; lang: string; code: string; name: string };

/** The code blocks in ts, typescript, js or javascript of the README and of every guide. */
function docBlocks(): Block[] {
  const files = [
    "README.md",
    ...readdirSync(`${root}docs`)
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  const blocks: Block[] = [];
  for (const file of files) {
    const text = readFileSync(root + file, "utf8");
    for (const match of text.matchAll(
      /^```(ts|typescript|js|javascript)(?:[ \t][^\n]*)?\n([\s\S]*?)^```$/gm,
    )) {
      const line = text.slice(0, match.index).split("\n").length;
      const lang = match[1] as string;
      const ext = lang.startsWith("j") ? "mjs" : "mts";
      blocks.push({
        file,
        line,
        lang,
        code: match[2] as string,
        name: `${file.replace(/[/.]/g, "_")}_${line}.${ext}`,
      });
    }
  }
  return blocks;
}

/** The part of a result comment that is the value: a bracketed literal, or what comes before `: `. */
function promisedValue(comment: string): string | undefined {
  if (!/^(-?\d|"|\[|\{|true\b|false\b|null\b|undefined\b)/.test(comment)) {
    return undefined; // prose, not a value
  }
  const open = comment[0];
  if (open === "[" || open === "{") {
    const close = open === "[" ? "]" : "}";
    let depth = 0;
    let inString = false;
    for (let i = 0; i < comment.length; i++) {
      const c = comment[i];
      if (inString) {
        if (c === "\\") {
          i++;
        } else if (c === '"') {
          inString = false;
        }
      } else if (c === '"') {
        inString = true;
      } else if (c === open) {
        depth++;
      } else if (c === close && --depth === 0) {
        return comment.slice(0, i + 1);
      }
    }
    return comment;
  }
  return comment.split(/: /)[0];
}

/**
 * The block as run: each top-level `expression; // value` (or an expression statement followed by a
 * `// value` line) is wrapped in a check that every number and every quoted string of the comment's
 * value is in what the expression gives. `...` in a comment stands for what it leaves out.
 */
function instrument(block: Block): { code: string; checks: number } {
  const lines = block.code.split("\n");
  let checks = 0;
  const expression =
    /^(?!(?:const|let|var|import|export|if|else|for|while|return|function|async function|type|interface|console)\b)[^\s)}\]/].*;$/;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    let statement: string | undefined;
    let comment: string | undefined;
    const inline = /^(.*;)\s*\/\/ (.*)$/.exec(line);
    if (inline && expression.test(inline[1] as string)) {
      [statement, comment] = [inline[1], inline[2]];
    } else if (expression.test(line) && /^\/\/ /.test(lines[i + 1] ?? "")) {
      [statement, comment] = [line, ""];
    }
    // A value may go on over the comment lines that follow.
    for (let next = i + 1; comment !== undefined && /^\/\/ /.test(lines[next] ?? ""); next++) {
      comment = `${comment} ${(lines[next] as string).slice(3).trim()}`.trim();
    }
    const value = comment === undefined ? undefined : promisedValue(comment);
    if (statement === undefined || value === undefined) {
      continue;
    }
    const where = `${block.file}:${block.line + 1 + i}`;
    lines[i] =
      `__check(${statement.slice(0, -1)}, ${JSON.stringify(value)}, ${JSON.stringify(where)});`;
    checks++;
  }
  return {
    code: `import { __check } from "./check.mts";\n${lines.join("\n")}\nexport {};\n`,
    checks,
  };
}

/** What the run files import: the comparison of a value with its comment. */
const checkModule = `export function __check(value: unknown, promised: string, where: string): void {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  const numbers = new Set(text.match(/-?\\d+(?:\\.\\d+)?/g) ?? []);
  for (const n of promised.replace(/"(?:[^"\\\\]|\\\\.)*"/g, "").match(/-?\\d+(?:\\.\\d+)?/g) ?? []) {
    if (!numbers.has(n)) throw new Error(\`\${where}: the comment says \${n}, the value is \${text}\`);
  }
  for (const literal of promised.match(/"(?:[^"\\\\]|\\\\.)*"/g) ?? []) {
    const s = JSON.parse(literal) as string;
    if (s.includes("...")) continue;
    if (!text.includes(JSON.stringify(s).slice(1, -1))) throw new Error(\`\${where}: the comment says \${literal}, the value is \${text}\`);
  }
}
`;

/** Blocks that bind a port or need a database: type-checked, not run here (their guides' tests cover them). */
const needsOutside = (code: string) =>
  /\bserve\(|imagegen-pricing\/postgres|DATABASE_URL/.test(code);

const blocks = docBlocks();

beforeAll(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
});

describe("the examples of README.md and docs/*.md", () => {
  it("there are examples in the README and the guides to check", () => {
    expect(blocks.length).toBeGreaterThanOrEqual(15);
    expect(new Set(blocks.map((b) => b.file)).size).toBeGreaterThanOrEqual(6);
  });

  it("every block type-checks as a complete file against the package's exports (one tsc run)", {
    timeout: 300_000,
  }, async () => {
    for (const block of blocks) {
      writeFileSync(dir + block.name, `${block.code}\nexport {};\n`);
    }
    const src = (path: string) => [`${root}src/${path}`];
    writeFileSync(
      `${dir}tsconfig.json`,
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          allowJs: true,
          checkJs: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          noEmit: true,
          types: ["node"],
          paths: {
            "imagegen-pricing": src("index.ts"),
            "imagegen-pricing/server": src("server/index.ts"),
            "imagegen-pricing/node": src("node/index.ts"),
            "imagegen-pricing/testing": src("testing/index.ts"),
            "imagegen-pricing/json-schema": src("jsonSchema.ts"),
            "imagegen-pricing/postgres": src("postgres/index.ts"),
            "imagegen-pricing/client": src("client/index.ts"),
            "imagegen-pricing/conformance": src("conformance/index.ts"),
          },
        },
        files: blocks.map((b) => b.name),
      }),
    );
    let output = "";
    try {
      await run(
        `${root}node_modules/.bin/tsc`,
        ["-p", `${dir}tsconfig.json`, "--pretty", "false"],
        {
          cwd: root,
          maxBuffer: 16 * 1024 * 1024,
        },
      );
    } catch (error) {
      const e = error as { stdout?: string; stderr?: string };
      output = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    }
    // Name each error by its guide and line, not by the scratch file.
    const located = output.replace(
      /^(?:reports\/doc-examples\/)?(\S+?)_(\d+)\.m[jt]s\((\d+),\d+\)/gm,
      (_, file, start, line) => {
        const block = blocks.find((b) => b.name.startsWith(`${file}_${start}.`));
        return `${block?.file ?? file}:${Number(start) + Number(line)}`;
      },
    );
    expect(located).toBe("");
  });

  it("every block without a port or a database runs against the built package, and its result comments hold", {
    timeout: 300_000,
  }, async () => {
    if (!existsSync(`${root}dist/index.js`)) {
      throw new Error('dist/ is missing: run "npm run build" (npm test does it first).');
    }
    const runnable = blocks.filter((b) => !needsOutside(b.code));
    expect(runnable.length).toBeGreaterThanOrEqual(10);
    writeFileSync(`${dir}check.mts`, checkModule);
    let checks = 0;
    for (const block of runnable) {
      const instrumented = instrument(block);
      checks += instrumented.checks;
      writeFileSync(`${dir}run-${block.name}`, instrumented.code);
    }
    expect(checks).toBeGreaterThanOrEqual(10);
    // One process for all of them; inside the repository, "imagegen-pricing" is the built package.
    const runner = `const failures = [];
for (const [where, file] of ${JSON.stringify(runnable.map((b) => [`${b.file}:${b.line}`, `./run-${b.name}`]))}) {
  try { await import(file); } catch (error) { failures.push(where + ": " + (error instanceof Error ? error.message : String(error))); }
}
console.log(JSON.stringify(failures));
`;
    writeFileSync(`${dir}run.mts`, runner);
    const { stdout } = await run(process.execPath, ["--import", "tsx", `${dir}run.mts`], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    const last = stdout.trim().split("\n").at(-1) ?? "";
    expect(JSON.parse(last)).toEqual([]);
  });
});
