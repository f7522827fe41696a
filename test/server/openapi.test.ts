import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import createClient from "openapi-fetch";
import { describe, expect, expectTypeOf, it } from "vitest";
import type * as schemas from "../../scripts/openapi/schemas.js";
import { createAdminOpenApiDocument } from "../../src/server/openapi/admin.js";
import type * as answers from "../../src/server/openapi/answers.js";
import { createOpenApiDocument, type OpenApiDocument } from "../../src/server/openapi/document.js";
import { BASE, type Setup, setup } from "./helpers.js";
import type { paths } from "./openapi.js";
import { generateOpenApiTypes, OPENAPI_TYPES_PATH } from "./openapiTypes.js";

function typedClient(s: Setup) {
  return createClient<paths>({
    baseUrl: BASE,
    headers: s.auth,
    fetch: (request: Request) => s.server.fetch(request),
  });
}

describe("OpenAPI", () => {
  it("S12: GET /openapi.json needs no key and serves the exported OpenAPI 3.1 document", async () => {
    const s = await setup();
    const res = await s.get("/openapi.json", {});
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc).toEqual(JSON.parse(JSON.stringify(createOpenApiDocument())));
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/api/generations",
      "/api/ping",
      "/api/pricing/quote",
      "/api/query/credits",
    ]);
  });

  it("S12: every operation lists every status the server answers: 404, 405 and 500 too, with Allow on 405 and Retry-After on 503", () => {
    const doc = createOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
      components: { responses: Record<string, { headers?: Record<string, unknown> }> };
    };
    const statuses = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => [`${method} ${path}`, Object.keys(op.responses)]),
    );
    expect(Object.fromEntries(statuses)).toEqual({
      "post /api/generations": [
        "202",
        "400",
        "401",
        "402",
        "404",
        "405",
        "409",
        "413",
        "415",
        "500",
        "503",
      ],
      "post /api/pricing/quote": ["200", "400", "401", "404", "405", "413", "415", "500", "503"],
      "get /api/ping": ["200", "401", "404", "405", "500", "503"],
      "get /api/query/credits": ["200", "401", "404", "405", "500", "503"],
    });
    const shared = doc.components.responses;
    expect(Object.keys(shared.method_not_allowed?.headers ?? {})).toEqual(["Allow"]);
    expect(Object.keys(shared.service_unavailable?.headers ?? {})).toEqual(["Retry-After"]);
    expect(Object.keys(shared["missing_api_key-invalid_api_key"]?.headers ?? {})).toEqual([
      "WWW-Authenticate",
    ]);
  });

  it("S12: the admin document lists 404, 405 and 500 on every operation too", () => {
    const doc = createAdminOpenApiDocument() as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(operations.length).toBeGreaterThan(15);
    for (const op of operations) {
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(["404", "405", "500"]));
    }
  });

  it("S9, S10, S11: the answer types the handlers write are the document's schemas (checked by the type checker)", () => {
    expectTypeOf<answers.PingAnswer>().toEqualTypeOf<schemas.PingAnswer>();
    expectTypeOf<answers.CreditsAnswer>().toEqualTypeOf<schemas.CreditsAnswer>();
    expectTypeOf<answers.NextChange>().toEqualTypeOf<schemas.NextChange>();
    expectTypeOf<answers.QuoteAnswer>().toExtend<schemas.QuoteAnswer>();
  });

  it("the committed openapi.d.ts matches a fresh generation (run scripts/gen-openapi-types.ts)", async () => {
    expect(readFileSync(OPENAPI_TYPES_PATH, "utf8")).toBe(await generateOpenApiTypes());
  });

  it("S3, S9, S10, S11: a client generated from the document gets typed answers from all four endpoints", async () => {
    const s = await setup({ credits: 500 });
    const client = typedClient(s);

    const ping = await client.GET("/api/ping");
    expect(ping.response.status).toBe(200);
    expect(ping.data?.authProvider).toBe("api_key");
    expect(ping.data?.userId).toBe(s.userId);

    const credits = await client.GET("/api/query/credits");
    const balance: number | undefined = credits.data?.creditBalance;
    expect(balance).toBe(500);

    const quote = await client.POST("/api/pricing/quote", {
      body: { kind: "image", modelId: "beta-pro", resolution: "4K" },
    });
    const priced = quote.data && "breakdown" in quote.data ? quote.data : undefined;
    expect(priced?.credits).toBe(100);
    expect(priced?.breakdown.baseCredits).toBe(100);
    const unpriced = await client.POST("/api/pricing/quote", {
      body: { kind: "image", modelId: "alpha-img2", resolution: "4K" },
    });
    expect(unpriced.data).toMatchObject({ credits: null, reason: "unsupported_resolution" });

    const created = await client.POST("/api/generations", {
      body: {
        prompt: "a lighthouse",
        modelId: "beta-pro",
        resolution: "4K",
        imageCount: 2,
        idempotencyKey: "lh-1",
      },
    });
    expect(created.response.status).toBe(202);
    const jobIds: string[] = created.data?.batch.results.map((r) => r.job.id) ?? [];
    expect(jobIds).toHaveLength(2);
    expect(created.data?.billing).toEqual({ totalCreditCost: 200, balanceAfterCredits: 300 });

    const replay = await client.POST("/api/generations", {
      body: {
        prompt: "a lighthouse",
        modelId: "beta-pro",
        resolution: "4K",
        imageCount: 2,
        idempotencyKey: "lh-1",
      },
    });
    expect(replay.response.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.data).toEqual(created.data);

    const poor = await client.POST("/api/generations", {
      body: { prompt: "again", modelId: "beta-pro", resolution: "4K", imageCount: 4 },
    });
    expect(poor.response.status).toBe(402);
    expect(poor.error?.error.code).toBe("insufficient_credits");

    const bad = await client.POST("/api/pricing/quote", {
      // @ts-expect-error the generated types reject a count that is not a number, as the server does
      body: { kind: "image", modelId: "beta", referenceImageCount: "2" },
    });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.issues?.[0]?.path).toBe("referenceImageCount");
  });
});

