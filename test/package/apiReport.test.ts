/**
 * The API reports (`api-report/*.api.md`): what the built declarations of each entry export must be
 * what the committed report says, so that every change of the public API is a reviewed diff; and
 * every public name has a one-sentence summary (the API reference shows it on the module page).
 */
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { buildReports, entries, firstSentence, plainLinks, REPORT_DIR, type Report } from "../../scripts/api-report.js";

/** The reports of the current dist/, or why they could not be made (no build). */
const built: Report[] | Error = (() => {
  try {
    return buildReports();
  } catch (error) {
    return error as Error;
  }
})();

function reports(): Report[] {
  if (built instanceof Error) throw new Error(`${built.message} (npm test builds before it runs the tests)`);
  return built;
}

function committed(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return `(no file ${path})`;
  }
}

describe("the API report of each entry (npm run api:report)", () => {
  for (const entry of entries()) {
    it(`${entry.importPath}: api-report/${entry.reportName} is what the built declarations export`, () => {
      const report = reports().find((r) => r.entry.importPath === entry.importPath);
      expect(report).toBeDefined();
      if (!report) return;
      expect(
        committed(report.path),
        `The public API of ${entry.importPath} changed. If that is intended, run \`npm run api:report\`, ` +
          "commit the new report and add a line to CHANGELOG.md; otherwise undo the change.",
      ).toBe(report.text);
    });
  }

  it("has one report per entry of package.json exports and no other", () => {
    const files = readdirSync(REPORT_DIR).filter((f) => f.endsWith(".api.md"));
    expect(files.sort()).toEqual(
      entries()
        .map((e) => e.reportName)
        .sort(),
    );
  });

  it("every public name of every entry has a one-sentence summary", () => {
    const missing = reports().flatMap((r) =>
      r.names.filter((n) => n.summary === "").map((n) => `${r.entry.importPath}: ${n.name}`),
    );
    expect(missing, "each needs a TSDoc comment whose first sentence ends with a full stop").toEqual([]);
  });

  it("a report names no hash-suffixed chunk of the build, so it is the same after every build", () => {
    for (const r of reports()) expect(r.text).not.toMatch(/-[A-Za-z0-9_-]{8}\.(?:d\.)?c?[jt]s\b/);
  });

  it("counts the core's public names in its report", () => {
    const core = reports()[0];
    expect(core?.entry.importPath).toBe("imagegen-pricing");
    expect(core?.text).toContain(`\n${core?.names.length} public names.\n`);
    expect(core?.names.map((n) => n.name)).toEqual(expect.arrayContaining(["quote", "checkRequest", "computeCharge"]));
  });
});

describe("firstSentence (the summary a report shows)", () => {
  it("ends at the first full stop followed by a space, across lines", () => {
    expect(firstSentence("Prices one output image.\nThe rest follows.")).toBe("Prices one output image.");
    expect(firstSentence("Lists what a model\naccepts, read from the catalog.")).toBe(
      "Lists what a model accepts, read from the catalog.",
    );
  });

  it("does not end inside a code span, parentheses or at e.g.", () => {
    expect(firstSentence("Reads `2.3` (read as 2. 3) as e.g. two. More.")).toBe("Reads `2.3` (read as 2. 3) as e.g. two.");
  });

  it("shows a {@link} as the reference page does: its text, or else its target", () => {
    expect(plainLinks("See {@link quote | the quote} and {@link Foo}.")).toBe("See `the quote` and `Foo`.");
  });

  it("is empty for no comment and for a first paragraph with no sentence ending", () => {
    expect(firstSentence("")).toBe("");
    expect(firstSentence("A fragment\n\nA sentence.")).toBe("");
  });
});
