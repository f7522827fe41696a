/**
 * The one place where the server and reliability suites get their servers and stores: switching
 * {@link makeStore} runs every suite against another store.
 */
import { afterAll } from "vitest";
import {
  createMemoryStore,
  createReferenceServer,
  type ReferenceServer,
  type ReferenceServerOptions,
  type Store,
} from "../../src/server/index.js";

export const BASE = "http://localhost";

/** Every store made for the current test file, closed once the file is done. */
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** A new, empty store: where every test server keeps its state. */
export async function makeStore(): Promise<Store> {
  const store = createMemoryStore();
  stores.push(store);
  return store;
}

/** A reference server for a test, on a new store from {@link makeStore} unless `options.store` is given. */
export async function makeServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  return createReferenceServer({ ...options, store: options.store ?? (await makeStore()) });
}

/** A server with one user (1000 credits by default), a ck_test_ key and two assets. */
export async function setup(options: ReferenceServerOptions & { credits?: number; multiplier?: string | number } = {}) {
  const { credits = 1000, multiplier, ...serverOptions } = options;
  const server = await makeServer(serverOptions);
  const { userId } = await server.admin.createUser({ credits, ...(multiplier === undefined ? {} : { multiplier }) });
  const { key, apiKeyId } = await server.admin.createApiKey(userId);
  const assets = [(await server.admin.createAsset(userId)).assetId, (await server.admin.createAsset(userId)).assetId];
  const auth = { authorization: `Bearer ${key}` };

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.fetch(
      new Request(BASE + path, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
  const get = (path: string, headers: Record<string, string> = auth) => server.fetch(new Request(BASE + path, { headers }));
  const generate = (body: unknown, headers?: Record<string, string>) => post("/api/generations", body, headers);

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
    if ((error as Error).name !== "AdminError") throw error;
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
      if (Object.hasOwn(overrides, prop)) return overrides[prop as keyof Store];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
