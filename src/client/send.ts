/**
 * How the client sends one call: the same request on every attempt (one idempotency key for a
 * create), retried on what a retry can fix, waiting as the service asks or with a jittered
 * exponential backoff, each attempt bounded in time, an abort by the caller final.
 */
import type { Issue } from "../types.js";
import { ImagegenError } from "./errors.js";

/** The statuses a retry can fix: a timeout, a rate limit, and a service that failed or was unreachable. */
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The first backoff, doubled on every retry up to the cap, when the service names no wait. */
const FIRST_DELAY_MS = 500;

/** A fetch function: `globalThis.fetch`, or a fetch handler such as a reference server's `fetch`. */
export type Fetch = (request: Request) => Promise<Response>;

/** What the client is told before each retry's wait. */
export type RetryEvent = {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** How long the client waits before the next attempt. */
  delayMs: number;
  /** Why the attempt failed. */
  error: ImagegenError;
  method: string;
  path: string;
  /** The key the next attempt carries again (a create only). */
  idempotencyKey: string | undefined;
};

/** The client's settings, checked. @internal */
export type Settings = {
  apiKey: string;
  /** Without a trailing slash. */
  baseUrl: string;
  /** The caller's fetch; `undefined`: the global `fetch`, read at each attempt. */
  fetch: Fetch | undefined;
  maxRetries: number;
  timeoutMs: number;
  maxRetryDelayMs: number;
  onRetry: ((event: RetryEvent) => void) | undefined;
};

/** One call: what is sent on every attempt. */
type Call = {
  method: "GET" | "POST";
  path: string;
  /** The JSON body, already serialized once. */
  body?: string;
  /** Sent as `Idempotency-Key` on every attempt (the body carries it too). */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
};

/** How an attempt ended: its answer read whole, a failure with no answer, its own time limit, or the caller's abort. */
type Ended = "answered" | "failed" | "timed_out" | "aborted";

/** An attempt as it ended: how, and the answer read whole or the failure's cause. */
type Attempt = {
  ended: Ended;
  status: number;
  headers: Headers | undefined;
  text: string;
  cause: unknown;
};

