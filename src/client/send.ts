/**
 * How the client sends one call: the same request on every attempt (one idempotency key for a
 * create), retried on what a retry can fix, waiting as the service asks or with a jittered
 * exponential backoff, each attempt bounded in time, an abort by the caller final.
 */
import * as v from "valibot";
import type { Issue } from "../types.js";
import type { AnswerSchema } from "./answers.js";
import { ImagegenError } from "./errors.js";
import { type LevelLogger, redacted } from "./log.js";

/**
 * The statuses a retry can fix: a timeout, a rate limit, and a service that failed or was
 * unreachable.
 */
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

/** The first backoff, doubled on every retry up to the cap, when the service names no wait. */
const FIRST_DELAY_MS = 500;

/**
 * A fetch function: `globalThis.fetch`, or a fetch handler such as a reference server's `fetch`.
 */
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

/**
 * A call's data with what is known of the answer that carried it: what `withResponse()` resolves
 * to.
 */
export type WithResponse<T> = {
  /** What the call resolves to: the answer's body, checked. */
  data: T;
  /** The service's `Request-Id` of the answer, to quote to its operator. */
  requestId: string | undefined;
  /**
   * Whether the service answered a create with the task an earlier request of its key made
   * (`Idempotent-Replayed`): nothing was charged this time.
   */
  replayed: boolean;
  /** The HTTP status of the answer (202 for a create, 200 for the others). */
  status: number;
  /** How many requests the call sent, this answer's included. */
  attempts: number;
  /** The answer's headers. */
  headers: Headers;
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
  /** The logger cut to the client's level. */
  log: LevelLogger;
  /** The `User-Agent` to send, or `undefined` in a page (a browser sends its own). */
  userAgent: string | undefined;
};

/** One call: what is sent on every attempt. @internal */
export type Call = {
  method: "GET" | "POST";
  path: string;
  /** The JSON body, already serialized once. */
  body?: string;
  /** The shape a 2xx answer must have. */
  schema: AnswerSchema;
  /** A create's key, sent in the body on every attempt (and named by every error). */
  idempotencyKey?: string | undefined;
  /** Whether the key is also sent as the `Idempotency-Key` header (a key a header can carry). */
  keyInHeader?: boolean;
  /** The caller's own headers, names in lower case, checked. */
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
};

/**
 * How an attempt ended: its answer read whole, a failure with no answer, its own time limit, or the
 * caller's abort.
 */
type Ended = "answered" | "failed" | "timed_out" | "aborted";

/** An attempt as it ended: how, and the answer read whole or the failure's cause. */
type Attempt = {
  ended: Ended;
  status: number;
  headers: Headers | undefined;
  text: string;
  cause: unknown;
};

/**
 * An attempt that failed: its error, whether a retry can fix it, and the wait the answer asked for.
 */
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
 * The headers of every attempt of a call but the retry count: the caller's own first, then the
 * client's, which the caller's cannot replace (createClient refuses those names).
 */
function baseHeaders(settings: Settings, call: Call): Record<string, string> {
  const headers: Record<string, string> = { ...call.headers };
  if (settings.userAgent !== undefined && headers["user-agent"] === undefined) {
    headers["user-agent"] = settings.userAgent;
  }
  headers.authorization = `Bearer ${settings.apiKey}`;
  if (call.body !== undefined) {
    headers["content-type"] = "application/json";
  }
  if (call.idempotencyKey !== undefined && call.keyInHeader === true) {
    headers["idempotency-key"] = call.idempotencyKey;
  }
  return headers;
}

/**
 * Sends a call and resolves to the checked JSON body of its successful answer, with the answer's
 * metadata, retrying what a retry can fix. Rejects with an {@link ImagegenError}: the last
 * attempt's when retries run out, saying how many were made.
 *
 * @param settings - The client's settings.
 * @param call - The method, path, body, key, answer shape and per-call options.
 * @returns The 2xx answer's body and metadata.
 * @internal
 */
