/**
 * The broken servers of the proof: each is the alternative implementation with exactly one rule
 * broken, named by the rule id it breaks, with what a conformance run needs to see the bug.
 */

/** One broken server: the switch it turns on, the rule it breaks, and what a run needs. */
export type BrokenServer = {
  /** The switch of the service double (`breaks` option). */
  breaks: Break;
  /** The rule id of the rule book the bug breaks. */
  rule: string;
  /** What is wrong, for the test's name. */
  bug: string;
  /** Credits the run may spend: 0 for a bug that free checks show. */
  budget: number;
  /** The run gets the admin token and URL (refunds, ledger). */
  admin?: boolean;
  /** The run infers the multiplier from quotes rather than being told it. */
  inferMultiplier?: boolean;
};

/** Every bug the service double can be made to have, one switch each. */
export type Break =
  | "price-cell"
  | "rounding-half-even"
  | "surcharge-five"
  | "multiplier-ignored"
  | "quote-without-multiplier"
  | "unpriceable-fallback"
  | "total-rounded-once"
  | "image-count-off-by-one"
  | "prompt-off-by-one"
  | "idempotency-key-off-by-one"
  | "unknown-field-accepted"
  | "quality-auto-accepted"
  | "alpha-img2-2k-accepted"
  | "image-count-zero-accepted"
  | "ratio-refusal-charges"
  | "strings-not-trimmed"
  | "gamma-two-references"
  | "background-on-beta2"
  | "references-not-deduplicated"
  | "foreign-asset-charged"
  | "replay-charges"
  | "concurrent-keys-charge-twice"
  | "balance-lags"
  | "accepted-body-disagrees"
  | "quote-without-auth"
  | "credits-without-auth"
  | "ping-body-wrong"
  | "credits-body-wrong"
  | "auth-error-not-json"
  | "json-error-not-json"
  | "job-status-wrong"
  | "task-stores-no-background"
  | "refund-twice"
  | "refund-whole-task"
  | "refund-at-current-multiplier"
  | "ledger-debit-short";

/**
 * The budget of a run whose bug only a charged check shows: enough for every charged check of a
 * full run (a correct server is charged about 1,100 credits by one at multiplier 1.25).
 */
const CHARGED = 2_000;

/** The broken servers, one per bug. */
export const BROKEN_SERVERS: readonly BrokenServer[] = [
  { breaks: "price-cell", rule: "P1", bug: "beta2 at 4K costs 100, not 120", budget: 0 },
  {
    breaks: "rounding-half-even",
    rule: "P4",
    bug: "amounts are rounded half to even, not half-up",
    budget: 0,
  },
  { breaks: "surcharge-five", rule: "P3", bug: "a reference adds 5 credits, not 10", budget: 0 },
  { breaks: "multiplier-ignored", rule: "P4", bug: "the account multiplier is ignored", budget: 0 },
  {
    breaks: "quote-without-multiplier",
    rule: "P7",
    bug: "quotes leave the multiplier out, charges apply it",
    budget: CHARGED,
    inferMultiplier: true,
  },
  {
    breaks: "unpriceable-fallback",
    rule: "P2",
    bug: "an unpriceable spec is quoted at the model's cheapest price",
    budget: 0,
  },
  {
    breaks: "total-rounded-once",
    rule: "P5",
    bug: "the total is the rounding of a product, not a sum of rounded amounts",
    budget: CHARGED,
  },
  {
    breaks: "image-count-off-by-one",
    rule: "V5",
    bug: "one image more than the model's limit is accepted",
    budget: 0,
  },
  {
    breaks: "prompt-off-by-one",
    rule: "N4",
    bug: "a 12001-character prompt is accepted",
    budget: 0,
  },
  {
    breaks: "idempotency-key-off-by-one",
    rule: "N13",
    bug: "a 129-character idempotency key is accepted",
    budget: 0,
  },
  { breaks: "unknown-field-accepted", rule: "N2", bug: "an unknown field is ignored", budget: 0 },
  { breaks: "quality-auto-accepted", rule: "N9", bug: 'quality "auto" is accepted', budget: 0 },
  { breaks: "alpha-img2-2k-accepted", rule: "V2", bug: "alpha-img2 is accepted at 2K", budget: 0 },
  { breaks: "image-count-zero-accepted", rule: "N11", bug: "imageCount 0 is accepted", budget: 0 },
  {
    breaks: "ratio-refusal-charges",
    rule: "V1",
    bug: "a ratio the model refuses is refused and charged",
    budget: 0,
  },
  {
    breaks: "strings-not-trimmed",
    rule: "N3",
    bug: "strings are matched untrimmed",
    budget: CHARGED,
  },
  {
    breaks: "gamma-two-references",
    rule: "V6",
    bug: "gamma-image-1.5 accepts two references",
    budget: 0,
  },
  {
    breaks: "background-on-beta2",
    rule: "V4",
    bug: "beta2 accepts a transparent background",
    budget: 0,
  },
  {
    breaks: "references-not-deduplicated",
    rule: "P6",
    bug: "a reference sent twice is charged twice",
    budget: CHARGED,
  },
  {
    breaks: "foreign-asset-charged",
    rule: "P6",
    bug: "an asset the caller does not own is charged",
    budget: CHARGED,
  },
  { breaks: "replay-charges", rule: "S5", bug: "a replay is charged again", budget: CHARGED },
  {
    breaks: "concurrent-keys-charge-twice",
    rule: "S5",
    bug: "concurrent creates with one key are each charged",
    budget: CHARGED,
  },
  {
    breaks: "balance-lags",
    rule: "S4",
    bug: "the balance shown lags one task behind",
    budget: CHARGED,
  },
  {
    breaks: "accepted-body-disagrees",
    rule: "S3",
    bug: "batch.balanceAfterCredits is the balance before the charge",
    budget: CHARGED,
  },
  { breaks: "quote-without-auth", rule: "S1", bug: "the quote endpoint needs no key", budget: 0 },
  {
    breaks: "credits-without-auth",
    rule: "S1",
    bug: "the credits endpoint needs no key",
    budget: 0,
  },
  { breaks: "ping-body-wrong", rule: "S9", bug: 'ping says authProvider "apiKey"', budget: 0 },
  { breaks: "credits-body-wrong", rule: "S10", bug: 'credits says currency "credit"', budget: 0 },
  {
    breaks: "auth-error-not-json",
    rule: "S1",
    bug: "a refused key is answered in plain text",
    budget: 0,
  },
  {
    breaks: "json-error-not-json",
    rule: "S12",
    bug: "a body that is not JSON is refused in plain text",
    budget: 0,
  },
  {
    breaks: "job-status-wrong",
    rule: "S3",
    bug: 'a new job is shown "pending", not "queued"',
    budget: CHARGED,
  },
  {
    breaks: "task-stores-no-background",
    rule: "S8",
    bug: "a task is stored without its background",
    budget: CHARGED,
    admin: true,
  },
  {
    breaks: "refund-whole-task",
    rule: "S6",
    bug: "failing one job refunds its whole task",
    budget: CHARGED,
    admin: true,
  },
  {
    breaks: "refund-at-current-multiplier",
    rule: "S7",
    bug: "a refund is priced again at the multiplier of the day",
    budget: CHARGED,
    admin: true,
  },
  {
    breaks: "refund-twice",
    rule: "S6",
    bug: "failing a failed job refunds it again",
    budget: CHARGED,
    admin: true,
  },
  {
    breaks: "ledger-debit-short",
    rule: "S13",
    bug: "each debit is written to the ledger one credit short",
    budget: CHARGED,
    admin: true,
  },
];