/** An attempt that failed: its error, whether a retry can fix it, and the wait the answer asked for. */
class Failed {
  /**
   * Wraps the error of an attempt.
   *
   * @param error - The attempt's error.
   * @param retryable - Whether a retry can fix it.
   * @param retryAfterMs - The wait the answer asked for, if any.
   */
  constructor(
    readonly error: ImagegenError,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {}
}

/**
 * Sends a call and resolves to the JSON body of its successful answer, retrying what a retry can
 * fix. Rejects with an {@link ImagegenError}: the last attempt's when retries run out, saying how
 * many were made.
 *
 * @param settings - The client's settings.
 * @param call - The method, path, body, key and per-call options.
 * @returns The parsed JSON of the 2xx answer.
 * @internal
 */
export async function send<T>(settings: Settings, call: Call): Promise<T> {
  const maxRetries = call.maxRetries ?? settings.maxRetries;
  const timeoutMs = call.timeoutMs ?? settings.timeoutMs;
  const headers: Record<string, string> = { authorization: `Bearer ${settings.apiKey}` };
  if (call.body !== undefined) {
    headers["content-type"] = "application/json";
  }
  if (call.idempotencyKey !== undefined) {
    headers["idempotency-key"] = call.idempotencyKey;
  }
  const url = settings.baseUrl + call.path;
  for (let attempt = 1; ; attempt++) {
    if (call.signal?.aborted) {
      throw aborted(call, attempt - 1);
    }
    const done = await attemptOnce(settings, call, url, headers, timeoutMs);
    let failed: Failed;
    if (done.ended === "answered") {
      const judged = judge<T>(call, attempt, done);
      if (!(judged instanceof Failed)) {
        return judged;
      }
      failed = judged;
    } else if (done.ended === "aborted" || call.signal?.aborted) {
      throw aborted(call, attempt);
    } else if (done.ended === "timed_out") {
      const message = `No answer to ${call.method} ${call.path} within ${timeoutMs} ms.`;
      failed = new Failed(failure(call, attempt, { code: "timeout", message }), true);
    } else {
      const message = `The connection for ${call.method} ${call.path} failed or closed without an answer.`;
      failed = new Failed(
        failure(call, attempt, { code: "connection_error", message, cause: done.cause }),
        true,
      );
    }
    const { error, retryable, retryAfterMs } = failed;
    if (!retryable) {
      throw error;
    }
    if (attempt > maxRetries) {
      throw maxRetries === 0 ? error : exhausted(error, attempt);
    }
    const delayMs = Math.min(retryAfterMs ?? backoff(attempt), settings.maxRetryDelayMs);
    try {
      settings.onRetry?.({
        attempt,
        delayMs,
        error,
        method: call.method,
        path: call.path,
        idempotencyKey: call.idempotencyKey,
      });
    } catch {
      // A hook's own failure must not turn a retry into a lost call.
    }
    await sleep(delayMs, call.signal, () => aborted(call, attempt));
  }
}

/**
 * One attempt: resolves on the first of its answer read whole, a failure, its time limit and the
 * caller's abort. What comes later (a late answer, a lost one) is dropped.
 */
function attemptOnce(
  settings: Settings,
  call: Call,
  url: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Attempt> {
  const init: RequestInit = { method: call.method, headers };
  if (call.body !== undefined) {
    init.body = call.body;
  }
  // The global fetch gets a signal, so that an attempt given up on closes its connection. A fetch of
  // the caller's gets a plain Request (a reference server's fetch cannot be stopped anyway): the
  // attempt ends for the client all the same.
  const controller = settings.fetch === undefined ? new AbortController() : undefined;
  if (controller) {
    init.signal = controller.signal;
  }
  const done: Attempt = {
    ended: "failed",
    status: 0,
    headers: undefined,
    text: "",
    cause: undefined,
  };
  return new Promise((resolve) => {
    let over = false;
    const end = (ended: Ended) => {
      if (over) {
        return;
      }
      over = true;
      clearTimeout(timer);
      if (onAbort) {
        call.signal?.removeEventListener("abort", onAbort);
      }
      if (ended === "timed_out" || ended === "aborted") {
        controller?.abort();
      }
      done.ended = ended;
      resolve(done);
    };
    const fail = (error: unknown) => {
      if (!over) {
        done.cause = error;
      }
      end("failed");
    };
    const timer = setTimeout(end, timeoutMs, "timed_out");
    const onAbort = call.signal ? () => end("aborted") : undefined;
    if (onAbort) {
      call.signal?.addEventListener("abort", onAbort, { once: true });
    }
    let answer: Promise<Response>;
    try {
      answer =
        settings.fetch === undefined
          ? globalThis.fetch(url, init)
          : settings.fetch(new Request(url, init));
    } catch (error) {
      // A fetch that throws rather than rejects fails the attempt all the same.
      fail(error);
      return;
    }
    // An answer whose body cannot be read whole is a connection that closed without an answer.
    answer
      .then((response) => {
        if (!over) {
          done.status = response.status;
          done.headers = response.headers;
        }
        return response.text();
      })
      .then((text) => {
        if (!over) {
          done.text = text;
        }
        end("answered");
      }, fail);
  });
}

/** What an answer means: the body of a success, or the service's error and whether a retry can fix it. */
function judge<T>(call: Call, attempt: number, answer: Attempt): T | Failed {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  if (answer.status >= 200 && answer.status < 300) {
    if (typeof body === "object" && body !== null) {
      return body as T;
    }
    const message = `The answer to ${call.method} ${call.path} (status ${answer.status}) is not a JSON object.`;
    const requestId = answer.headers?.get("request-id") ?? undefined;
    // A success that cannot be read is retried: a create's key makes the retry a replay of the same task.
    return new Failed(
      failure(call, attempt, {
        code: "invalid_response",
        message,
        status: answer.status,
        requestId,
      }),
      true,
    );
  }
  const requestId = answer.headers?.get("request-id") ?? undefined;
  const fields = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const code = typeof fields?.code === "string" ? fields.code : "invalid_response";
  const message =
    typeof fields?.message === "string"
      ? fields.message
      : `The service answered ${call.method} ${call.path} with status ${answer.status} and no error body.`;
  const retryAfterMs = answer.headers && retryAfterOf(answer.headers);
  const error = failure(call, attempt, {
    code,
    message,
    status: answer.status,
    requestId: requestId ?? (typeof fields?.requestId === "string" ? fields.requestId : undefined),
    param: typeof fields?.param === "string" ? fields.param : undefined,
    issues: Array.isArray(fields?.issues) ? (fields.issues as Issue<string>[]) : undefined,
    balance: code === "insufficient_credits" ? balanceOf(fields, message) : undefined,
    retryAfterMs,
  });
  return new Failed(error, RETRY_STATUSES.has(answer.status), retryAfterMs);
}

/** The balance an `insufficient_credits` answer gives: a field of its own, else the one its sentence names. */
function balanceOf(
  error: Record<string, unknown> | undefined,
  message: string,
): number | undefined {
  if (typeof error?.creditBalance === "number") {
    return error.creditBalance;
  }
  const named = /balance is (\d+)/.exec(message)?.[1];
  return named === undefined ? undefined : Number(named);
}

/**
 * How long an answer asks to wait: `retry-after-ms`, else `Retry-After` in seconds or as an HTTP
 * date; `undefined` when it asks nothing readable.
 */
function retryAfterOf(headers: Headers): number | undefined {
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) {
    return ms;
  }
  const value = headers.get("retry-after");
  if (value === null) {
    return undefined;
  }
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) {
    return Number(value) * 1000;
  }
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The wait before retry `attempt` when the answer names none: doubled each time, less up to a quarter at random. */
function backoff(attempt: number): number {
  return FIRST_DELAY_MS * 2 ** (attempt - 1) * (1 - Math.random() * 0.25);
}

/** Waits `ms`, or rejects at once with `onAbort()` when the caller's signal aborts. */
function sleep(
  ms: number,
  signal: AbortSignal | undefined,
  onAbort: () => ImagegenError,
): Promise<void> {
  if (signal?.aborted) {
    return Promise.reject(onAbort());
  }
  if (ms <= 0) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(onAbort());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal?.addEventListener("abort", stop, { once: true });
  });
}

