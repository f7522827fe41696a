import type { Issue, PriceBreakdown } from "../index.js";

/** Lays rows out as a plain-text table with a header rule, columns padded to their widest cell. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
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
      `${b.referenceCount} reference${b.referenceCount === 1 ? "" : "s"} x ${surchargePerReference}`,
    ],
    ["subtotal", String(b.subtotalCredits), ""],
    [`x multiplier ${b.multiplier}`, String(b.credits), `rounded ${b.rounding} to a whole credit`],
  ];
  const w0 = Math.max(...rows.map((r) => (r[0] ?? "").length));
  const w1 = Math.max(...rows.map((r) => (r[1] ?? "").length));
  return rows.map(([a = "", n = "", note = ""]) => `  ${a.padEnd(w0)}  ${n.padStart(w1)}${note ? `  (${note})` : ""}`).join("\n");
}

/** One issue per line: `path: message [code]`. */
export function issueLines(issues: readonly Issue[]): string {
  return issues.map((i) => `  ${i.path || "(body)"}: ${i.message} [${i.code}]`).join("\n");
}
