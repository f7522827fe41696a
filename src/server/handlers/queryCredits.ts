/**
 * `GET /api/query/credits` (S10): the caller's balance.
 */
import type { Handler } from "../context.js";
import { serverMessages as m } from "../messages.js";
import { failure, json } from "../responses.js";
import type { CreditsAnswer } from "../schemas.js";

/** @internal */
export const queryCredits: Handler = (_request, ctx, caller, requestId) => {
  const user = ctx.store.getUser(caller.userId);
  if (!user) return failure(requestId, { code: "invalid_api_key", message: m.invalidApiKey() });
  const body: CreditsAnswer = {
    creditBalance: user.balance,
    currency: "credits",
    userId: caller.userId,
    apiKeyId: caller.apiKeyId,
  };
  return json(200, body, requestId);
};