/** The error of an attempt, with the call's key and the attempt count. */
function failure(
  call: Call,
  attempt: number,
  init: Omit<ConstructorParameters<typeof ImagegenError>[0], "attempts" | "idempotencyKey">,
): ImagegenError {
  return new ImagegenError({ ...init, attempts: attempt, idempotencyKey: call.idempotencyKey });
}

/** The error of a call the caller aborted: final, and for a create a warning that it may have been accepted. */
function aborted(call: Call, attempts: number): ImagegenError {
  const sent =
    call.idempotencyKey === undefined || attempts === 0
      ? ""
      : ` A generation may have been accepted: create again with idempotencyKey "${call.idempotencyKey}" to get its task without paying twice.`;
  return failure(call, attempts, {
    code: "aborted",
    message: `${call.method} ${call.path} was aborted by the caller after ${attempts} attempt${attempts === 1 ? "" : "s"}.${sent}`,
  });
}

/** The last attempt's error, saying that retries ran out. */
function exhausted(error: ImagegenError, attempts: number): ImagegenError {
  return new ImagegenError({
    code: error.code,
    message: `${error.message} (gave up after ${attempts} attempts)`,
    status: error.status,
    requestId: error.requestId,
    param: error.param,
    issues: error.issues,
    attempts,
    idempotencyKey: error.idempotencyKey,
    balance: error.balance,
    retryAfterMs: error.retryAfterMs,
    cause: error.cause,
  });
}
