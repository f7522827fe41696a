/**
 * Starting instances of the reference server on PostgreSQL as child processes (test/support/instance.ts),
 * for the multi-instance and crash tests: each on its own port, all on one schema; killed with any
 * signal, started again.
 */
import { type ChildProcess, fork } from "node:child_process";
import { request as httpRequest } from "node:http";
import { fileURLToPath } from "node:url";
import type { Admin } from "../../src/server/index.js";
import type { AdminAnswer, AdminCall } from "./instance.js";

const script = fileURLToPath(new URL("./instance.ts", import.meta.url));

/** A running instance: its URL, its process, its admin (run inside it) and how to end it. */
export type Instance = {
  readonly url: string;
  readonly pid: number;
  readonly process: ChildProcess;
  /** Calls `server.admin[method](...args)` inside the instance's process. */
  admin<M extends keyof Admin>(
    method: M,
    ...args: Parameters<Admin[M]>
  ): Promise<Awaited<ReturnType<Admin[M]>>>;
  /** Sends `signal` and resolves once the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
};

/**
 * Starts one instance on `schema` and waits until it listens.
 *
 * @param options.connectionString - The database.
 * @param options.schema - The schema every instance shares.
 * @param options.poolMax - The instance's pool size (default 10).
 * @param options.connectTimeoutMs - How long a request may wait for a connection (default 5000).
 * @returns The instance.
 * @throws Error with the instance's output when it exits before listening.
 */
export async function startInstance(options: {
  connectionString: string;
  schema: string;
  poolMax?: number;
  connectTimeoutMs?: number;
}): Promise<Instance> {
  const child = fork(script, [], {
    execArgv: ["--import", "tsx"],
    env: {
      ...process.env,
      DATABASE_URL: options.connectionString,
      IMAGEGEN_SCHEMA: options.schema,
      INSTANCE_POOL_MAX: String(options.poolMax ?? 10),
      INSTANCE_CONNECT_TIMEOUT_MS: String(options.connectTimeoutMs ?? 5000),
    },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ready = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
    let line = "";
    const onData = (chunk: Buffer) => {
      line += chunk.toString();
      const end = line.indexOf("\n");
      if (end < 0) {
        return;
      }
      child.stdout?.off("data", onData);
      try {
        resolve(JSON.parse(line.slice(0, end)) as { port: number; pid: number });
      } catch {
        reject(new Error(`the instance printed ${line}`));
      }
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code, signal) =>
      reject(new Error(`the instance exited before listening (${code ?? signal}):\n${output}`)),
    );
  });

  let next = 0;
  const pending = new Map<number, (answer: AdminAnswer) => void>();
  child.on("message", (answer: AdminAnswer) => {
    pending.get(answer.id)?.(answer);
    pending.delete(answer.id);
  });
  child.once("exit", () => {
    for (const [id, settle] of pending) {
      settle({ id, ok: false, error: { name: "Error", message: "the instance exited" } });
    }
    pending.clear();
  });

  return {
    url: `http://127.0.0.1:${ready.port}`,
    pid: ready.pid,
    process: child,
    admin(method, ...args) {
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, (answer) => {
          if (answer.ok) {
            resolve(answer.value as never);
          } else {
            reject(Object.assign(new Error(answer.error.message), answer.error));
          }
        });
        child.send({ id, method, args } satisfies AdminCall);
      });
    },
    async kill(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
      }
      await exited;
    },
  };
}

/** An HTTP answer as a client got it. */
export type HttpAnswer = {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
};

/**
 * One POST with a JSON body on a connection of its own (`Connection: close`): no socket is reused,
 * so a keep-alive connection the server closes in the meantime cannot fail a request that was
 * never sent. Rejects when the connection fails (refused, reset): the answer is lost.
 *
 * @param url - Where.
 * @param headers - Request headers.
 * @param body - Sent as JSON.
 * @returns The status, headers and body text.
 */
export function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<HttpAnswer> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(payload.length),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}
