/**
 * The kit's HTTP side: one request at a time, its answer read whole, a curl line with the key
 * masked.
 */
import type { ReportedRequest } from "./types.js";

/** A request to send: the path under the base URL, the headers beyond the key's, the body. */
export type Outgoing = {
  method: string;
  path: string;
  /** Headers to send; `authorization` is the API key's unless this names one (or `null`: none). */
  headers?: Record<string, string | null>;
  /** A value to send as JSON, or a string sent as it is. */
  body?: unknown;
  /** Send `body` as this exact text (takes precedence over `body`). */
  raw?: string;
  /** Another origin than the base URL (the admin API). */
  origin?: string;
};

/** An answer, or `status: 0` when none came (a timeout, a refused connection, a reset). */
export type Answer = {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or `undefined` when it is not JSON. */
  json: unknown;
  /** Why no answer came, when `status` is 0. */
  lost?: string;
  /** What was sent, for the report. */
  request: ReportedRequest;
  /** The curl line of the request, the key as `$API_KEY`. */
  curl: string;
};

/** What the HTTP side needs. */
export type HttpOptions = {
  baseUrl: string;
  key: string;
  timeoutMs: number;
  fetch: typeof fetch;
  /** Secrets to mask wherever a request is shown (the key, the admin token). */
  secrets: readonly string[];
};

/** Quotes a word for a POSIX shell. */
const shellQuote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The HTTP side of a run: sends requests and counts them. */
export class Http {
  /** How many requests were sent. */
  sent = 0;
  readonly #options: HttpOptions;

  /** Makes the HTTP side of a run. */
  constructor(options: HttpOptions) {
    this.#options = options;
  }

  /** The base URL without a trailing slash. */
  get baseUrl(): string {
    return this.#options.baseUrl.replace(/\/+$/, "");
  }

  /**
   * Masks every secret of the run in a text.
   *
   * @param text - Any text.
   * @returns The text with each secret replaced by `***`.
   */
  mask(text: string): string {
    let masked = text;
    for (const secret of this.#options.secrets) {
      if (secret.length > 0) {
        masked = masked.replaceAll(secret, "***");
      }
    }
    return masked;
  }

  /**
   * Sends one request and reads its whole answer; never throws for a network failure.
   *
   * @param out - The request.
   * @returns The answer, or `status: 0` with `lost` when none came within the timeout.
   */
  async send(out: Outgoing): Promise<Answer> {
    const origin = (out.origin ?? this.baseUrl).replace(/\/+$/, "");
    const url = origin + out.path;
    const headers: Record<string, string> = {};
    const shown: string[] = [];
    const given = out.headers ?? {};
    if (!Object.keys(given).some((name) => name.toLowerCase() === "authorization")) {
      headers.authorization = `Bearer ${this.#options.key}`;
      shown.push("-H 'Authorization: Bearer '\"$API_KEY\"");
    }
    for (const [name, value] of Object.entries(given)) {
      if (value !== null) {
        headers[name] = value;
        shown.push(`-H ${shellQuote(this.mask(`${name}: ${value}`))}`);
      }
    }
    const text = out.raw ?? (out.body === undefined ? undefined : JSON.stringify(out.body));
    if (
      text !== undefined &&
      !Object.keys(headers).some((n) => n.toLowerCase() === "content-type")
    ) {
      if (!Object.hasOwn(given, "content-type")) {
        headers["content-type"] = "application/json";
        shown.push("-H 'Content-Type: application/json'");
      }
    }
    const request: ReportedRequest = { method: out.method, path: out.path };
    if (text !== undefined) {
      request.body = out.raw === undefined ? out.body : out.raw;
    }
    const curl = [
      "curl -sS",
      out.method === "GET" ? "" : `-X ${out.method}`,
      shellQuote(url),
      ...shown,
      text === undefined ? "" : `--data-raw ${shellQuote(this.mask(text))}`,
    ]
      .filter((part) => part !== "")
      .join(" ");
    this.sent += 1;
    try {
      const response = await this.#options.fetch(url, {
        method: out.method,
        headers,
        ...(text === undefined ? {} : { body: text }),
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      const body = await response.text();
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      return {
        status: response.status,
        headers: response.headers,
        text: body,
        json,
        request,
        curl,
      };
    } catch (error) {
      const lost = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { status: 0, headers: new Headers(), text: "", json: undefined, lost, request, curl };
    }
  }
}

/**
 * Whether an answer is a refusal as the interface states one: a 4xx with a JSON `error.message`
 * string.
 */
export function isRefusal(answer: Answer): boolean {
  return answer.status >= 400 && answer.status < 500 && errorMessage(answer) !== undefined;
}

/** The `error.message` of an answer, when it is a string. */
export function errorMessage(answer: Answer): string | undefined {
  const error = field(answer.json, "error");
  const message = field(error, "message");
  return typeof message === "string" ? message : undefined;
}

/** The `error.code` of an answer, when it is a string. */
export function errorCode(answer: Answer): string | undefined {
  const code = field(field(answer.json, "error"), "code");
  return typeof code === "string" ? code : undefined;
}

/**
 * A field of a value that may be an object.
 *
 * @param value - Anything.
 * @param name - The field.
 * @returns The field's value, or `undefined` when `value` is not an object that has it.
 */
export function field(value: unknown, name: string): unknown {
  return typeof value === "object" && value !== null && Object.hasOwn(value, name)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

/**
 * Runs tasks with at most `limit` in flight.
 *
 * @param items - The inputs.
 * @param limit - The most at once (at least 1).
 * @param task - What to do with each.
 * @returns The results, in the order of the inputs.
 */
export async function pool<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
