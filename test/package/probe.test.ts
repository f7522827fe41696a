/**
 * docs/generated/probe.md, written by `npm run probe` (a measurement, never run here): its shape and
 * the facts in it that do not depend on the machine. Timings are read by people, not asserted.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MAX_CREDITS } from "../../src/store/store.js";

const root = new URL("../../", import.meta.url).pathname;
const read = (path: string) => readFileSync(root + path, "utf8");
const probe = read("docs/generated/probe.md");

/** The "now" cell of a scenario's row, found by the id in its first cell (`<!-- id -->`). */
function now(id: string): string {
  const rows = probe.split("\n").filter((line) => line.startsWith("| ") && line.includes(`<!-- ${id} -->`));
  expect(rows, `one row for ${id}`).toHaveLength(1);
  const cells = (rows[0] as string).split(/(?<!\\)\|/).map((cell) => cell.trim());
  expect(cells, `the cells of ${id}`).toHaveLength(5); // "", scenario, 0.2.0, now, ""
  return cells[3] as string;
}

describe("docs/generated/probe.md", () => {
  it("has a row per scenario, each with the 0.2.0 figure and one of now, and names a commit, Node and the cores", () => {
    for (const id of ["starvation", "admin", "body", "credit", "echo", "fixtures", "silent"]) expect(now(id)).not.toBe("");
    expect(probe).toMatch(/commit [0-9a-f]{40}[ ,]/);
    expect(probe).not.toContain("uncommitted changes");
    expect(probe).toMatch(/Node v\d+\.\d+\.\d+, \d+ cores/);
    expect(probe).toContain("95% of other clients' new connections get 503");
    expect(probe).toContain("all 32 secret characters come back");
  });

  it("S1: no disguise brings back a character of the secret, and the control shows the count can see one", () => {
    expect(now("echo")).toMatch(/^0 of 32 secret characters come back, under every one of \d+ disguises\.$/);
    const rows = [...probe.matchAll(/^\| [^|]+ \| [\d, ]+ \| (\d+) of 32 \|$/gm)];
    expect(rows.length).toBeGreaterThanOrEqual(10);
    expect(rows.map((m) => m[1])).toEqual(rows.map(() => "0"));
    expect(probe).toMatch(/Control: .* is quoted back: 32 of 32 characters in a 400\./);
  });

  it("S15: a FIFO and oversized fixtures files are refused with exit 2, none left running", () => {
    const cell = now("fixtures");
    expect(cell.match(/refused, exit 2 after/g)).toHaveLength(3);
    expect(cell).toContain("a FIFO with no writer: refused, exit 2");
    expect(cell).not.toContain("still running");
  });

  it("S1: wrong admin tokens meet 429 after the throttle's count, the right one too, from that address only", () => {
    const cell = now("admin");
    expect(cell).toMatch(/^10 wrong tokens evaluated \(401\) per 60 s window/);
    expect(cell).toMatch(/then [\d,]+ x 429 .*from guess 11 on\)/);
    expect(cell).toContain("the right token from that address then: 429; from another address: 200.");
  });

  it("S15: the victim of a connection hog gets no 503, the hog is held to its cap per address", () => {
    const cell = now("starvation");
    expect(cell).toMatch(/^0\.0% refused: the victim's ([\d,]+) new connections got \1 x 200, 0 x 503\./);
    expect(cell).toContain("The attacker held 100 connections");
  });

  it("S13, S15: at 2^53 - 1 a grant of the charge is refused and the refund leaves balance = ledger sum, on both stores", () => {
    const cell = now("credit");
    for (const store of ["memory", "PostgreSQL"]) {
      expect(cell).toContain(
        `${store}: charged 80, a grant of 80 refused (credits_too_large), refund 80, balance ${MAX_CREDITS}, ledger sum ${MAX_CREDITS} (equal)`,
      );
    }
  });

  it("S12: the worst body is measured at the current body limit", () => {
    expect(now("body")).toMatch(/^the worst body at the 304 KiB \(311,296-byte\) limit, .* costs [\d.]+ ms of server CPU/);
  });

  it("docs/reliability.md carries the same table between its probe markers", () => {
    const reliability = read("docs/reliability.md");
    const block = /<!-- probe:start [^>]*-->\n([\s\S]*?)\n<!-- probe:end -->/.exec(reliability)?.[1] ?? "";
    // The first table of the file: the scenarios (the detail below has tables of its own).
    const lines = probe.split("\n");
    const first = lines.findIndex((line) => line.startsWith("| Scenario |"));
    const table = lines.slice(first, lines.indexOf("", first));
    expect(table.length).toBe(9); // header, rule, seven scenarios
    expect(block.split("\n").filter((line) => line.startsWith("|"))).toEqual(table);
    expect(block).toContain(/Measured at commit [0-9a-f]{40}[^\n]*/.exec(probe)?.[0] ?? "missing");
  });
});
