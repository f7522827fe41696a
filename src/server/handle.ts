/**
 * The request pipeline in the order S12 fixes: route (404, 405), then key (401), then the
 * endpoint's handler (media type, size, JSON, request rules, idempotency, assets, balance).
 */
import { readCredential } from "./auth.js";
import type { Incoming, Outgoing, ServerContext } from "./context.js";
import { serverMessages as m } from "./messages.js";
import { failure, jsonText } from "./responses.js";
import { ROUTES } from "./router.js";
import type { ApiKeyRecord } from "./store.js";

const BEARER_CHALLENGE = { "www-authenticate": 'Bearer realm="api"' };

/**
 * Answers one request.
 *
 * @param incoming - The request.
 * @param ctx - The server.
 * @param requestId - This request's id (for the header and error bodies).
 * @param openApiText - The serialized OpenAPI document, made on first use.
 * @internal
 */
export async function handle(
  incoming: Incoming,
  ctx: ServerContext,
  requestId: string,
  openApiText: () => string,
): Promise<Outgoing> {
  const path = incoming.path;
  const route = ROUTES.get(path);
  if (!route) return failure(requestId, { code: "not_found", message: m.notFound(path) });
  if (incoming.method !== route.method) {
    return failure(requestId, {
      code: "method_not_allowed",
      message: m.methodNotAllowed(incoming.method, [route.method]),
      headers: { allow: route.method },
    });
  }
  if (route.handler === "openapi") return jsonText(200, openApiText(), requestId);

  const credential = readCredential(incoming.header("authorization"));
  if (credential.kind === "missing") {
    return failure(requestId, { code: "missing_api_key", message: m.missingApiKey(), headers: BEARER_CHALLENGE });
  }
  let key: ApiKeyRecord | undefined;
  if (credential.kind === "key") {
    // A synchronous hasher (the Node binding's) answers without a trip through the event loop.
    const hash = ctx.hashApiKey(credential.key);
    key = ctx.store.findApiKeyByHash(typeof hash === "string" ? hash : await hash);
  }
  if (!key || key.revoked) {
    return failure(requestId, { code: "invalid_api_key", message: m.invalidApiKey(), headers: BEARER_CHALLENGE });
  }
  return route.handler(incoming, ctx, { userId: key.userId, apiKeyId: key.id }, requestId);
}