/**
 * The command that makes a newcomer's client types from the shipped document, as docs/testing.md
 * names it: `npx openapi-typescript <document> --default-non-nullable false -o imagegen.d.ts`.
 */
const OPENAPI_TYPES_ARGS = ["--default-non-nullable", "false", "-o", "imagegen.d.ts"];

/** A newcomer's client: the smallest body, a quote, and what the types must refuse. */
const NEWCOMER_CLIENT = `import createClient from "openapi-fetch";
import type { paths } from "./imagegen.js";
import type { paths as strictPaths } from "./strict.js";

export async function first(key: string): Promise<number | undefined> {
  const client = createClient<paths>({
    baseUrl: "http://127.0.0.1:8787",
    headers: { authorization: "Bearer " + key },
  });
  const created = await client.POST("/api/generations", { body: { prompt: "hi" } });
  const quote = await client.POST("/api/pricing/quote", { body: { kind: "image", modelId: "beta" } });
  // A priced quote has a breakdown (openapi-fetch drops a property typed only null, credits, from the other).
  const credits = quote.data && "breakdown" in quote.data ? quote.data.credits : undefined;
  // @ts-expect-error a resolution outside the public list
  await client.POST("/api/generations", { body: { prompt: "hi", resolution: "8K" } });
  // Without --default-non-nullable false, every field with a default is required.
  const strict = createClient<strictPaths>({ baseUrl: "http://127.0.0.1:8787" });
  // @ts-expect-error generationType and background are required there
  await strict.POST("/api/generations", { body: { prompt: "hi" } });
  return created.data?.billing.totalCreditCost ?? credits;
}
`;

