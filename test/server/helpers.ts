/**
 * The one place where the server and reliability suites get their servers and stores: switching
 * {@link makeStore} runs every suite against another store.
 *
 * `IMAGEGEN_TEST_STORE=postgres` (the `postgres` project of vitest.config.ts) makes every store a
 * PostgreSQL store on this run's database, all the stores of one test file sharing one pool and one
 * fresh schema, dropped when the file is done; without it, every store is a new in-memory store.
 */
import pg from "pg";
import { afterAll } from "vitest";
import { createPostgresStore } from "../../src/postgres/store.js";
import {
  createReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
} from "../../src/server/index.js";
import { createMemoryStore } from "../../src/store/memory.js";
import type { Store } from "../../src/store/store.js";
import { type PostgresTestDatabase, withPostgres } from "../support/postgres.js";

export const BASE = "http://localhost";

/** Which store the suites run on: `"memory"` (the default) or `"postgres"`. */
export const STORE_KIND: "memory" | "postgres" =
  process.env.IMAGEGEN_TEST_STORE === "postgres" ? "postgres" : "memory";
if (!["memory", "postgres", undefined].includes(process.env.IMAGEGEN_TEST_STORE)) {
  throw new Error(
    `IMAGEGEN_TEST_STORE must be "memory" or "postgres"; got ${process.env.IMAGEGEN_TEST_STORE}`,
  );
}

/** Every store made for the current test file, closed once the file is done. */
const stores: Store[] = [];

/** This file's schema and pool on PostgreSQL: made by the first {@link makeStore}, removed after the file. */
let database: Promise<{ db: PostgresTestDatabase; pool: pg.Pool }> | undefined;

afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  if (database) {
    const { db, pool } = await database;
    database = undefined;
    await pool.end();
    await db.drop();
  }
}, 60_000);

/**
 * A new store with no users: where every test server keeps its state. On PostgreSQL, the stores of
 * one test file share a schema; ids are random, so each test still sees only its own users, keys
 * and tasks.
 *
 * @returns The store, closed after the test file.
 * @throws Error saying how to install PostgreSQL, on the postgres project when there is none.
 */
export async function makeStore(): Promise<Store> {
  let store: Store;
  if (STORE_KIND === "postgres") {
    database ??= withPostgres().then((db) => ({
      db,
      // More connections than the store's default 10: the concurrency tests send bursts of requests.
      // A request of a burst may wait its turn for a connection a long while on a busy machine: the
      // wait is bounded generously (60 s), so that load never turns into a 503 the test did not expect.
      pool: new pg.Pool({
        connectionString: db.connectionString,
        max: 20,
        connectionTimeoutMillis: 60_000,
      }),
    }));
    // Each store on the pool listens for its idle-connection errors until the file ends.
    (await database).pool.setMaxListeners(0);
    const { db, pool } = await database;
    store = await createPostgresStore({ pool, schema: db.schema });
  } else {
    store = createMemoryStore();
  }
  stores.push(store);
  return store;
}

/** A reference server for a test, on a new store from {@link makeStore} unless `options.store` is given. */
export async function makeServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return createReferenceServer({ ...options, store: options.store ?? (await makeStore()) });
}

/** A server with one user (1000 credits by default), a ck_test_ key and two assets. */
export async function setup(
  options: ReferenceServerOptions & { credits?: number; multiplier?: string | number } = {},
) {
  const { credits = 1000, multiplier, ...serverOptions } = options;
  const server = await makeServer(serverOptions);
  const { userId } = await server.admin.createUser({
    credits,
    ...(multiplier === undefined ? {} : { multiplier }),
  });
  const { key, apiKeyId } = await server.admin.createApiKey(userId);
  const assets = [
    (await server.admin.createAsset(userId)).assetId,
    (await server.admin.createAsset(userId)).assetId,
  ];
  const auth = { authorization: `Bearer ${key}` };

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.fetch(
      new Request(BASE + path, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
  const get = (path: string, headers: Record<string, string> = auth) =>
    server.fetch(new Request(BASE + path, { headers }));
  const generate = (body: unknown, headers?: Record<string, string>) =>
    post("/api/generations", body, headers);

  return { server, admin: server.admin, userId, key, apiKeyId, assets, auth, post, get, generate };
}

/** What {@link setup} gives a test. */
export type Setup = Awaited<ReturnType<typeof setup>>;

/** The error object of a failed response, after checking the envelope every failure shares. */
export async function errorOf(res: Response) {
  const body = (await res.json()) as {
    error: { message: string; code: string; param?: string; issues?: unknown[]; requestId: string };
  };
  return body.error;
}

/**
 * The code of the AdminError a promise rejects with (or `undefined` when it resolves).
 *
 * @param promise - An admin call.
 */
export async function adminCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if ((error as Error).name !== "AdminError") {
      throw error;
    }
    return (error as { code: string }).code;
  }
  return undefined;
}

/**
 * A store that answers like `base` except for the methods in `overrides` (which may call `base`).
 * A Proxy rather than a spread, so that it also wraps a store whose methods live on a class.
 *
 * @param base - The store to wrap.
 * @param overrides - The methods to replace.
 */
export function wrapStore(base: Store, overrides: Partial<Store>): Store {
  return new Proxy(base, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) {
        return overrides[prop as keyof Store];
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
