/**
 * Recipe: a backend that places image orders with the package's client: price the order first and
 * refuse it without a price or over its budget, create it with the order's id as the idempotency
 * key (so that placing it again can never charge twice), and sort every failure into "fix the
 * order" or "place it again later". `client.test.ts` runs it against the reference server.
 */
import {
  type Client,
  createClient,
  type GenerationInput,
  ImagegenError,
} from "imagegen-pricing/client";

/** An order of the backend's own: its id, what to generate, and the most it may cost. */
export type Order = { orderId: string; request: GenerationInput; maxCredits: number };

/** What became of an order. */
export type Placed =
  /** `replayed`: the order had been placed before, and this found its task (charged nothing more). */
  | { status: "accepted"; taskId: string; charged: number; replayed: boolean; requestId?: string }
  /** Placing it again will not help: the request, the price or the account needs a change. */
  | { status: "refused"; reason: string; message: string }
  /** Nothing is known to have failed for good: place it again (same order id, so never charged twice). */
  | { status: "try_again"; reason: string; message: string };

/**
 * The client of this backend, from its environment: the key stays on the server.
 *
 * @param env - Where `IMAGEGEN_API_KEY` and `IMAGEGEN_BASE_URL` are read (default: `process.env`).
 * @returns The client.
 */
export function clientFromEnv(env: Record<string, string | undefined> = process.env): Client {
  return createClient({ apiKey: env.IMAGEGEN_API_KEY ?? "", baseUrl: env.IMAGEGEN_BASE_URL ?? "" });
}

/**
 * Places an order: estimates it, then creates it with the order id as its idempotency key.
 *
 * @param client - The service's client.
 * @param order - The order.
 * @returns Accepted with the task and the credits charged, refused, or to try again.
 */
export async function placeOrder(client: Client, order: Order): Promise<Placed> {
  const estimate = await client.generations.estimate(order.request);
  // Never submit on a guess: no price, no order.
  if (estimate.credits === null) {
    return { status: "refused", reason: estimate.reason, message: estimate.message };
  }
  if (estimate.credits > order.maxCredits) {
    return {
      status: "refused",
      reason: "over_budget",
      message: `This order costs ${estimate.credits} credits; its budget is ${order.maxCredits}.`,
    };
  }
  try {
    const accepted = await client.generations
      .create(order.request, { idempotencyKey: order.orderId })
      .withResponse();
    return {
      status: "accepted",
      taskId: accepted.data.batch.taskId,
      charged: accepted.data.billing.totalCreditCost,
      replayed: accepted.replayed,
      // The service's id of the answer, for its operator when the order is queried.
      ...(accepted.requestId === undefined ? {} : { requestId: accepted.requestId }),
    };
  } catch (error) {
    if (!(error instanceof ImagegenError)) {
      throw error;
    }
    // No answer, or an answer that says "later": the order may even have been accepted already.
    const later =
      error.status === undefined ||
      error.status === 408 ||
      error.status === 429 ||
      error.status >= 500;
    return { status: later ? "try_again" : "refused", reason: error.code, message: error.message };
  }
}
