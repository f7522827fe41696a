/**
 * `POST /api/pricing/quote` (S11, P8): a malformed spec is a 400 with issues; a well-formed one is
 * priced by the core's `quote` for the caller's multiplier with the catalog in force now,
 * `credits: null` with a reason when it cannot be priced, and `nextChange` when a later catalog is
 * already known.
 */
import { quote } from "../../pricing/quote.js";
import { parseQuoteSpec } from "../../pricing/quoteSpec.js";
import { INVALID_API_KEY } from "../auth.js";
import type { Caller, ServerContext } from "../context.js";
import { readJsonBody } from "../http/body.js";
import type { Incoming } from "../http/incoming.js";
import { failure, invalidRequest, json, type Outgoing } from "../http/respond.js";
import type { QuoteAnswer } from "../openapi/schemas.js";

/**
 * `POST /api/pricing/quote`.
 *
 * @param incoming - The request.
 * @param ctx - The server.
 * @param caller - Who authenticated.
 * @param requestId - This request's id.
 * @returns The 200 quote, or the failure.
 * @internal
 */
export async function quotePrice(incoming: Incoming, ctx: ServerContext, caller: Caller, requestId: string): Promise<Outgoing> {
  const body = await readJsonBody(incoming, ctx.maxBodyBytes);
  if (!body.ok) return failure(requestId, body.failure);
  // The catalog in force when the request arrives (P8); before a history's first one this throws
  // and the server answers 503.
  const { catalog, next } = ctx.catalogs.at(ctx.now());
  const spec = parseQuoteSpec(body.value);
  if (!spec.success) return invalidRequest(requestId, spec.issues);
  const user = await ctx.store.getUser(caller.userId);
  if (!user) return failure(requestId, INVALID_API_KEY);
  const account = { multiplier: user.multiplier };
  const answer: QuoteAnswer = quote(spec.output, { account, catalog });
  if (next !== undefined) {
    answer.nextChange = {
      version: next.version,
      effectiveAt: next.effectiveAt,
      credits: quote(spec.output, { account, catalog: next.catalog }).credits,
    };
  }
  return json(200, answer, requestId);
}
