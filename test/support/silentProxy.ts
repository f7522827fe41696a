/**
 * A TCP forwarder on 127.0.0.1 that can go silent, as a network partition or a stateful firewall
 * that dropped its state does: no FIN, no RST, the bytes just stop arriving.
 */
import { createServer, type Socket, connect as tcpConnect } from "node:net";

/** A running forwarder to one PostgreSQL server. */
export type SilentProxy = {
  /** The port clients connect to instead of the server's. */
  readonly port: number;
  /**
   * From now on nothing is forwarded, either way: the open connections stay open and carry
   * nothing, a new one is accepted and hears nothing, a client's FIN goes nowhere.
   */
  blackhole(): void;
  /**
   * New connections are forwarded again. A connection that was open during the silence stays
   * silent, as behind a firewall that forgot it: whoever uses it must give it up.
   */
  heal(): void;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
};

/**
 * Starts a forwarder from a free port of 127.0.0.1 to `target`.
 *
 * @param target - The server's host and port.
 * @returns The running forwarder, forwarding.
 */
export async function startSilentProxy(target: {
  host: string;
  port: number;
}): Promise<SilentProxy> {
  let silent = false;
  let closed = false;
  const sockets = new Set<Socket>();
  /** Each connection's pair goes silent when the network does, and stays so. */
  const pairs = new Set<{ silent: boolean }>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    // A peer's reset while silent, or after the close: nothing to report.
    socket.on("error", () => {});
  };

  const server = createServer({ allowHalfOpen: true }, (client) => {
    // One accepted while close() runs would keep server.close() waiting for it.
    if (closed) {
      client.destroy();
      return;
    }
    track(client);
    if (silent) {
      // Read and drop: the client's bytes leave it and never reach anyone.
      client.on("data", () => {});
      return;
    }
    const pair = { silent: false };
    pairs.add(pair);
    const upstream = tcpConnect({ host: target.host, port: target.port, allowHalfOpen: true });
    track(upstream);
    const forward = (from: Socket, to: Socket) => {
      from.on("data", (chunk: Buffer) => {
        if (!pair.silent) {
          to.write(chunk);
        }
      });
      from.on("end", () => {
        if (!pair.silent) {
          to.end();
        }
      });
      from.on("close", () => {
        if (!pair.silent) {
          to.destroy();
        }
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (typeof address !== "object" || address === null) {
    throw new Error("the silent proxy has no port");
  }

  return {
    port: address.port,
    blackhole() {
      silent = true;
      for (const pair of pairs) {
        pair.silent = true;
      }
      pairs.clear();
    },
    heal() {
      silent = false;
    },
    async close() {
      closed = true;
      for (const socket of sockets) {
        socket.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The same connection string, through the proxy: its host and port replaced.
 *
 * @param connectionString - A `postgres://` URL of a server on 127.0.0.1.
 * @param proxy - The proxy in front of it.
 * @returns The URL through the proxy.
 */
export function throughProxy(connectionString: string, proxy: SilentProxy): string {
  const url = new URL(connectionString);
  url.hostname = "127.0.0.1";
  url.port = String(proxy.port);
  return url.toString();
}
