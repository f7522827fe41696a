/**
 * Recipe: a backend's generation endpoint with the core alone: check the body (its shape and the
 * model's limits, every issue at once), count only the references this user may use, compute the
 * exact charge, and debit it (`backend.test.ts` runs it).
 */
import { checkRequest, computeCharge, type Issue } from "imagegen-pricing";

/** What this backend knows of the caller: its multiplier, balance and assets. */
export type Account = { multiplier: string; balance: number; assets: ReadonlySet<string> };

/** The answer of the endpoint: a status and a JSON body. */
export type Answer = { status: number; body: unknown };

/**
 * Handles `POST /api/generations` for one account.
 *
 * @param body - The parsed JSON body, as the client sent it.
 * @param account - The caller's account; its balance is debited on success.
 * @returns 202 with the charge, 400 with every issue, or 402 when the balance is too small.
 */
export function handleGeneration(body: unknown, account: Account): Answer {
  const checked = checkRequest(body); // trims, applies defaults, de-duplicates (N1-N15), model limits (V1-V8)
  if (!checked.success) {
    return invalid(checked.issues);
  }

  const request = checked.output;
  const unknown = request.inputAssetIds.findIndex((id) => !account.assets.has(id));
  if (unknown >= 0) {
    return {
      status: 400,
      body: { error: { code: "asset_not_found", param: `inputAssetIds[${unknown}]` } },
    };
  }

  const charge = computeCharge(request, {
    account: { multiplier: account.multiplier }, // the account's price adjustment (P4)
    referenceCount: request.inputAssetIds.length, // only assets this user may use (P6)
  });
  if (account.balance < charge.totalCreditCost) {
    return { status: 402, body: { error: { code: "insufficient_credits" } } };
  }
  account.balance -= charge.totalCreditCost; // = the sum of charge.lines, each rounded on its own (P5)
  return {
    status: 202,
    body: { totalCreditCost: charge.totalCreditCost, balanceAfterCredits: account.balance },
  };
}

function invalid(issues: Issue[]): Answer {
  return { status: 400, body: { error: { code: "invalid_request", issues } } };
}
