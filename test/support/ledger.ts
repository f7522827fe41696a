/** The tests' own sum of a ledger (S13): granted - debits + refunds, what the balance must be. */
export function ledgerBalance(
  entries: readonly { kind: "grant" | "debit" | "refund"; credits: number }[],
): number {
  let balance = 0;
  for (const entry of entries) {
    balance += entry.kind === "debit" ? -entry.credits : entry.credits;
  }
  return balance;
}
