/**
 * `POST /api/pricing/quote` (S11): a malformed spec is a 400 with issues; a well-formed one is
 * priced by the core's `quote` for the caller's multiplier, `credits: null` with a reason when it
 * cannot be priced.
 */
import { quote } from "../../pricing/quote.js";
import { readJsonBody } from "../body.js";
import type { Handler } from "../context.js";
import { serverMessages as m } from "../messages.js";
import { parseQuoteSpec } from "../../pricing/quoteSpec.js";
import { failure, invalidRequest, json } from "../responses.js";

/** @internal */
export const quotePrice: Handler = async (incoming, ctx, caller, requestId) => {
  const body = await readJsonBody(incoming, ctx.maxBodyBytes);
  if (!body.ok) return failure(requestId, body.failure);
  const spec = parseQuoteSpec(body.value);
  if (!spec.success) {
    return invalidRequest(requestId, spec.issues);
  }
  const user = ctx.store.getUser(caller.userId);
  if (!user) return failure(requestId, { code: "invalid_api_key", message: m.invalidApiKey() });
  return json(200, quote(spec.output, { multiplier: user.multiplier }, ctx.catalog), requestId);
};
