/**
 * `GET /api/ping` (S9): who authenticated, by API key only.
 */
import type { Handler } from "../context.js";
import { json } from "../responses.js";
import type { PingAnswer } from "../schemas.js";

/** @internal */
export const ping: Handler = (_request, ctx, caller, requestId) => {
  const body: PingAnswer = {
    ok: true,
    service: ctx.serviceName,
    authProvider: "api_key",
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
  };
  return json(200, body, requestId);
};
