/**
 * `npm start`: the reference server on 127.0.0.1:$PORT (default 8787; $HOST to change the address)
 * with a demo user, three demo assets and a ck_test_ key, printed once with curl lines that work
 * as pasted. Ctrl-C stops it cleanly.
 */
import { serve, sha256Hex } from "../src/node/index.js";
import { createReferenceServer } from "../src/server/index.js";

const port = process.env.PORT === undefined || process.env.PORT === "" ? 8787 : Number(process.env.PORT);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a whole number from 0 to 65535; got ${JSON.stringify(process.env.PORT)}.`);
  process.exit(1);
}
const host = process.env.HOST || "127.0.0.1";

const server = createReferenceServer({ hashApiKey: sha256Hex });
const { userId } = await server.admin.createUser({ credits: 10_000 });
const assets: string[] = [];
for (let i = 0; i < 3; i++) assets.push((await server.admin.createAsset(userId)).assetId);
const { key, apiKeyId } = await server.admin.createApiKey(userId);

const running = await serve({ port, host, server });
running.httpServer.on("close", () => console.log("Server closed; bye."));
const url = running.url.replace("//0.0.0.0:", "//127.0.0.1:").replace("//[::]:", "//[::1]:");
const generation = JSON.stringify({
  prompt: "a red fox in the snow",
  modelId: "alpha-img2-official",
  generationType: "image-to-image",
  inputAssetIds: [assets[0]],
  idempotencyKey: "demo-1",
});

console.log(`imagegen-pricing reference server listening on ${running.url}

Demo user ${userId}: 10000 credits, multiplier 1
Demo assets: ${assets.join(", ")}
API key ${apiKeyId} (shown once, kept only as a SHA-256 hash):

  ${key}

Try:

  curl -s ${url}/api/ping -H 'Authorization: Bearer ${key}'

  curl -s ${url}/api/query/credits -H 'Authorization: Bearer ${key}'

  curl -s ${url}/api/pricing/quote -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '{"kind":"image","modelId":"alpha-img2-official","quality":"medium","referenceImageCount":1}'

  curl -s ${url}/api/generations -H 'Authorization: Bearer ${key}' -H 'Content-Type: application/json' -d '${generation}'

OpenAPI document: ${url}/openapi.json
Ctrl-C stops the server.`);