describe("openapi-typescript, as a newcomer runs it on the shipped document (S12)", () => {
  it("S12: the documented command makes types a first body ({ prompt }) compiles against, and an openapi-fetch client typechecks", () => {
    const root = fileURLToPath(new URL("../../", import.meta.url));
    // Inside the project, so that the client resolves openapi-fetch from its node_modules.
    mkdirSync(join(root, "reports"), { recursive: true });
    const dir = mkdtempSync(join(root, "reports", "openapi-client-"));
    try {
      const bin = (name: string) => join(root, "node_modules", ".bin", name);
      const document = join(root, "data", "openapi.json");
      const args = OPENAPI_TYPES_ARGS.map((arg) => (arg.endsWith(".d.ts") ? join(dir, arg) : arg));
      execFileSync(bin("openapi-typescript"), [document, ...args], { stdio: "pipe" });
      execFileSync(bin("openapi-typescript"), [document, "-o", join(dir, "strict.d.ts")], {
        stdio: "pipe",
      });
      writeFileSync(join(dir, "client.mts"), NEWCOMER_CLIENT);
      const tsc = spawnSync(
        bin("tsc"),
        [
          ...["--noEmit", "--strict", "--exactOptionalPropertyTypes", "--skipLibCheck"],
          ...["--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022"],
          join(dir, "client.mts"),
        ],
        { encoding: "utf8" },
      );
      expect(tsc.stdout + tsc.stderr).toBe("");
      expect(tsc.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * An example's value in a document: of a request body (`status` "request") or of an answer; the one
 * `example` of a body, or the one of its `examples` that `name` names.
 */
function exampleOf(
  document: OpenApiDocument,
  method: string,
  path: string,
  status: string,
  name?: string,
): unknown {
  const operation = (document.paths as Record<string, Record<string, JsonOperation>>)[path]?.[
    method
  ];
  const answer = operation?.responses[status];
  // A shared answer is written once, under components.responses.
  const responses = (document.components as { responses: Record<string, JsonAnswer> }).responses;
  const shared =
    answer?.$ref === undefined
      ? undefined
      : responses[answer.$ref.replace("#/components/responses/", "")];
  const media = (status === "request" ? operation?.requestBody : (shared ?? answer))?.content[
    "application/json"
  ];
  const example =
    name === undefined
      ? media && "example" in media && { value: media.example }
      : media?.examples?.[name];
  if (!example) {
    throw new Error(`no example "${name ?? "example"}" at ${method} ${path} ${status}`);
  }
  return example.value;
}
type JsonMedia = { example?: unknown; examples?: Record<string, { value: unknown }> };
type JsonAnswer = { $ref?: string; content: Record<string, JsonMedia> };
type JsonOperation = { requestBody?: JsonAnswer; responses: Record<string, JsonAnswer> };

/** An answer's body with the server's random ids and instants replaced by the examples' own. */
function asExample(value: unknown, ids: Record<string, string>): unknown {
  let text = JSON.stringify(value).replace(/req_[0-9a-f]{16}/g, "req_2c0b44b53bb54e0b");
  for (const [actual, example] of Object.entries(ids)) {
    text = text.replaceAll(actual, example);
  }
  return JSON.parse(text);
}

describe("the documents' examples are what a server answers (S12)", () => {
  it("S3, S9, S10, S11: the service document's examples are the answers the example account gets, prices included", async () => {
    const doc = createOpenApiDocument();
    const s = await setup({ credits: 1000, multiplier: "1.15" });
    const ex = (method: string, path: string, status: string, name?: string) =>
      exampleOf(doc, method, path, status, name);
    const created = await s.generate(ex("post", "/api/generations", "request"));
    expect(created.status).toBe(202);
    const accepted = (await created.json()) as { batch: { taskId: string } };
    const ids = {
      [accepted.batch.taskId.slice(5)]: "625ca9b6334f2d26",
      [s.userId]: "usr_5a0830785b7c5777",
      [s.apiKeyId]: "apk_1cf73ac11fd29458",
    };
    expect(asExample(accepted, ids)).toEqual(ex("post", "/api/generations", "202"));
    for (const name of ["priced", "unpriced"]) {
      const res = await s.post(
        "/api/pricing/quote",
        ex("post", "/api/pricing/quote", "request", name),
      );
      expect(await res.json(), name).toEqual(ex("post", "/api/pricing/quote", "200", name));
    }
    expect(asExample(await (await s.get("/api/ping")).json(), ids)).toEqual(
      ex("get", "/api/ping", "200"),
    );
    expect(asExample(await (await s.get("/api/query/credits")).json(), ids)).toEqual(
      ex("get", "/api/query/credits", "200"),
    );

    // Errors: the sentences and issues are the server's own.
    const invalid = await s.generate({ prompt: " ", modelId: catalogDefault(), resolution: "8K" });
    expect(asExample(await invalid.json(), ids)).toEqual(
      ex("post", "/api/generations", "400", "invalid_request"),
    );
    const notJson = await s.generate("{nope");
    expect(asExample(await notJson.json(), ids)).toEqual(
      ex("post", "/api/generations", "400", "invalid_json"),
    );
    const badSpec = await s.post("/api/pricing/quote", {
      kind: "image",
      modelId: catalogDefault(),
      referenceImageCount: "2",
    });
    expect(asExample(await badSpec.json(), ids)).toEqual(
      ex("post", "/api/pricing/quote", "400", "invalid_request"),
    );
    const reused = await s.generate({
      ...(ex("post", "/api/generations", "request") as object),
      imageCount: 1,
    });
    expect(asExample(await reused.json(), ids)).toEqual(
      ex("post", "/api/generations", "409", "idempotency_key_reused"),
    );
    const anonymous = await s.get("/api/ping", {});
    expect(asExample(await anonymous.json(), ids)).toEqual(
      ex("get", "/api/ping", "401", "missing_api_key"),
    );
    const nowhere = await s.get("/api/generation");
    expect(asExample(await nowhere.json(), ids)).toEqual(
      ex("post", "/api/generations", "404", "not_found"),
    );
    const wrongMethod = await s.get("/api/generations");
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(asExample(await wrongMethod.json(), ids)).toEqual(
      ex("post", "/api/generations", "405", "method_not_allowed"),
    );
    const plain = await s.post("/api/pricing/quote", "hi", { "content-type": "text/plain" });
    expect(asExample(await plain.json(), ids)).toEqual(
      ex("post", "/api/pricing/quote", "415", "unsupported_media_type"),
    );
  });

  it("S6, S8, S13: the admin document's examples are what the admin API answers for the same account", async () => {
    const doc = createAdminOpenApiDocument();
    const token = "admin-token-for-example-tests";
    const s = await setup({ adminToken: token });
    const ex = (method: string, path: string, status: string) =>
      exampleOf(doc, method, path, status);
    const admin = async (method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (body !== undefined) {
        headers["content-type"] = "application/json";
      }
      const res = await s.server.fetch(
        new Request(BASE + path, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      return (await res.json()) as Record<string, unknown>;
    };
    const { userId } = (await admin(
      "post",
      "/admin/users",
      ex("post", "/admin/users", "request"),
    )) as { userId: string };
    const { key, apiKeyId } = (await admin(
      "post",
      `/admin/users/${userId}/api-keys`,
      ex("post", "/admin/users/{userId}/api-keys", "request"),
    )) as {
      key: string;
      apiKeyId: string;
    };
    const generation = exampleOf(createOpenApiDocument(), "post", "/api/generations", "request");
    const created = await s.server.fetch(
      new Request(`${BASE}/api/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(generation),
      }),
    );
    const taskId = ((await created.json()) as { batch: { taskId: string } }).batch.taskId;
    const ids = {
      [taskId.slice(5)]: "625ca9b6334f2d26",
      [userId]: "usr_5a0830785b7c5777",
      [apiKeyId]: "apk_1cf73ac11fd29458",
    };
    const example = (value: unknown) => asExample(value, ids);

    expect(example(await admin("get", `/admin/users/${userId}`))).toEqual(
      ex("get", "/admin/users/{userId}", "200"),
    );
    const job = `job_${taskId.slice(5)}_0`;
    expect(example(await admin("get", `/admin/jobs/${job}`))).toEqual(
      ex("get", "/admin/jobs/{jobId}", "200"),
    );
    expect(example(await admin("post", `/admin/jobs/${job}/fail`))).toEqual(
      ex("post", "/admin/jobs/{jobId}/fail", "200"),
    );
    const task = example(await admin("get", `/admin/tasks/${taskId}`)) as { createdAt: string };
    const taskExample = ex("get", "/admin/tasks/{taskId}", "200") as { createdAt: string };
    expect({ ...task, createdAt: taskExample.createdAt }).toEqual(taskExample);
    // Instants are the clock's: compared as the example's.
    const ledgerExample = ex("get", "/admin/users/{userId}/ledger", "200") as {
      entries: { at: string }[];
    };
    const ledger = example(await admin("get", `/admin/users/${userId}/ledger`)) as {
      entries: { at: string }[];
    };
    expect({
      entries: ledger.entries.map((e, i) => ({ ...e, at: ledgerExample.entries[i]?.at })),
    }).toEqual(ledgerExample);
    expect(
      example(
        await admin(
          "put",
          `/admin/users/${userId}/multiplier`,
          ex("put", "/admin/users/{userId}/multiplier", "request"),
        ),
      ),
    ).toEqual(ex("put", "/admin/users/{userId}/multiplier", "200"));
    expect(
      example(
        await admin(
          "post",
          `/admin/users/${userId}/grants`,
          ex("post", "/admin/users/{userId}/grants", "request"),
        ),
      ),
    ).toEqual(ex("post", "/admin/users/{userId}/grants", "200"));
    expect(example(await admin("get", "/admin/users/usr_0000000000000000"))).toEqual(
      exampleOf(doc, "get", "/admin/users/{userId}", "404", "unknown_user"),
    );
  });
});

/** The built-in catalog's default model, which the service document's examples use. */
const catalogDefault = () =>
  (
    createOpenApiDocument().components as {
      schemas: { GenerationRequest: { properties: { modelId: { default: string } } } };
    }
  ).schemas.GenerationRequest.properties.modelId.default;
