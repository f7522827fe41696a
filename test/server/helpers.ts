import { createReferenceServer, type ReferenceServerOptions } from "../../src/server/index.js";

export const BASE = "http://localhost";

/** A server with one user (1000 credits by default), a ck_test_ key and two assets. */
export function setup(options: ReferenceServerOptions & { credits?: number; multiplier?: string | number } = {}) {
  const { credits = 1000, multiplier, ...serverOptions } = options;
  const server = createReferenceServer(serverOptions);
  const { userId } = server.admin.createUser({ credits, ...(multiplier === undefined ? {} : { multiplier }) });
  const { key, apiKeyId } = server.admin.createApiKey(userId);
  const assets = [server.admin.createAsset(userId).assetId, server.admin.createAsset(userId).assetId];
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

/** The error object of a failed response, after checking the envelope every failure shares. */
export async function errorOf(res: Response) {
  const body = (await res.json()) as {
    error: { message: string; code: string; param?: string; issues?: unknown[]; requestId: string };
  };
  return body.error;
}
