/**
 * The run of `imagegen-pricing serve` once its server is made: it listens, waits for SIGINT or
 * SIGTERM (or for the process that started it to end), and closes: requests in flight finish,
 * and a connection still busy after a grace period is cut.
 */
import { readFileSync } from "node:fs";
import { type RunningServer, serve } from "../node/index.js";
import type { ReferenceServer, ResponseEvent } from "../server/index.js";
import { EXIT } from "./io.js";
import { oneLine, StartError } from "./serveError.js";
import type { ServeOptions } from "./serveOptions.js";

/**
 * Listens over HTTP; the signals are left to {@link stopRequested}.
 *
 * @param server - The reference server, ready.
 * @param options - The host, the port and the connections one client address may hold open.
 * @param log - The request log of --log, also told of the answers serve() writes itself.
 * @returns The running server.
 * @throws StartError naming the port or the address: exit code 1 when it is in use or not allowed, 2 for no such address.
 */
export async function listen(
  server: ReferenceServer,
  options: ServeOptions,
  log: { onResponse?: (event: ResponseEvent) => void },
): Promise<RunningServer> {
  try {
    return await serve({
      port: options.port,
      host: options.host,
      server,
      handleSignals: false,
      ...log,
      ...(options.maxConnectionsPerAddress === undefined ? {} : { maxConnectionsPerAddress: options.maxConnectionsPerAddress }),
    });
  } catch (error) {
    throw listenError(error, options.host, options.port);
  }
}

/** What `listen` failed with, as one line. */
function listenError(error: unknown, host: string, port: number): StartError {
  const code = (error as { code?: unknown }).code;
  if (code === "EADDRINUSE") {
    return new StartError(`Port ${port} on ${host} is in use; choose another with --port (0 picks a free one).`, 1);
  }
  if (code === "EACCES") return new StartError(`Not allowed to listen on port ${port} of ${host}; choose a port above 1023.`, 1);
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN") {
    return new StartError(`Cannot listen on ${host}: no such address on this machine (--host).`, EXIT.usage);
  }
  return new StartError(`Cannot listen on ${host}:${port}: ${oneLine((error as Error).message)}`, 1);
}

/**
 * Waits until the server should stop: for `stop` when given, else for SIGINT, SIGTERM or the end
 * of the process that started it.
 *
 * @param stop - What a test stops it with, instead of the signals.
 * @returns What stopped it, for the last line.
 */
export async function stopRequested(stop: Promise<string> | undefined): Promise<string> {
  if (stop) return await stop;
  const watch = whenOrphaned();
  const stoppedBy = await Promise.race([signals(), watch.orphaned]);
  watch.stop();
  return stoppedBy;
}

/**
 * Closes the server: requests in flight finish; a connection still busy after a grace period is cut.
 *
 * @param running - The running server.
 * @returns Once it is closed.
 */
export async function closeGracefully(running: RunningServer): Promise<void> {
  const grace = setTimeout(() => running.httpServer.closeAllConnections(), 5000);
  grace.unref();
  await running.close();
  clearTimeout(grace);
}

/** Waits for SIGINT or SIGTERM, and stops listening for them once one came. */
function signals(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(signal);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** How often `serve` looks whether the process that started it is still there. */
const PARENT_CHECK_MS = 500;
/** Shells that npm, npx and harnesses put between themselves and the server (`sh -c "..."`). */
const SHELLS = new Set(["sh", "dash", "bash", "zsh", "ash", "busybox"]);

/** Linux only: the parent of a process, from /proc (undefined elsewhere or once it is gone). */
function procParent(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}
/** Linux only: a process's command name, from /proc (undefined elsewhere or once it is gone). */
function procCommand(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Resolves once the process that started `serve` has gone: a harness killed without a chance to
 * stop its child (SIGKILL, a crash, `npx` ended by a signal its shell does not pass on) must not
 * leave the server running. Its parent id changes when it is re-parented; where the parent is a
 * `sh -c` wrapper (as under npx), the wrapper's own parent is watched too (Linux, from /proc). Not
 * standard input closing: a CI job often gives none. The timer is unref'd and cleared on stop.
 *
 * @returns The promise (of the reason, for the last line) and a function that stops watching.
 */
function whenOrphaned(): { orphaned: Promise<string>; stop: () => void } {
  const parent = process.ppid;
  const wrapperParent = SHELLS.has(procCommand(parent) ?? "") ? procParent(parent) : undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const orphaned = new Promise<string>((resolve) => {
    timer = setInterval(() => {
      const above = wrapperParent === undefined ? undefined : procParent(parent);
      if (process.ppid === parent && (above === undefined || above === wrapperParent)) return;
      clearInterval(timer);
      // Whoever read its output may be gone with it: a write to a closed pipe must not crash the stop.
      process.stdout.on("error", () => {});
      process.stderr.on("error", () => {});
      resolve("its parent process ended");
    }, PARENT_CHECK_MS);
    timer.unref();
  });
  return { orphaned, stop: () => clearInterval(timer) };
}
