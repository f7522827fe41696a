/** The state of one conformance run: the verdicts so far, the money, and how requests are sent. */
import { type Answer, field, Http, type Outgoing } from "./http.js";
import { RULES } from "./rules.js";
import type { ConformanceProfile, MultiplierSource, ReportedRequest, RuleCheck } from "./types.js";

/** A run's options with every default filled in. */
export type Settings = {
  baseUrl: string;
  key: string;
  budget: number;
  multiplier: string | undefined;
  assets: string[];
  adminToken: string | undefined;
  adminUrl: string;
  profile: ConformanceProfile;
  rules: Set<string>;
  seed: number;
  runs: number;
  concurrency: number;
  timeoutMs: number;
  fetch: typeof fetch;
};

/** What a failure needs from the kit's side: the answer it came from (its request and curl). */
export type FailureInput = {
  message: string;
  expected: unknown;
  actual: unknown;
  answer?: Answer | undefined;
  request?: ReportedRequest | null;
  curl?: string;
};

/** One conformance run in progress. */
export class Run {
  readonly http: Http;
  readonly settings: Settings;
  /** The multiplier prices are checked with, once known. */
  multiplier: string | null = null;
  multiplierSource: MultiplierSource = "inferred";
  /** The balance when the run started, and the last one read. */
  startBalance = 0;
  lastBalance = 0;
  /** The user and key ids GET /api/ping answered. */
  userId = "";
  apiKeyId = "";
  /** Why the run sends no more creates, once it stopped charging. */
  stopped: string | undefined;
  /** Credits charged by creates whose answer was lost (Jepsen's uncertain operations). */
  uncertain = 0;
  /** Credits the kit expected to be charged, confirmed by an answer (minus refunds). */
  confirmed = 0;
  readonly #checks = new Map<string, RuleCheck>();
  #keys = 0;

  /** Starts a run's state. */
  constructor(settings: Settings) {
    this.settings = settings;
    this.http = new Http({
      baseUrl: settings.baseUrl,
      key: settings.key,
      timeoutMs: settings.timeoutMs,
      fetch: settings.fetch,
      secrets: [settings.key, settings.adminToken ?? ""],
    });
    for (const [rule, title] of RULES) {
      this.#checks.set(rule, { rule, title, status: "passed", cases: 0, failures: [] });
    }
  }

  /** Whether the run checks this rule (the `rules` filter). */
  wants(rule: string): boolean {
    return this.settings.rules.has(rule);
  }

  /** Whether this rule is checked in the reference profile only, and the run is in it. */
  get reference(): boolean {
    return this.settings.profile === "reference";
  }

  /** Counts cases that held for a rule. */
  pass(rule: string, cases = 1): void {
    const check = this.#check(rule);
    check.cases += cases;
  }

  /** Records a failure of a rule (one case). */
  fail(rule: string, input: FailureInput): void {
    const check = this.#check(rule);
    check.cases += 1;
    if (check.failures.length >= 10) {
      return; // ten examples of one rule say enough
    }
    const request = input.request !== undefined ? input.request : (input.answer?.request ?? null);
    check.failures.push({
      message: input.message,
      request,
      expected: input.expected,
      actual: input.actual,
      curl: input.curl ?? input.answer?.curl ?? "",
    });
  }

  /** Marks a rule skipped, unless it has cases; the first reason stays. */
  skip(rule: string, reason: string): void {
    const check = this.#check(rule);
    check.reason ??= reason;
  }

  /** The verdicts, in the rule book's order, with their status settled. */
  checks(): RuleCheck[] {
    return [...this.#checks.values()]
      .filter((check) => this.wants(check.rule))
      .map((check) => {
        const status =
          check.failures.length > 0 ? "failed" : check.cases > 0 ? "passed" : "skipped";
        const settled: RuleCheck = { ...check, status };
        if (status !== "skipped") {
          delete settled.reason;
        } else {
          settled.reason ??= "no case of this rule could be sent";
        }
        return settled;
      });
  }

  #check(rule: string): RuleCheck {
    const check = this.#checks.get(rule);
    if (!check) {
      throw new RangeError(`unknown rule ${rule}`);
    }
    return check;
  }

