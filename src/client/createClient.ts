/**
 * `createClient`: a client of the service that checks a generation request and prices it before
 * sending, and sends every create with one idempotency key on all of its attempts.
 */
import type { QuoteSpec } from "../pricing/quoteSpec.js";
import { checkRequest } from "../request/checkRequest.js";
import type { GenerationRequest, Issue } from "../types.js";
import type {
  CreditsAnswer,
  Estimate,
  GenerationAccepted,
  PingAnswer,
  QuoteAnswer,
} from "./answers.js";
import { ImagegenError } from "./errors.js";
import { type Fetch, type RetryEvent, type Settings, send } from "./send.js";

/** Options of {@link createClient}. */
export type ClientOptions = {
  /** The API key, `ck_live_...` or `ck_test_...`. Sent only in the `Authorization` header, never echoed. */
  apiKey: string;
  /** The service's base URL (`https://...`, or `http://` for a local test double); a path prefix is kept. */
  baseUrl: string;
  /**
   * What sends each request (default: `globalThis.fetch`, as it is at each call). A reference
   * server's `fetch` works, so a test needs no socket. It gets a `Request` without a signal: an
   * attempt that times out or is aborted ends for the client at once, but what this function started
   * runs to its end (the global `fetch` is aborted, its connection closed).
   */
  fetch?: Fetch;
  /** Retries after the first attempt of a call, 0 to 10 (default 2). */
  maxRetries?: number;
  /** How long one attempt may take, answer read whole, in milliseconds (default 60,000). */
  timeoutMs?: number;
  /**
   * The longest wait between attempts, in milliseconds (default 10,000): it caps both the service's
   * `Retry-After` and the backoff (which starts near 500 ms and doubles). 0 retries at once.
   */
  maxRetryDelayMs?: number;
  /** Told before each retry's wait; an error it throws is ignored. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Lets the client run in a page (`window` and `document` defined). An API key in browser code is
   * anyone's key: only for a page that never leaves the developer's machine.
   */
  dangerouslyAllowBrowser?: boolean;
};

/** Per-call options: the caller's abort signal, and this call's own time and retry bounds. */
export type RequestOptions = {
  /** Aborts the call: the attempt in flight and any wait; an aborted call is never retried. */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
};

/** Options of a create: the per-call options and the idempotency key of this logical create. */
export type CreateOptions = RequestOptions & {
  /**
   * The key that makes this create happen at most once (default: the body's `idempotencyKey`, else
   * a new UUID). Sent on every attempt; reuse it to retry a create that failed without an answer.
   */
  idempotencyKey?: string;
};

/** A generation request as a caller writes it: `prompt` required, every other field optional (the service's defaults). */
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
    create(body: GenerationInput, options?: CreateOptions): Promise<GenerationAccepted>;
    /** What this account will be charged for a request: checked locally, priced by the quote endpoint. */
    estimate(body: GenerationInput, options?: RequestOptions): Promise<Estimate>;
  };
  /** The quote endpoint's answer for a spec: the core's `quote` at this account's multiplier. */
  quote(spec: QuoteSpec, options?: RequestOptions): Promise<QuoteAnswer>;
  /** Who the key belongs to. */
  ping(options?: RequestOptions): Promise<PingAnswer>;
  /** The account's balance. */
  credits(options?: RequestOptions): Promise<CreditsAnswer>;
};

const invalid = (message: string) => new ImagegenError({ code: "invalid_options", message });