export async function send<T>(settings: Settings, call: Call): Promise<WithResponse<T>> {
  const maxRetries = call.maxRetries ?? settings.maxRetries;
  const timeoutMs = call.timeoutMs ?? settings.timeoutMs;
  const base = baseHeaders(settings, call);
  const url = settings.baseUrl + call.path;
  const { log } = settings;
  for (let attempt = 1; ; attempt++) {
    if (call.signal?.aborted) {
      throw aborted(call, attempt - 1);
    }
    // Every attempt says which it is: 0 on the first, 1 on the first retry, ...
    const headers = { ...base, "x-retry-count": String(attempt - 1) };
    log.debug?.(`imagegen: sending ${call.method} ${call.path}, attempt ${attempt}`, {
      method: call.method,
      url,
      attempt,
      headers: redacted(headers),
    });
    const started = log.info === undefined ? 0 : Date.now();
    const done = await attemptOnce(settings, call, url, headers, timeoutMs);
    let failed: Failed;
    if (done.ended === "answered") {
      const judged = judge<T>(call, attempt, done);
      logAnswer(settings, call, attempt, done, started, judged);
      if (!(judged instanceof Failed)) {
        return judged;
      }
      failed = judged;
    } else if (done.ended === "aborted" || call.signal?.aborted) {
      throw logged(settings, aborted(call, attempt));
    } else if (done.ended === "timed_out") {
      const message = `No answer to ${call.method} ${call.path} within ${timeoutMs} ms.`;
      failed = new Failed(failure(call, attempt, { code: "timeout", message }), true);
    } else {
      const route = `${call.method} ${call.path}`;
      const message = `The connection for ${route} failed or closed without an answer.`;
      failed = new Failed(
        failure(call, attempt, { code: "connection_error", message, cause: done.cause }),
        true,
      );
    }
    if (done.ended !== "answered") {
      log.info?.(`imagegen: ${call.method} ${call.path} attempt ${attempt}: ${failed.error.code}`);
    }
    const { error, retryable, retryAfterMs } = failed;
    if (!retryable) {
      throw logged(settings, error);
    }
    if (attempt > maxRetries) {
      throw logged(settings, maxRetries === 0 ? error : exhausted(error, attempt));
    }
    if (retryAfterMs !== undefined && retryAfterMs > settings.maxRetryDelayMs) {
      throw logged(settings, tooLong(call, error, retryAfterMs, settings.maxRetryDelayMs));
    }
    const delayMs = retryAfterMs ?? Math.min(backoff(attempt), settings.maxRetryDelayMs);
    log.info?.(
      `imagegen: retrying ${call.method} ${call.path} in ${Math.round(delayMs)} ms ` +
        `(attempt ${attempt} failed: ${error.code})`,
    );
    try {
      settings.onRetry?.({
        attempt,
        delayMs,
        error,
        method: call.method,
        path: call.path,
        idempotencyKey: call.idempotencyKey,
      });
    } catch (hookError) {
      // A hook's own failure must not turn a retry into a lost call; only the logger hears of it.
      log.warn?.(
        "imagegen: onRetry threw " +
          `(${hookError instanceof Error ? hookError.name : typeof hookError}); ` +
          "the retry goes on.",
      );
    }
    await sleep(delayMs, call.signal, () => logged(settings, aborted(call, attempt)));
  }
}

/** Tells the logger, at `info`, how an answer ended, and at `debug` its headers; never its body. */
function logAnswer(
  settings: Settings,
  call: Call,
  attempt: number,
  done: Attempt,
  started: number,
  judged: unknown,
): void {
  const { info, debug } = settings.log;
  if (info === undefined) {
    return;
  }
  const requestId = done.headers?.get("request-id") ?? undefined;
  const outcome = judged instanceof Failed ? judged.error.code : "ok";
  const request = requestId === undefined ? "" : ` (request ${requestId})`;
  info(
    `imagegen: ${call.method} ${call.path} attempt ${attempt}: ${done.status} ${outcome} ` +
      `in ${Date.now() - started} ms${request}`,
  );
  debug?.(`imagegen: answer to ${call.method} ${call.path}, attempt ${attempt}`, {
    status: done.status,
    requestId,
    headers: plain(done.headers),
  });
}

