/**
 * The caller's account and prices: `GET /api/ping` (S9, who authenticated),
 * `GET /api/query/credits` (S10, the balance) and `POST /api/pricing/quote` (S11, P8: the price for
 * this account now, and the next change already known).
 */
import type { Handler } from "hono";
import { quote } from "../pricing/quote.js";
import { parseQuoteSpec } from "../pricing/quoteSpec.js";
import { INVALID_API_KEY } from "./auth.js";
import type { Env, ServerContext } from "./context.js";
import { fail, invalidRequest, json } from "./errors.js";
import type { CreditsAnswer, PingAnswer, QuoteAnswer } from "./openapi/answers.js";

/** `GET /api/ping`: who authenticated, by API key only. @internal */
export function ping(ctx: ServerContext): Handler<Env> {
  return (c) => {
    const { userId, apiKeyId } = c.get("caller");
    const body: PingAnswer = {
      ok: true,
      service: ctx.serviceName,
      authProvider: "api_key",
      userId,
      apiKeyId,
    };
    return json(c, 200, JSON.stringify(body));
  };
}

/** `GET /api/query/credits`: the caller's balance, or a 401 when the user is gone. @internal */
export function queryCredits(ctx: ServerContext): Handler<Env> {
  return async (c) => {
    const { userId, apiKeyId } = c.get("caller");
    const user = await ctx.store.getUser(userId);
    if (!user) {
      return fail(c, INVALID_API_KEY);
    }
    const body: CreditsAnswer = {
      creditBalance: user.balance,
      currency: "credits",
      userId,
      apiKeyId,
    };
    return json(c, 200, JSON.stringify(body));
  };
}

/**
 * `POST /api/pricing/quote`: a malformed spec is a 400 with issues; a well-formed one is priced by
 * the core's `quote` for the caller's multiplier with the catalog in force now, `credits: null`
 * with a reason when it cannot be priced. @internal
 */
export function quotePrice(ctx: ServerContext): Handler<Env> {
  return (c) => {
    // The catalog in force when the request arrives (P8); before a history's first one this throws
    // and the server answers 503.
    const { catalog, next } = ctx.catalogs.at(ctx.clock.now());
    const spec = parseQuoteSpec(c.get("body"));
    if (!spec.success) {
      return invalidRequest(c, spec.issues);
    }
    // The multiplier was read with the key, in the same lookup.
    const account = { multiplier: c.get("caller").multiplier };
    const answer: QuoteAnswer = quote(spec.output, { account, catalog });
    if (next !== undefined) {
      answer.nextChange = {
        version: next.version,
        effectiveAt: next.effectiveAt,
        credits: quote(spec.output, { account, catalog: next.catalog }).credits,
      };
    }
    return json(c, 200, JSON.stringify(answer));
  };
}
