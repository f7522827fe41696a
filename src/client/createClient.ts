/**
 * `createClient`: a client of the service that checks a generation request and prices it before
 * sending, and sends every create with one idempotency key on all of its attempts.
 */
import type { QuoteSpec } from "../pricing/quoteSpec.js";
import { checkRequest } from "../request/checkRequest.js";
import type { GenerationRequest, Issue } from "../types.js";
import {
  ANSWER_SCHEMAS,
  type CreditsAnswer,
  type Estimate,
  type GenerationAccepted,
  type PingAnswer,
  type QuoteAnswer,
} from "./answers.js";
import { ImagegenError } from "./errors.js";
import { LOG_LEVELS, type Logger, type LogLevel, levelLogger } from "./log.js";
import { ImagegenPromise } from "./promise.js";
import { type Call, type Fetch, type RetryEvent, type Settings, send } from "./send.js";
import { VERSION } from "./version.js";

/** Options of {@link createClient}. */
export type ClientOptions = {
  /**
   * The API key, `ck_live_...` or `ck_test_...`. Sent only in the `Authorization` header, never
   * echoed.
   */
  apiKey: string;
  /**
   * The service's base URL (`https://...`, or `http://` for a local test double); a path prefix is
   * kept.
   */
  baseUrl: string;
  /**
   * What sends each request (default: `globalThis.fetch`, as it is at each call). A reference
   * server's `fetch` works, so a test needs no socket. It gets a `Request` without a signal: an
   * attempt that times out or is aborted ends for the client at once, but what this function
   * started runs to its end (the global `fetch` is aborted, its connection closed).
   */
  fetch?: Fetch;
  /** Retries after the first attempt of a call, 0 to 10 (default 2). */
  maxRetries?: number;
  /** How long one attempt may take, answer read whole, in milliseconds (default 60,000). */
  timeoutMs?: number;
  /**
   * The longest wait between attempts, in milliseconds (default 10,000): it caps the backoff (which
   * starts near 500 ms and doubles; 0 retries at once). An answer whose `Retry-After` asks for
   * longer is not retried: the call rejects at once with that wait as `error.retryAfterMs`.
   */
  maxRetryDelayMs?: number;
  /** Told before each retry's wait; an error it throws is ignored. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Where the client logs each attempt and each answer (default: `console`): headers redacted
   * but the client's own, never a body, never a key.
   */
  logger?: Logger;
  /**
   * How much it logs (default `"warn"`: only what a caller cannot see otherwise, such as an
   * `onRetry` hook that threw).
   */
  logLevel?: LogLevel;
  /**
   * Lets the client run in a page (`window` and `document` defined). An API key in browser code is
   * anyone's key: only for a page that never leaves the developer's machine.
   */
  dangerouslyAllowBrowser?: boolean;
};

/**
 * Per-call options: the caller's abort signal, this call's own time and retry bounds, and its own
 * headers.
 */
export type RequestOptions = {
  /** Aborts the call: the attempt in flight and any wait; an aborted call is never retried. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /**
   * Headers of the caller's own sent with every attempt of this call, such as a trace id; a
   * `User-Agent` here replaces the client's. The headers the client owns (`Authorization`,
   * `Idempotency-Key`, `Content-Type`, `X-Retry-Count`) are refused (`invalid_options`), never
   * replaced in silence.
   */
  headers?: Record<string, string>;
};

/** Options of a create: the per-call options and the idempotency key of this logical create. */
export type CreateOptions = RequestOptions & {
  /**
   * The key that makes this create happen at most once (default: the body's `idempotencyKey`, else
   * a new UUID). Sent on every attempt; reuse it to retry a create that failed without an answer.
   */
  idempotencyKey?: string;
};

/**
 * A generation request as a caller writes it: `prompt` required, every other field optional (the
 * service's defaults).
 */
export type GenerationInput = Readonly<
  Partial<Omit<GenerationRequest, "prompt" | "inputAssetIds">>
> & {
  readonly prompt: string;
  readonly inputAssetIds?: readonly string[];
};