/** An answer's headers as a plain object, for a log. */
function plain(headers: Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  headers?.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/**
 * Tells the logger, at `info`, of the error a call rejects with (its code, status, request id:
 * never a key), and returns it.
 */
function logged(settings: Settings, error: ImagegenError): ImagegenError {
  const { info } = settings.log;
  if (info === undefined) {
    return error;
  }
  const key = error.idempotencyKey;
  const message = key === undefined ? error.message : error.message.replaceAll(key, "[redacted]");
  info(`imagegen: ${message}`, {
    code: error.code,
    status: error.status,
    requestId: error.requestId,
    attempts: error.attempts,
  });
  return error;
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
  // The global fetch gets a signal, so that an attempt given up on closes its connection. A fetch
  // of the caller's gets a plain Request (a reference server's fetch cannot be stopped anyway): the
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

/**
 * What an answer means: the checked body of a success, or the service's error and whether a retry
 * can fix it.
 */
function judge<T>(call: Call, attempt: number, answer: Attempt): WithResponse<T> | Failed {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = undefined;
  }
  const headers = answer.headers ?? new Headers();
  const requestId = headers.get("request-id") ?? undefined;
  if (answer.status >= 200 && answer.status < 300) {
    const wrong = shapeError(call.schema, body);
    if (wrong === undefined) {
      const replayed = headers.get("idempotent-replayed") === "true";
      return {
        data: body as T,
        requestId,
        replayed,
        status: answer.status,
        attempts: attempt,
        headers,
      };
    }
    const charged =
      call.idempotencyKey === undefined
        ? ""
        : " The generation may have been accepted: a create again with the same key gets " +
          "its task, never a second charge.";
    const message =
      `The answer to ${call.method} ${call.path} (status ${answer.status}) is not the ` +
      `service's: ${wrong}.${charged}`;
    // A success that cannot be read is retried: a create's key makes the retry a replay of the same
    // task.
    return new Failed(
      failure(call, attempt, {
        code: "invalid_response",
        message,
        status: answer.status,
        requestId,
        headers,
      }),
      true,
    );
  }
  const fields = (body as { error?: Record<string, unknown> } | undefined)?.error;
  const code = typeof fields?.code === "string" ? fields.code : "invalid_response";
  const message =
    typeof fields?.message === "string"
      ? fields.message
      : `The service answered ${call.method} ${call.path} with status ${answer.status} and ` +
        "no error body.";
  const retryAfterMs = retryAfterOf(headers);
  const error = failure(call, attempt, {
    code,
    message,
    status: answer.status,
    requestId: requestId ?? (typeof fields?.requestId === "string" ? fields.requestId : undefined),
    param: typeof fields?.param === "string" ? fields.param : undefined,
    issues: Array.isArray(fields?.issues) ? (fields.issues as Issue<string>[]) : undefined,
    balance: code === "insufficient_credits" ? balanceOf(fields, message) : undefined,
    retryAfterMs,
    headers,
  });
  return new Failed(error, RETRY_STATUSES.has(answer.status), retryAfterMs);
}

/**
 * What is wrong with a 2xx body, by the shape the interface gives the answer: `undefined` when it
 * has that shape, else the first field that breaks it and what was expected there (never the value
 * received, which may hold the prompt).
 */
function shapeError(schema: AnswerSchema, body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "its body is not a JSON object";
  }
  const parsed = v.safeParse(schema, body);
  if (parsed.success) {
    return undefined;
  }
  const [issue] = parsed.issues;
  const path = v.getDotPath(issue) ?? "body";
  return `${path} is not ${issue.expected ?? "of the service's shape"}`;
}

/**
 * The balance an `insufficient_credits` answer gives: a field of its own, else the one its sentence
 * names.
 */
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

/**
 * The wait before retry `attempt` when the answer names none: doubled each time, less up to a
 * quarter at random.
 */
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

/**
 * The error of a call the caller aborted: final, and for a create a warning that it may have been
 * accepted.
 */
function aborted(call: Call, attempts: number): ImagegenError {
  const sent =
    call.idempotencyKey === undefined || attempts === 0
      ? ""
      : " A generation may have been accepted: create again with idempotencyKey " +
        `"${call.idempotencyKey}" to get its task without paying twice.`;
  return failure(call, attempts, {
    code: "aborted",
    message:
      `${call.method} ${call.path} was aborted by the caller after ${attempts} ` +
      `attempt${attempts === 1 ? "" : "s"}.${sent}`,
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
    headers: error.headers,
    cause: error.cause,
  });
}

/**
 * The error of an answer that asks for a longer wait than `maxRetryDelayMs`: not retried, so that
 * the caller can schedule the call for when the service asked (`retryAfterMs`).
 */
function tooLong(
  call: Call,
  error: ImagegenError,
  retryAfterMs: number,
  maxRetryDelayMs: number,
): ImagegenError {
  const key =
    call.idempotencyKey === undefined
      ? ""
      : ` Create again with idempotencyKey "${call.idempotencyKey}" then: never charged twice.`;
  return new ImagegenError({
    code: error.code,
    message:
      `${error.message} (not retried: the service asked to wait ${Math.ceil(retryAfterMs)} ` +
      `ms, more than maxRetryDelayMs ${maxRetryDelayMs}; see retryAfterMs.${key})`,
    status: error.status,
    requestId: error.requestId,
    param: error.param,
    issues: error.issues,
    attempts: error.attempts,
    idempotencyKey: error.idempotencyKey,
    balance: error.balance,
    retryAfterMs,
    headers: error.headers,
    cause: error.cause,
  });
}