  /** A fresh idempotency key of this run. */
  newKey(): string {
    this.#keys += 1;
    const random = Math.floor(Math.random() * 2 ** 32)
      .toString(16)
      .padStart(8, "0");
    return `conformance-${this.settings.seed}-${this.#keys}-${random}`;
  }

  /**
   * Sends a request and checks that its answer does not echo the key (S1).
   *
   * @param out - The request.
   * @returns The answer.
   */
  async send(out: Outgoing): Promise<Answer> {
    const answer = await this.http.send(out);
    const key = this.settings.key;
    if (key.length > 0 && answer.text.includes(key)) {
      this.fail("S1", {
        message: `The answer of ${out.method} ${out.path} echoes the API key.`,
        expected: "no answer holds the key",
        actual: `status ${answer.status}, the key in the body`,
        answer,
      });
    }
    if (this.reference && answer.status !== 0 && !answer.headers.get("request-id")) {
      this.#missingRequestId ??= answer;
    }
    return answer;
  }

  /** The first answer without a `Request-Id` header (reference profile, S12). */
  #missingRequestId: Answer | undefined;

  /** The first answer without a `Request-Id`, when any. */
  get missingRequestId(): Answer | undefined {
    return this.#missingRequestId;
  }

  /**
   * Reads the balance (GET /api/query/credits).
   *
   * @returns The balance, or `undefined` when the answer holds none.
   */
  async balance(): Promise<number | undefined> {
    const answer = await this.send({ method: "GET", path: "/api/query/credits" });
    const balance = field(answer.json, "creditBalance");
    return answer.status === 200 && typeof balance === "number" && Number.isSafeInteger(balance)
      ? balance
      : undefined;
  }

  /**
   * After a request that must charge nothing: reads the balance, and when it moved, fails `rule`
   * with that request and stops charging.
   *
   * @param rule - The rule the request checks.
   * @param answer - The request's answer.
   * @returns Whether the balance stayed.
   */
  async expectFree(rule: string, answer: Answer): Promise<boolean> {
    const balance = await this.balance();
    if (balance === undefined) {
      this.fail("S10", {
        message: "GET /api/query/credits gave no balance after a request.",
        expected: "200 with creditBalance",
        actual: "no creditBalance",
      });
      return false;
    }
    const moved = this.lastBalance - balance;
    this.lastBalance = balance;
    if (moved === 0) {
      return true;
    }
    // The money is gone (or came) all the same: the bound of later reads counts it.
    this.confirmed += moved;
    this.fail(rule, {
      message:
        `A request that must charge nothing moved the balance by ${-moved} credits (status ` +
        `${answer.status}).`,
      expected: "the balance unchanged",
      actual: { balanceChange: -moved, status: answer.status },
      answer,
    });
    this.stop(`a request that must charge nothing moved the balance (${rule})`);
    return false;
  }

  /** Stops charging: no create is sent after this. */
  stop(reason: string): void {
    this.stopped ??= reason;
  }

  /** Credits the run may still spend, read from the balance. */
  get remaining(): number {
    return this.settings.budget - (this.startBalance - this.lastBalance);
  }

  /**
   * Whether a create of this price may be sent: charging has not stopped and the budget holds it.
   *
   * @param price - The correct price of the create (for a correct server).
   * @returns Why not, or `undefined` when it may.
   */
  whyNotCharge(price: number): string | undefined {
    if (this.stopped) {
      return `charging stopped: ${this.stopped}`;
    }
    if (this.multiplier === null) {
      return "no multiplier: the prices could not be inferred";
    }
    if (price > this.remaining) {
      return (
        `the budget (${this.settings.budget}) leaves ${Math.max(0, this.remaining)} ` +
        `credits, the case costs ${price}`
      );
    }
    return undefined;
  }
}
