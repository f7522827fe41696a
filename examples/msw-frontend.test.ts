/**
 * Recipe: a frontend's `fetch` mocked with MSW, answered by the reference server, so the code
 * under test talks to a realistic API (auth, prices, errors) without a network.
 */
import { quote } from "imagegen-pricing";
import { createReferenceServer } from "imagegen-pricing/server";
import { HttpResponse, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const API = "https://api.example.test";
const KEY = "ck_test_frontend_000000000000001";
const reference = createReferenceServer({
  fixtures: { users: [{ id: "usr_front", credits: 1000, multiplier: "1.15", apiKeys: [KEY] }] },
});

// Every request to the API goes to the reference server; anything else is an error in the test.
const mock = setupServer(
  http.all(`${API}/*`, ({ request }) => reference.fetch(request)),
  http.all("*", () => HttpResponse.json({ error: "unexpected request" }, { status: 599 })),
);
beforeAll(() => mock.listen({ onUnhandledRequest: "error" }));
afterAll(() => mock.close());

/** The frontend code under test: a price preview from the service. */
async function pricePreview(modelId: string, resolution: string): Promise<string> {
  const res = await fetch(`${API}/api/pricing/quote`, {
    method: "POST",
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ kind: "image", modelId, resolution }),
  });
  const body = await res.json();
  if (!res.ok) {
    return `error: ${body.error.code}`;
  }
  return body.credits === null ? "not available" : `${body.credits} credits`;
}

describe("recipe: MSW handlers that call server.fetch", () => {
  it("S11: the preview shows the caller's price, equal to the core's quote", async () => {
    expect(await pricePreview("beta2", "4K")).toBe("138 credits");
    expect(
      quote(
        { kind: "image", modelId: "beta2", resolution: "4K" },
        { account: { multiplier: "1.15" } },
      ).credits,
    ).toBe(138);
  });

  it("S11: an option the model does not offer is previewed as not available", async () => {
    expect(await pricePreview("alpha-img2", "4K")).toBe("not available");
  });

  it("S11: a resolution outside the public list is previewed as not available, as the core's quote says", async () => {
    expect(await pricePreview("beta2", "8K")).toBe("not available");
    // @ts-expect-error "8K" is not a resolution, so this does not compile; quote still judges it.
    expect(quote({ kind: "image", modelId: "beta2", resolution: "8K" }).credits).toBeNull();
  });
});
