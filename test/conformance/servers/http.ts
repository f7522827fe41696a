/**
 * Serves a service double over real HTTP on 127.0.0.1, on a free port, with the package's own
 * `serve()` (which serves any fetch handler).
 */
import { serve } from "../../../src/node/index.js";
import { createServiceDouble, type DoubleOptions, type ServiceDouble } from "./double.js";

/** A double listening on 127.0.0.1: its base URL, its state, and how to stop it. */
export type ListeningDouble = ServiceDouble & { baseUrl: string; close: () => Promise<void> };

/**
 * Makes a service double and serves it on 127.0.0.1.
 *
 * @param options - The double's options (its bug, its admin token, its account).
 * @returns The double, once listening, with its base URL and `close()`.
 */
export async function listenDouble(options: DoubleOptions = {}): Promise<ListeningDouble> {
  const double = createServiceDouble(options);
  const running = await serve({
    server: { fetch: double.fetch },
    port: 0,
    host: "127.0.0.1",
    handleSignals: false,
  });
  return { ...double, baseUrl: running.url, close: running.close };
}
