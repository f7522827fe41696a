/**
 * The caller's account: `GET /api/ping` (S9, who authenticated) and `GET /api/query/credits` (S10,
 * the balance).
 */
import { INVALID_API_KEY } from "../auth.js";
import type { Caller, ServerContext } from "../context.js";
import type { Incoming } from "../http/incoming.js";
import { failure, json, type Outgoing } from "../http/respond.js";
import type { CreditsAnswer, PingAnswer } from "../openapi/schemas.js";

/**
 * `GET /api/ping`: who authenticated, by API key only.
 *
 * @param _incoming - The request (nothing of it is read).
 * @param ctx - The server.
 * @param caller - Who authenticated.
 * @param requestId - This request's id.
 * @returns The 200.
 * @internal
 */
export async function ping(_incoming: Incoming, ctx: ServerContext, caller: Caller, requestId: string): Promise<Outgoing> {
  const body: PingAnswer = {
    ok: true,
    service: ctx.serviceName,
    authProvider: "api_key",
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
  };
  return json(200, body, requestId);
}

/**
 * `GET /api/query/credits`: the caller's balance.
 *
 * @param _incoming - The request (nothing of it is read).
 * @param ctx - The server.
 * @param caller - Who authenticated.
 * @param requestId - This request's id.
 * @returns The 200, or a 401 when the user is gone.
 * @internal
 */
export async function queryCredits(
  _incoming: Incoming,
  ctx: ServerContext,
  caller: Caller,
  requestId: string,
): Promise<Outgoing> {
  const user = await ctx.store.getUser(caller.userId);
  if (!user) return failure(requestId, INVALID_API_KEY);
  const body: CreditsAnswer = {
    creditBalance: user.balance,
    currency: "credits",
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
  };
  return json(200, body, requestId);
}