/** The client of the service that {@link createClient} makes. */
export type Client = {
  generations: {
    /**
     * Checks a generation request locally, then sends it with one idempotency key on every
     * attempt; resolves to the 202 body (a retry that the service answers with the original task
     * resolves as that task).
     */
    create(body: GenerationInput, options?: CreateOptions): ImagegenPromise<GenerationAccepted>;
    /**
     * What this account will be charged for a request: checked locally, priced by the quote
     * endpoint. An estimate is the client's own sum, not one answer: the quote it is built on is
     * `estimate.quote` (its metadata: `client.quote(spec).withResponse()`).
     */
    estimate(body: GenerationInput, options?: RequestOptions): Promise<Estimate>;
  };
  /** The quote endpoint's answer for a spec: the core's `quote` at this account's multiplier. */
  quote(spec: QuoteSpec, options?: RequestOptions): ImagegenPromise<QuoteAnswer>;
  /** Who the key belongs to. */
  ping(options?: RequestOptions): ImagegenPromise<PingAnswer>;
  /** The account's balance. */
  credits(options?: RequestOptions): ImagegenPromise<CreditsAnswer>;
};

const invalid = (message: string) => new ImagegenError({ code: "invalid_options", message });

/**
 * A whole number within bounds, or the default when absent; anything else names the option and its
 * range.
 */
function whole(name: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) {
    return fallback;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      `${name} must be a whole number from ${min} to ${max}; received ` +
        `${typeof value === "number" ? value : typeof value}.`,
    );
  }
  return value;
}

/** The longest a timer can wait in JavaScript. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Checks the options once: every problem is an `invalid_options` error naming the option and the
 * values that would pass, the key never shown.
 */
function settingsOf(options: ClientOptions, inPage: boolean): Settings {
  if (typeof options !== "object" || options === null) {
    throw invalid("createClient takes an options object: { apiKey, baseUrl }.");
  }
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== "string" || !/^ck_(live|test)_[A-Za-z0-9_-]+$/.test(apiKey)) {
    throw invalid(
      "apiKey must be an API key: ck_live_ or ck_test_ followed by letters, digits, _ or -; " +
        `received ${typeof apiKey === "string" ? "a string that is not one" : typeof apiKey}.`,
    );
  }
  let url: URL | undefined;
  try {
    url = typeof baseUrl === "string" ? new URL(baseUrl) : undefined;
  } catch {}
  if (
    url === undefined ||
    (url.protocol !== "https:" && url.protocol !== "http:") ||
    url.search !== "" ||
    url.hash !== ""
  ) {
    throw invalid(
      "baseUrl must be an absolute http or https URL without query or fragment, such as " +
        `"https://api.example.com"; received ` +
        `${typeof baseUrl === "string" ? JSON.stringify(baseUrl.slice(0, 100)) : typeof baseUrl}.`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    // The credentials are not echoed: the sentence may be logged.
    throw invalid(
      "baseUrl must not hold credentials (user:password@): the client authenticates with " +
        "apiKey alone.",
    );
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") {
    throw invalid("fetch must be a function.");
  }
  if (options.onRetry !== undefined && typeof options.onRetry !== "function") {
    throw invalid("onRetry must be a function.");
  }
  const fetch = options.fetch;
  if (fetch === undefined && typeof globalThis.fetch !== "function") {
    throw invalid("This runtime has no global fetch: pass one as the fetch option.");
  }
  const logger = options.logger ?? globalThis.console;
  const methods = ["debug", "info", "warn", "error"] as const;
  if (
    typeof logger !== "object" ||
    logger === null ||
    methods.some((name) => typeof logger[name] !== "function")
  ) {
    throw invalid("logger must be an object with debug, info, warn and error functions.");
  }
  const logLevel = options.logLevel ?? "warn";
  if (!LOG_LEVELS.includes(logLevel)) {
    const levels = LOG_LEVELS.map((l) => JSON.stringify(l)).join(", ");
    const received =
      typeof logLevel === "string" ? JSON.stringify(logLevel.slice(0, 20)) : typeof logLevel;
    throw invalid(`logLevel must be one of ${levels}; received ${received}.`);
  }
  return {
    apiKey,
    baseUrl: url.href.replace(/\/+$/, ""),
    fetch,
    maxRetries: whole("maxRetries", options.maxRetries, 0, 10, 2),
    timeoutMs: whole("timeoutMs", options.timeoutMs, 1, MAX_TIMER_MS, 60_000),
    maxRetryDelayMs: whole("maxRetryDelayMs", options.maxRetryDelayMs, 0, MAX_TIMER_MS, 10_000),
    onRetry: options.onRetry,
    log: levelLogger(logger, logLevel),
    userAgent: inPage ? undefined : `imagegen-pricing/${VERSION}`,
  };
}

