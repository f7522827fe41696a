/** The options and the report of a conformance run. */

/** Which rules a run holds a server to. */
export type ConformanceProfile = "interface" | "reference";

/** Options of {@link runConformance}. */
export type ConformanceOptions = {
  /** The server's base URL, such as `http://127.0.0.1:8787` (the endpoints are under `/api/`). */
  baseUrl: string;
  /** An API key of the account the run may charge; never printed, never in the report. */
  key: string;
  /** The most credits the run may spend (default 0: free checks only). */
  budget?: number;
  /** The account's multiplier; default: inferred from free quotes. */
  multiplier?: string | number;
  /** Asset ids this key may use as references (the checks of P6 need at least one). */
  assets?: readonly string[];
  /** The reference server's admin token: turns on the checks of refunds and the ledger. */
  adminToken?: string;
  /** Where the admin API is (default: `baseUrl`). */
  adminUrl?: string;
  /**
   * `interface` (default): only what the interface states; `reference`: this package's own
   * decisions too.
   */
  profile?: ConformanceProfile;
  /** Rule ids or families to run, such as `["N2", "P4"]` or `["P", "S"]` (default: every rule). */
  rules?: readonly string[];
  /** Seed of the generated cases (default 1): the same seed sends the same requests. */
  seed?: number;
  /** How many generated cases to add to the fixed ones (default 25). */
  runs?: number;
  /** Most free requests in flight at once (default 4); creates are sent one at a time. */
  concurrency?: number;
  /** How long to wait for one answer, in milliseconds (default 10,000). */
  timeoutMs?: number;
  /** The fetch to send requests with (default: the global `fetch`). */
  fetch?: typeof fetch;
};

/** How a rule fared. */
export type CheckStatus = "passed" | "failed" | "skipped";

/** One request as the report shows it (the key masked). */
export type ReportedRequest = {
  method: string;
  /** The URL path, such as `/api/generations`. */
  path: string;
  /** The body as sent: parsed JSON when it is JSON, else the text; absent when none. */
  body?: unknown;
};

/** One way a server broke a rule. */
export type ConformanceFailure = {
  /** What went wrong, in one or two sentences. */
  message: string;
  /** The request that shows it (after shrinking), or `null` when it is no one request. */
  request: ReportedRequest | null;
  /** What the rule requires. */
  expected: unknown;
  /** What the server did. */
  actual: unknown;
  /**
   * A curl command that sends the request again, the key as `$API_KEY`; empty when there is no
   * request.
   */
  curl: string;
};

/** The verdict on one rule. */
export type RuleCheck = {
  /** The rule's id, such as `P4`. */
  rule: string;
  /** The rule in a few words. */
  title: string;
  status: CheckStatus;
  /** How many cases were checked. */
  cases: number;
  /** Why the rule was skipped. */
  reason?: string;
  failures: ConformanceFailure[];
};

/** Where the multiplier of a run came from. */
export type MultiplierSource = "option" | "inferred";

/** What a conformance run found. */
export type ConformanceReport = {
  /** True when no rule failed. */
  ok: boolean;
  baseUrl: string;
  profile: ConformanceProfile;
  seed: number;
  budget: number;
  /**
   * Credits spent, read from the balance: the balance at the start minus the balance at the end.
   */
  spentCredits: number;
  /**
   * The multiplier the prices were checked with, as a decimal string (`null` when none could be
   * had).
   */
  multiplier: string | null;
  multiplierSource: MultiplierSource;
  /** How many HTTP requests the run sent. */
  requests: number;
  /** One entry per rule of the rule book, in its order. */
  checks: RuleCheck[];
};
