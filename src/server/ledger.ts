/**
 * The credit ledger (S13): every grant, debit and refund is an entry, so that for every user
 * balance = granted - debits + refunds at every moment.
 */

/** One movement of credits, as `admin.ledger(userId)` returns it. */
export type LedgerEntry = {
  kind: "grant" | "debit" | "refund";
  /** Positive whole credits; `kind` gives the direction. */
  credits: number;
  /** ISO 8601 time of the movement. */
  at: string;
  taskId?: string;
  jobId?: string;
};

/**
 * How a store keeps an entry: the time as epoch milliseconds and the job as an index into its task,
 * so that an entry costs a few words, not a few strings. A durable {@link Store} keeps these.
 */
export type LedgerRecord = {
  readonly kind: LedgerEntry["kind"];
  readonly credits: number;
  readonly at: number;
  readonly taskId?: string;
  readonly jobIndex?: number;
};

/**
 * Sums a ledger: what the balance must be (S13).
 *
 * @param entries - A user's entries.
 * @returns granted - debits + refunds.
 */
export function ledgerBalance(entries: readonly Pick<LedgerEntry, "kind" | "credits">[]): number {
  let balance = 0;
  for (const entry of entries) balance += entry.kind === "debit" ? -entry.credits : entry.credits;
  return balance;
}