/** The headers the client sets itself, which a call's `headers` may not name. */
const OWN_HEADERS = new Set(["authorization", "idempotency-key", "content-type", "x-retry-count"]);

/** A header name: an RFC 9110 token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Whether a value goes in a header unchanged through every HTTP stack: visible ASCII, spaces and
 * tabs only (no control character, no byte above 0x7E a proxy could re-decode).
 *
 * @internal
 */
export const headerSafe = (value: string): boolean => /^[\t\x20-\x7E]*$/.test(value);

/**
 * A call's own headers, checked: names in lower case, none the client owns, values a header can
 * carry.
 */
function callHeaders(headers: unknown): Record<string, string> | undefined {
  if (headers === undefined) {
    return undefined;
  }
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw invalid("headers must be an object of header names to string values.");
  }
  const checked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!TOKEN.test(name)) {
      throw invalid(
        `headers: ${JSON.stringify(name.slice(0, 40))} is not a header name (letters, ` +
          `digits and !#$%&'*+.^_\`|~-).`,
      );
    }
    if (OWN_HEADERS.has(lower)) {
      throw invalid(
        `headers: ${name} is the client's own (it sets Authorization, Idempotency-Key, ` +
          "Content-Type and X-Retry-Count itself); give the key as apiKey, a create's key " +
          "as idempotencyKey.",
      );
    }
    // The value is not shown: a header may hold a secret.
    if (typeof value !== "string" || !headerSafe(value)) {
      throw invalid(
        `headers: the value of ${name} must be a string of visible ASCII characters, ` +
          "spaces and tabs.",
      );
    }
    checked[lower] = value;
  }
  return checked;
}

/** The per-call options as `send` takes them, checked like the client's own. */
function callOptions(options: RequestOptions | undefined) {
  return {
    headers: callHeaders(options?.headers),
    signal: options?.signal,
    timeoutMs:
      options?.timeoutMs === undefined
        ? undefined
        : whole("timeoutMs", options.timeoutMs, 1, MAX_TIMER_MS, 0),
    maxRetries:
      options?.maxRetries === undefined
        ? undefined
        : whole("maxRetries", options.maxRetries, 0, 10, 0),
  };
}

/** What a refused body breaks, for a sentence: how many rules, and the first. */
function broken(issues: Issue<string>[]): string {
  const first = issues[0];
  const rules = issues.length === 1 ? "a rule" : `${issues.length} rules`;
  const example = first ? ` (${first.path || "body"}: ${first.message})` : "";
  return `it breaks ${rules}${example}; see issues`;
}

/** The rejection of a body the rules refuse: exactly `checkRequest`'s issues, nothing sent. */
function refused(issues: Issue<string>[], idempotencyKey?: string): ImagegenError {
  const first = issues[0];
  return new ImagegenError({
    code: "invalid_request",
    message: `The request was not sent: ${broken(issues)}.`,
    issues,
    param: first?.path || undefined,
    idempotencyKey,
  });
}

/**
 * The key of a create, checked before anything is sent: the option's or the body's (they must
 * agree), else a new UUID. A key the rules refuse (N13: 1 to 128 characters after trim) rejects
 * with `invalid_request`, like every other rule of the body.
 */
function createKey(body: GenerationInput, opts: CreateOptions | undefined): string {
  const given = opts?.idempotencyKey;
  const bodyKey = (body as { idempotencyKey?: unknown } | null)?.idempotencyKey;
  const differs =
    typeof given === "string" && typeof bodyKey === "string"
      ? given.trim() !== bodyKey.trim()
      : given !== bodyKey;
  if (given !== undefined && bodyKey !== undefined && differs) {
    const message =
      "The idempotencyKey option and the body's idempotencyKey differ; give one key, or " +
      "the same in both.";
    throw refused([{ path: "idempotencyKey", code: "idempotency_key_mismatch", message }]);
  }
  const withKey = given === undefined ? body : { ...body, idempotencyKey: given };
  const checked = checkRequest(withKey);
  if (!checked.success) {
    throw refused(checked.issues, typeof given === "string" ? given : undefined);
  }
  return checked.output.idempotencyKey ?? globalThis.crypto.randomUUID();
}

