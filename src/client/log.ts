/**
 * What the client tells a logger: each attempt and each answer, at the level asked for, with every
 * secret replaced by `[redacted]` and no body at all (a body holds the prompt).
 */

/** One method of a {@link Logger}: a sentence, then details as an object. */
export type LogFn = (message: string, ...rest: unknown[]) => void;

/** Where the client logs: `console`, or any object with the four methods (pino, winston, ...). */
export type Logger = { debug: LogFn; info: LogFn; warn: LogFn; error: LogFn };

/**
 * How much the client logs: `"warn"` (the default) only what the caller cannot see otherwise (an
 * `onRetry` hook that threw); `"info"` also one line per answer, per retry and per call that
 * rejects; `"debug"` also what each attempt sends (headers redacted) and each answer's headers;
 * `"off"` nothing.
 */
export type LogLevel = "off" | "error" | "warn" | "info" | "debug";

/** The levels in order: a message is logged when its level is at most the client's. */
const LEVELS: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Every level's name, for the message of a bad `logLevel`. @internal */
export const LOG_LEVELS = Object.keys(LEVELS) as LogLevel[];

/** A logger cut to a level: each method logs, or is `undefined` when its level is off. @internal */
export type LevelLogger = {
  debug: LogFn | undefined;
  info: LogFn | undefined;
  warn: LogFn | undefined;
  error: LogFn | undefined;
};

/**
 * The logger's methods that the level lets through, each bound to the logger; `undefined` for the
 * others, so that a call at a level that is off builds no message.
 *
 * @param logger - The caller's logger.
 * @param level - The client's level.
 * @returns The four methods, or `undefined` for each level that is off.
 * @internal
 */
export function levelLogger(logger: Logger, level: LogLevel): LevelLogger {
  const at = (name: keyof Logger): LogFn | undefined =>
    LEVELS[name] <= LEVELS[level] ? logger[name].bind(logger) : undefined;
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** The headers whose values the client itself sets and that hold no secret: logged as they are. */
const SHOWN = new Set(["content-type", "user-agent", "x-retry-count"]);

/**
 * The headers of an attempt as a log may show them: the client's own values, and every other value
 * (the API key, the idempotency key, the caller's own headers) as `[redacted]`.
 *
 * @param headers - What the attempt sends.
 * @returns The same names, with each value shown or redacted.
 * @internal
 */
export function redacted(headers: Record<string, string>): Record<string, string> {
  const shown: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    shown[name] = SHOWN.has(name) ? value : "[redacted]";
  }
  return shown;
}
