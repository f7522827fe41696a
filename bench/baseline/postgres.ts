/**
 * The hand-written baseline of the PostgreSQL benchmark: a bare `node:http` handler that accepts a
 * generation with `pg` the way a careful hand-written service would, in the same transaction as the
 * store (`commit_task` of the store's own schema: claim the key, debit with a conditional update,
 * check the key, insert the task, its jobs and the debit entry). It looks the API key up by its
 * SHA-256, reads the JSON body, prices it from a fixed charge (no validation, no catalog), and
 * answers 202 with a small JSON body: the least work that gives the same effect on the database.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import pg from "pg";

/**
 * Starts the baseline server on 127.0.0.1, port 0.
 *
 * @param options.connectionString - The database.
 * @param options.schema - The store's schema (already migrated), holding the benchmark's users and keys.
 * @param options.credits - The charge of every request (the price the reference server computes for the benchmark's body).
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
  const findKey = { name: "baseline_key", text: `SELECT id, user_id, revoked FROM ${s}.api_keys WHERE hash = $1` };
  const commit = {
    name: "baseline_commit",
    text: `SELECT outcome, balance, task_id FROM ${s}.commit_task($1, $2, $3, $4, NULL, $5::bigint, $5::bigint, $6::json,
      true, 0, '1', 'baseline', ARRAY[$7::bigint], $7::bigint)`,
  };
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
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { idempotencyKey?: string };
        const hash = createHash("sha256").update(token, "utf8").digest("hex");
        const key = (await pool.query<{ id: string; user_id: string; revoked: boolean }>({ ...findKey, values: [hash] })).rows[0];
        if (!key || key.revoked) return answer(res, 401, { error: { code: "unauthorized" } });
        const taskId = `task_${randomBytes(8).toString("hex")}`;
        try {
          const { rows } = await pool.query<{ outcome: string; balance: string; task_id: string }>({
            ...commit,
            values: [key.user_id, taskId, key.id, body.idempotencyKey ?? null, Date.now(), JSON.stringify(body), options.credits],
          });
          const row = rows[0];
          // Every request of the benchmark has a fresh key: a taken one is a failure the load reports.
          if (row?.outcome !== "ok") return answer(res, 409, { error: { code: "idempotency_key_taken" } });
          return answer(res, 202, { taskId, totalCreditCost: options.credits, balanceAfterCredits: Number(row.balance) });
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