/**
 * Creates a client of the service for server-side code, which checks and prices a request before
 * sending it and never charges a create twice.
 *
 * A create is checked with the package's own rules (`checkRequest`) and sent with one idempotency
 * key on every attempt; only what a retry can fix is retried.
 *
 * @param options - `apiKey` and `baseUrl` (required); `fetch`, `maxRetries`, `timeoutMs`,
 *   `maxRetryDelayMs`, `onRetry`, `logger`, `logLevel`; `dangerouslyAllowBrowser` to run in a page.
 * @returns The client: `generations.create`, `generations.estimate`, `quote`, `ping`, `credits`.
 * @throws ImagegenError `browser_not_allowed` in a page without the opt-in; `invalid_options`
 *   naming an option and the values that would pass.
 * @example
 * ```ts
 * const client = createClient({ apiKey: process.env.IMAGEGEN_API_KEY!, baseUrl:
 * "https://api.example.com" }); const estimate = await client.generations.estimate({ prompt: "a
 * fox", modelId: "beta2", imageCount: 2 }); if (estimate.credits !== null) await
 * client.generations.create({ prompt: "a fox", modelId: "beta2", imageCount: 2 });
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const inPage =
    typeof globalThis.window !== "undefined" && typeof globalThis.document !== "undefined";
  if (inPage && options?.dangerouslyAllowBrowser !== true) {
    throw new ImagegenError({
      code: "browser_not_allowed",
      message:
        "createClient refuses to run in a browser page: an API key in browser code is " +
        "anyone's key. Call the service from your server; pass dangerouslyAllowBrowser: " +
        "true only for a page that never leaves your machine.",
    });
  }
  const settings = settingsOf(options, inPage);
  /** Sends a call: a bad per-call option rejects like every other failure of a call. */
  const call = <T>(make: () => Call): ImagegenPromise<T> =>
    new ImagegenPromise((async () => send<T>(settings, make()))());
  const quote = (spec: QuoteSpec, opts?: RequestOptions) =>
    call<QuoteAnswer>(() => ({
      method: "POST",
      path: "/api/pricing/quote",
      body: JSON.stringify(spec),
      schema: ANSWER_SCHEMAS.quote,
      ...callOptions(opts),
    }));

  return {
    generations: {
      create: (body, opts) =>
        call<GenerationAccepted>(() => {
          const idempotencyKey = createKey(body, opts);
          return {
            method: "POST",
            path: "/api/generations",
            body: JSON.stringify({ ...body, idempotencyKey }),
            schema: ANSWER_SCHEMAS.accepted,
            idempotencyKey,
            // A key a header cannot carry unchanged goes in the body alone, which the service
            // reads.
            keyInHeader: headerSafe(idempotencyKey),
            ...callOptions(opts),
          };
        }),
      async estimate(body, opts) {
        const checked = checkRequest(body);
        if (!checked.success) {
          const { issues } = checked;
          // An estimate sends no generation: what did not happen is the pricing.
          const message = `Nothing was priced: ${broken(issues)}.`;
          return { credits: null, reason: "invalid_request", message, issues };
        }
        const request = checked.output;
        const answer = await quote(
          {
            kind: "image",
            modelId: request.modelId,
            resolution: request.resolution,
            quality: request.quality,
            referenceImageCount: request.inputAssetIds.length,
          },
          opts,
        );
        if (answer.credits === null) {
          return { credits: null, reason: answer.reason, message: answer.message };
        }
        // P5: every output image costs the same rounded amount, so the sum is a product of whole
        // numbers.
        return {
          credits: request.imageCount * answer.credits,
          perOutputCredits: answer.credits,
          imageCount: request.imageCount,
          request,
          quote: answer,
        };
      },
    },
    quote,
    ping: (opts) =>
      call<PingAnswer>(() => ({
        method: "GET",
        path: "/api/ping",
        schema: ANSWER_SCHEMAS.ping,
        ...callOptions(opts),
      })),
    credits: (opts) =>
      call<CreditsAnswer>(() => ({
        method: "GET",
        path: "/api/query/credits",
        schema: ANSWER_SCHEMAS.credits,
        ...callOptions(opts),
      })),
  };
}
