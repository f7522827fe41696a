/** The report of a conformance run as text for a terminal, and as JUnit XML for CI. */
import type { ConformanceReport } from "./types.js";

/**
 * The report as a terminal shows it: one line per rule (status, cases, title or reason), then each
 * failure with what was expected, what came, and the curl line that shows it.
 *
 * @param report - A report of `runConformance`.
 * @returns The text, ending with a newline.
 */
export function formatReport(report: ConformanceReport): string {
  const lines: string[] = [];
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const check of report.checks) {
    counts[check.status] += 1;
    const status = check.status === "passed" ? "pass" : check.status === "failed" ? "FAIL" : "skip";
    const detail =
      check.status === "skipped" ? `${check.title} (${check.reason ?? ""})` : check.title;
    lines.push(`${status}  ${check.rule.padEnd(4)} ${String(check.cases).padStart(4)}  ${detail}`);
  }
  lines.push(
    "",
    `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped; ` +
      `profile ${report.profile}, seed ${report.seed}; ` +
      `${report.requests} requests; spent ${report.spentCredits} of a budget of ` +
      `${report.budget} credits; ` +
      `multiplier ${report.multiplier ?? "unknown"} (${report.multiplierSource})`,
  );
  for (const check of report.checks) {
    for (const failure of check.failures) {
      lines.push(
        "",
        `${check.rule} ${check.title}: ${failure.message}`,
        `  expected: ${JSON.stringify(failure.expected)}`,
        `  actual:   ${JSON.stringify(failure.actual)}`,
      );
      if (failure.curl) {
        lines.push(`  ${cutLine(failure.curl)}`);
      }
    }
  }
  return `${lines.join("\n")}\n`;
}

/** A line cut at 2,000 characters (a 12,001-character prompt shows its start). */
const cutLine = (text: string) => (text.length > 2000 ? `${text.slice(0, 2000)}... (cut)` : text);

/** Escapes text for XML. */
const xml = (text: string) =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    // Characters XML 1.0 cannot hold.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "?");

/**
 * The report as JUnit XML: one testcase per rule, its id as `classname`, failed rules with a
 * `<failure>` per failure, skipped rules with `<skipped>` and the reason.
 *
 * @param report - A report of `runConformance`.
 * @returns The XML document.
 */
export function toJUnit(report: ConformanceReport): string {
  const failed = report.checks.filter((c) => c.status === "failed").length;
  const skipped = report.checks.filter((c) => c.status === "skipped").length;
  const cases = report.checks.map((check) => {
    const open =
      `    <testcase classname="${xml(check.rule)}" ` +
      `name="${xml(`${check.rule}: ${check.title}`)}" assertions="${check.cases}">`;
    if (check.status === "skipped") {
      return `${open}\n      <skipped message="${xml(check.reason ?? "")}"/>\n    </testcase>`;
    }
    if (check.status === "passed") {
      return `${open}</testcase>`;
    }
    const failures = check.failures.map(
      (f) =>
        `      <failure message="${xml(f.message)}" type="${xml(check.rule)}">${xml(
          `expected: ${JSON.stringify(f.expected)}\n` +
            `actual: ${JSON.stringify(f.actual)}\n${cutLine(f.curl)}`,
        )}</failure>`,
    );
    return `${open}\n${failures.join("\n")}\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="imagegen-pricing conformance" tests="${report.checks.length}" ` +
      `failures="${failed}" skipped="${skipped}">`,
    `  <testsuite name="conformance ${xml(report.profile)} ${xml(report.baseUrl)}" ` +
      `tests="${report.checks.length}" failures="${failed}" skipped="${skipped}" ` +
      `errors="0">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
