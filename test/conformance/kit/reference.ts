/**
 * The reference server for the kit's own tests: on a memory or a PostgreSQL store, with an account
 * (a multiplier, credits, two assets), served over real HTTP on 127.0.0.1 by `serve()`.
 */

import { serve } from "../../../src/node/index.js";
import { createPostgresStore } from "../../../src/postgres/store.js";
import { createReferenceServer, type ReferenceServer } from "../../../src/server/index.js";
import { createMemoryStore } from "../../../src/store/memory.js";
import { storeLayout, withPostgres } from "../../support/postgres.js";

/** The admin token of every reference server these tests start with one. */
export const ADMIN_TOKEN = "conformance-kit-admin-token";

/** A reference server listening on 127.0.0.1, with its caller's account. */
export type ListeningReference = {
  url: string;
  key: string;
  assets: string[];
  userId: string;
  server: ReferenceServer;
  /** The account's balance, from the server's own state. */
  balance: () => Promise<number>;
  close: () => Promise<void>;
};

/** Options of {@link startReference}. */
export type ReferenceOptions = {
  store?: "memory" | "postgres";
  adminToken?: string;
  multiplier?: string;
  credits?: number;
  /** Wraps the server's fetch handler: a broken server made from the reference. */
  wrap?: (fetch: ReferenceServer["fetch"], server: ReferenceServer) => ReferenceServer["fetch"];
};

/**
 * Starts a reference server over HTTP with one account (multiplier 1.15 and 100,000 credits by
 * default), an API key and two assets.
 *
 * @param options - The store, the admin token, the account, a wrapper of its fetch.
 * @returns The listening server.
 */
export async function startReference(options: ReferenceOptions = {}): Promise<ListeningReference> {
  let drop: (() => Promise<void>) | undefined;
  let store = createMemoryStore();
  if (options.store === "postgres") {
    const db = await withPostgres();
    store = await createPostgresStore({
      connectionString: db.connectionString,
      schema: db.schema,
      ...storeLayout(),
    });
    drop = db.drop;
  }
  const server = createReferenceServer({
    store,
    ...(options.adminToken === undefined ? {} : { adminToken: options.adminToken }),
  });
  const { userId } = await server.admin.createUser({
    credits: options.credits ?? 100_000,
    multiplier: options.multiplier ?? "1.15",
  });
  const { key } = await server.admin.createApiKey(userId);
  const assets = [
    (await server.admin.createAsset(userId)).assetId,
    (await server.admin.createAsset(userId)).assetId,
  ];
  const fetch = options.wrap ? options.wrap(server.fetch, server) : server.fetch;
  const running = await serve({
    server: { fetch },
    port: 0,
    host: "127.0.0.1",
    handleSignals: false,
  });
  return {
    url: running.url,
    key,
    assets,
    userId,
    server,
    balance: () => server.admin.balance(userId),
    close: async () => {
      await running.close();
      await store.close();
      await drop?.();
    },
  };
}