/** A whole number within bounds, or the default when absent; anything else names the option and its range. */
function whole(name: string, value: unknown, min: number, max: number, fallback: number): number {
  if (value === undefined) {
    return fallback;
  }
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(
      `${name} must be a whole number from ${min} to ${max}; received ${typeof value === "number" ? value : typeof value}.`,
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
function settingsOf(options: ClientOptions): Settings {
  if (typeof options !== "object" || options === null) {
    throw invalid("createClient takes an options object: { apiKey, baseUrl }.");
  }
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== "string" || !/^ck_(live|test)_[A-Za-z0-9_-]+$/.test(apiKey)) {
    throw invalid(
      `apiKey must be an API key: ck_live_ or ck_test_ followed by letters, digits, _ or -; received ${typeof apiKey === "string" ? "a string that is not one" : typeof apiKey}.`,
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
      `baseUrl must be an absolute http or https URL without query or fragment, such as "https://api.example.com"; received ${typeof baseUrl === "string" ? JSON.stringify(baseUrl.slice(0, 100)) : typeof baseUrl}.`,
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
  return {
    apiKey,
    baseUrl: url.href.replace(/\/+$/, ""),
    fetch,
    maxRetries: whole("maxRetries", options.maxRetries, 0, 10, 2),
    timeoutMs: whole("timeoutMs", options.timeoutMs, 1, MAX_TIMER_MS, 60_000),
    maxRetryDelayMs: whole("maxRetryDelayMs", options.maxRetryDelayMs, 0, MAX_TIMER_MS, 10_000),
    onRetry: options.onRetry,
  };
}

/** The per-call options as `send` takes them, checked like the client's own. */
function callOptions(options: RequestOptions | undefined) {
  return {
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

/** The rejection of a body the rules refuse: exactly `checkRequest`'s issues, nothing sent. */
function refused(issues: Issue<string>[], idempotencyKey?: string): ImagegenError {
  const first = issues[0];
  return new ImagegenError({
    code: "invalid_request",
    message: `The request was not sent: it breaks ${issues.length === 1 ? "a rule" : `${issues.length} rules`}${first ? ` (${first.path || "body"}: ${first.message})` : ""}; see issues.`,
    issues,
    param: first?.path || undefined,
    idempotencyKey,
  });
}

/**
 * Creates a client of the service for server-side code, which checks and prices a request before
 * sending it and never charges a create twice.
 *
 * A create is checked with the package's own rules (`checkRequest`) and sent with one idempotency
 * key on every attempt; only what a retry can fix is retried.
 *
 * @param options - `apiKey` and `baseUrl` (required); `fetch`, `maxRetries`, `timeoutMs`,
 *   `maxRetryDelayMs`, `onRetry`; `dangerouslyAllowBrowser` to run in a page.
 * @returns The client: `generations.create`, `generations.estimate`, `quote`, `ping`, `credits`.
 * @throws ImagegenError `browser_not_allowed` in a page without the opt-in; `invalid_options`
 *   naming an option and the values that would pass.
 * @example
 * ```ts
 * const client = createClient({ apiKey: process.env.IMAGEGEN_API_KEY!, baseUrl: "https://api.example.com" });
 * const estimate = await client.generations.estimate({ prompt: "a fox", modelId: "beta2", imageCount: 2 });
 * if (estimate.credits !== null) await client.generations.create({ prompt: "a fox", modelId: "beta2", imageCount: 2 });
 * ```
 */
export function createClient(options: ClientOptions): Client {
  const inPage =
    typeof globalThis.window !== "undefined" && typeof globalThis.document !== "undefined";
  if (inPage && options?.dangerouslyAllowBrowser !== true) {
    throw new ImagegenError({
      code: "browser_not_allowed",
      message:
        "createClient refuses to run in a browser page: an API key in browser code is anyone's key. Call the service from your server; pass dangerouslyAllowBrowser: true only for a page that never leaves your machine.",
    });
  }
  const settings = settingsOf(options);
  // Async, so that a bad per-call option rejects like every other failure of a call.
  const quote = async (spec: QuoteSpec, opts?: RequestOptions) =>
    send<QuoteAnswer>(settings, {
      method: "POST",
      path: "/api/pricing/quote",
      body: JSON.stringify(spec),
      ...callOptions(opts),
    });

  return {
    generations: {
      async create(body, opts) {
        const given = opts?.idempotencyKey;
        const bodyKey = (body as { idempotencyKey?: unknown } | null)?.idempotencyKey;
        const differs =
          typeof given === "string" && typeof bodyKey === "string"
            ? given.trim() !== bodyKey.trim()
            : given !== bodyKey;
        if (given !== undefined && bodyKey !== undefined && differs) {
          const message =
            "The idempotencyKey option and the body's idempotencyKey differ; give one key, or the same in both.";
          throw refused([{ path: "idempotencyKey", code: "idempotency_key_mismatch", message }]);
        }
        const withKey = given === undefined ? body : { ...body, idempotencyKey: given };
        const checked = checkRequest(withKey);
        if (!checked.success) {
          throw refused(checked.issues, typeof given === "string" ? given : undefined);
        }
        const idempotencyKey = checked.output.idempotencyKey ?? globalThis.crypto.randomUUID();
        return send<GenerationAccepted>(settings, {
          method: "POST",
          path: "/api/generations",
          body: JSON.stringify({ ...body, idempotencyKey }),
          idempotencyKey,
          ...callOptions(opts),
        });
      },
      async estimate(body, opts) {
        const checked = checkRequest(body);
        if (!checked.success) {
          const { message, issues } = refused(checked.issues);
          return { credits: null, reason: "invalid_request", message, issues: issues ?? [] };
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
        // P5: every output image costs the same rounded amount, so the sum is a product of whole numbers.
        return {
          credits: request.imageCount * answer.credits,
          perImageCredits: answer.credits,
          imageCount: request.imageCount,
          request,
          quote: answer,
        };
      },
    },
    quote,
    ping: async (opts) =>
      send<PingAnswer>(settings, { method: "GET", path: "/api/ping", ...callOptions(opts) }),
    credits: async (opts) =>
      send<CreditsAnswer>(settings, {
        method: "GET",
        path: "/api/query/credits",
        ...callOptions(opts),
      }),
  };
}
