import { createClient } from "imagegen-pricing/client";
import { createReferenceServer } from "imagegen-pricing/server";
import { describe, expect, it } from "vitest";
import { clientFromEnv, placeOrder } from "./client.js";

const KEY = "ck_test_orders_000000000000001";
const ADMIN_TOKEN = "example-admin-token-0001";

/** The service in process, with one account of 1000 credits at multiplier 1.15, and the backend's client on it. */
function service() {
  const server = createReferenceServer({
    adminToken: ADMIN_TOKEN,
    fixtures: { users: [{ id: "usr_orders", credits: 1000, multiplier: "1.15", apiKeys: [KEY] }] },
  });
  // No waiting between attempts in a test: the faults decide, not the clock.
  const client = createClient({
    apiKey: KEY,
    baseUrl: "https://api.example.test",
    fetch: server.fetch,
    maxRetryDelayMs: 0,
  });
  return { server, client };
}

const FOX = {
  prompt: "a fox in the snow",
  modelId: "beta2",
  resolution: "4K",
  imageCount: 2,
} as const;

describe("recipe: placing orders with the client", () => {
  it("P4, P5: an order within budget is accepted and charged what the estimate said (2 x 138)", async () => {
    const { server, client } = service();
    const placed = await placeOrder(client, { orderId: "order-1", request: FOX, maxCredits: 300 });
    expect(placed).toMatchObject({ status: "accepted", charged: 276, replayed: false });
    expect(placed.status === "accepted" && placed.requestId).toMatch(/^req_/);
    expect(await server.admin.balance("usr_orders")).toBe(724);
  });

  it("P2: an order without a price, or over its budget, is refused and nothing is sent to create", async () => {
    const { server, client } = service();
    const xhigh = {
      prompt: "x",
      modelId: "alpha-img2-5-flare",
      quality: "xhigh",
    } as unknown as typeof FOX;
    expect(
      await placeOrder(client, { orderId: "order-2", request: xhigh, maxCredits: 1000 }),
    ).toMatchObject({
      status: "refused",
      reason: "invalid_request",
    });
    expect(await placeOrder(client, { orderId: "order-3", request: FOX, maxCredits: 200 })).toEqual(
      {
        status: "refused",
        reason: "over_budget",
        message: "This order costs 276 credits; its budget is 200.",
      },
    );
    expect((await server.admin.requests()).filter((r) => r.path === "/api/generations")).toEqual(
      [],
    );
  });

  it("S5: lost answers past the retries: try again; placing the order again gets its task, charged once", async () => {
    const { server, client } = service();
    await server.admin.addFault({ kind: "lose_answer", path: "/api/generations", times: 3 });
    const order = { orderId: "order-4", request: FOX, maxCredits: 300 };
    expect(await placeOrder(client, order)).toMatchObject({
      status: "try_again",
      reason: "connection_error",
    });
    expect(await server.admin.balance("usr_orders")).toBe(724);
    expect(await placeOrder(client, order)).toMatchObject({
      status: "accepted",
      charged: 276,
      replayed: true,
    });
    expect(await server.admin.balance("usr_orders")).toBe(724);
  });

  it("S4: too few credits is refused with the service's code", async () => {
    const { client } = service();
    const big = { ...FOX, modelId: "alpha-img2-official", quality: "high", imageCount: 4 } as const;
    expect(
      await placeOrder(client, { orderId: "order-5", request: big, maxCredits: 10_000 }),
    ).toMatchObject({
      status: "refused",
      reason: "insufficient_credits",
    });
  });

  it("the client comes from the environment, and refuses a missing key by name", () => {
    expect(() => clientFromEnv({ IMAGEGEN_BASE_URL: "https://api.example.test" })).toThrow(
      /^apiKey must be an API key/,
    );
    expect(
      clientFromEnv({ IMAGEGEN_API_KEY: KEY, IMAGEGEN_BASE_URL: "https://api.example.test" })
        .generations,
    ).toBeDefined();
  });
});
