/** Plain-text layout for the command line: tables, credits, price breakdowns and issue lines. */
import type { Issue, PriceBreakdown } from "../index.js";

/**
 * Splits a comma-separated list into lines of at most `width` characters, breaking after commas.
 */
function wrapList(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const part of text.split(/(?<=,)/)) {
    if (line !== "" && line.length + part.length > width) {
      lines.push(line);
      line = "";
    }
    line += part;
  }
  return [...lines, line];
}

/**
 * Lays rows out as a plain-text table with a header rule, columns padded to their widest cell. With
 * `maxWidth`, the last column is wrapped (after commas) onto continuation lines so that no line is
 * wider, as long as the other columns leave it room.
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  maxWidth?: number,
): string {
  const last = header.length - 1;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  if (maxWidth !== undefined) {
    const room = maxWidth - widths.slice(0, last).reduce((sum, w) => sum + w + 2, 0);
    const wrapped = rows.flatMap((r) => wrapList(r[last] ?? "", Math.max(room, 1)));
    widths[last] = Math.max((header[last] ?? "").length, ...wrapped.map((l) => l.length));
  }
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  const body = rows.flatMap((r) => {
    const [first = "", ...more] =
      maxWidth === undefined ? [r[last] ?? ""] : wrapList(r[last] ?? "", widths[last] ?? 0);
    return [
      line([...r.slice(0, last), first]),
      ...more.map((m) => line([...r.slice(0, last).map(() => ""), m])),
    ];
  });
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body].join("\n");
}

/** `1 credit`, `138 credits`. */
export const credits = (n: number) => `${n} credit${n === 1 ? "" : "s"}`;

/** The lines that show how one output image's price is made. */
export function breakdownLines(b: PriceBreakdown, surchargePerReference: number): string {
  const rows = [
    ["base price", String(b.baseCredits), ""],
    [
      "reference surcharge",
      String(b.referenceSurchargeCredits),
      `${b.referenceCount} reference${b.referenceCount === 1 ? "" : "s"} x ` +
        `${surchargePerReference}`,
    ],
    ["subtotal", String(b.subtotalCredits), ""],
    [`x multiplier ${b.multiplier}`, String(b.credits), `rounded ${b.rounding} to a whole credit`],
  ];
  const w0 = Math.max(...rows.map((r) => (r[0] ?? "").length));
  const w1 = Math.max(...rows.map((r) => (r[1] ?? "").length));
  return rows
    .map(
      ([a = "", n = "", note = ""]) =>
        `  ${a.padEnd(w0)}  ${n.padStart(w1)}${note ? `  (${note})` : ""}`,
    )
    .join("\n");
}

/** One issue per line: `path: message [code]`. */
export function issueLines(issues: readonly Issue[]): string {
  return issues.map((i) => `  ${i.path || "(body)"}: ${i.message} [${i.code}]`).join("\n");
}
