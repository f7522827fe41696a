/**
 * The hand-written baseline of the PostgreSQL benchmark: a bare `node:http` handler that accepts a
 * generation with `pg` the way a careful hand-written service would, in two round trips: the API key
 * looked up by its SHA-256 with its user's multiplier (one query), then one statement that claims
 * the idempotency key, debits with a conditional update, checks the key and writes the task, its
 * jobs and the debit entry (`accept_generation` of the store's own schema). It reads the JSON body,
 * prices it from a fixed table by model (no validation, no catalog), and answers 202 with a small
 * JSON body: the least work that gives the same effect on the database.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import pg from "pg";

/**
 * Starts the baseline server on 127.0.0.1, port 0.
 *
 * @param options.connectionString - The database.
 * @param options.schema - The store's schema (already migrated), holding the benchmark's users and keys.
 * @param options.credits - The charge of one `beta2` image (the price the reference server computes for the benchmark's body).
 * @param options.poolMax - Connections in the pool (the store's default: 10).
 * @returns The listening server and its pool.
 */
export async function startBaseline(options: {
  connectionString: string;
  schema: string;
  credits: number;
  poolMax?: number;
}): Promise<{ server: Server; pool: pg.Pool; port: number }> {
  const pool = new pg.Pool({ connectionString: options.connectionString, max: options.poolMax ?? 10 });
  pool.on("error", () => {});
  const s = `"${options.schema}"`;
  const findKey = {
    name: "baseline_key",
    text: `SELECT k.id, k.user_id, k.revoked, u.multiplier FROM ${s}.api_keys k JOIN ${s}.users u ON u.id = k.user_id
      WHERE k.hash = $1`,
  };
  const commit = {
    name: "baseline_commit",
    text: `SELECT outcome, balance FROM ${s}.accept_generation($1, $2, $3, $4, NULL, $5::bigint, $5::bigint, $6::json,
      true, 0, $7, 'baseline', ARRAY[$8::bigint], $8::bigint, '{}'::text[])`,
  };
  // The price of one image by model: the benchmark's body is priced like the reference server prices it.
  const prices = new Map<string, number>([["beta2", options.credits]]);
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      (async () => {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        if (!token) return answer(res, 401, { error: { code: "unauthorized" } });
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { idempotencyKey?: string; modelId?: string };
        const credits = prices.get(body.modelId ?? "");
        if (credits === undefined) return answer(res, 400, { error: { code: "invalid_request" } });
        const hash = createHash("sha256").update(token, "utf8").digest("hex");
        const key = (
          await pool.query<{ id: string; user_id: string; revoked: boolean; multiplier: string }>({ ...findKey, values: [hash] })
        ).rows[0];
        if (!key || key.revoked) return answer(res, 401, { error: { code: "unauthorized" } });
        const taskId = `task_${randomBytes(8).toString("hex")}`;
        try {
          const { rows } = await pool.query<{ outcome: string; balance: string }>({
            ...commit,
            values: [
              key.user_id,
              taskId,
              key.id,
              body.idempotencyKey ?? null,
              Date.now(),
              JSON.stringify(body),
              key.multiplier,
              credits,
            ],
          });
          const row = rows[0];
          // Every request of the benchmark has a fresh key: a taken one is a failure the load reports.
          if (row?.outcome !== "ok") return answer(res, 409, { error: { code: "idempotency_key_taken" } });
          return answer(res, 202, { taskId, totalCreditCost: credits, balanceAfterCredits: Number(row.balance) });
        } catch (error) {
          if ((error as { code?: string }).code === "IG001") return answer(res, 402, { error: { code: "insufficient_credits" } });
          throw error;
        }
      })().catch(() => answer(res, 500, { error: { code: "internal_error" } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the baseline has no port");
  return { server, pool, port: address.port };
}
