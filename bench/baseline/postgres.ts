/**
 * The hand-written baseline of the PostgreSQL benchmark: a bare `node:http` handler that accepts a
 * generation with `pg` the way a careful engineer would write it by hand, in two round trips and
 * with SQL of its own (it never calls the store's functions), on the store's tables and constraints:
 *
 * 1. the API key by its SHA-256, joined with its user's multiplier;
 * 2. one statement: a CTE that claims the idempotency key (`ON CONFLICT DO NOTHING`), debits with a
 *    conditional `UPDATE` that re-checks the balance, the multiplier and that the key is not revoked
 *    as it takes the user's row, and inserts the task, its job and the debit entry. When nothing is
 *    debited after a claim, no task is inserted and the claim's deferred foreign key fails the
 *    commit, so a refused request keeps no claim.
 *
 * It reads the JSON body, prices it from a fixed table by model (no validation, no catalog), and
 * answers 202 with a small JSON body: the least work that gives the same effect on the database.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import pg from "pg";

/** What the hand-written handler answers: a status and a small JSON body. */
type Answer = { status: number; body: unknown };

/**
 * The baseline's work for one request, without HTTP: the key's SHA-256 looked up with its user's
 * multiplier, then the one statement that claims, debits and inserts. The HTTP handler below answers
 * with it; the benchmark also calls it in process, beside the store's own calls.
 *
 * @param pool - A pool on the database, as a role that may write the store's tables.
 * @param schema - The store's schema (already migrated), holding the benchmark's users and keys.
 * @param credits - The charge of one `beta2` image (the price the reference server computes for the benchmark's body).
 * @returns A function of the bearer token and the parsed body.
 */
export function handWrittenAccept(
  pool: pg.Pool,
  schema: string,
  credits: number,
): (token: string, body: { idempotencyKey?: string; modelId?: string }) => Promise<Answer> {
  const s = `"${schema}"`;
  const findKey = {
    name: "baseline_key",
    text: `SELECT k.id, k.user_id, k.revoked, u.multiplier FROM ${s}.api_keys k JOIN ${s}.users u ON u.id = k.user_id
      WHERE k.hash = $1`,
  };
  // $1 user, $2 task, $3 API key id, $4 idempotency key, $5 now (ms), $6 request, $7 multiplier, $8 credits.
  const accept = {
    name: "baseline_accept",
    text: `WITH claim AS (
        INSERT INTO ${s}.idempotency (user_id, key, task_id) VALUES ($1, $4, $2) ON CONFLICT DO NOTHING RETURNING task_id
      ), debit AS (
        UPDATE ${s}.users u SET balance = u.balance - $8, held = u.held + $8, ledger_seq = u.ledger_seq + 1
        WHERE u.id = $1 AND u.balance >= $8 AND u.multiplier = $7 AND EXISTS (SELECT FROM claim)
          AND EXISTS (SELECT FROM ${s}.api_keys k WHERE k.id = $3 AND k.user_id = $1 AND NOT k.revoked)
        RETURNING u.balance, u.ledger_seq
      ), task AS (
        INSERT INTO ${s}.tasks (user_id, task_id, created_at_ms, request, client_key, reference_count, multiplier,
          catalog_version, total_credits, balance_after)
        SELECT $1, $2, $5, $6, true, 0, $7, 'baseline', $8, d.balance FROM debit d
      ), job AS (
        INSERT INTO ${s}.jobs (user_id, task_id, idx, credits) SELECT $1, $2, 0, $8 FROM debit
      ), entry AS (
        INSERT INTO ${s}.ledger (user_id, seq, kind, credits, at_ms, task_id) SELECT $1, d.ledger_seq, 'debit', $8, $5, $2 FROM debit d
      )
      SELECT d.balance FROM debit d`,
  };
  // The price of one image by model: the benchmark's body is priced like the reference server prices it.
  const prices = new Map<string, number>([["beta2", credits]]);
  return async (token, body) => {
    const charge = prices.get(body.modelId ?? "");
    if (charge === undefined || body.idempotencyKey === undefined) {
      return { status: 400, body: { error: { code: "invalid_request" } } };
    }
    const hash = createHash("sha256").update(token, "utf8").digest("hex");
    const key = (
      await pool.query<{ id: string; user_id: string; revoked: boolean; multiplier: string }>({
        ...findKey,
        values: [hash],
      })
    ).rows[0];
    if (!key || key.revoked) {
      return { status: 401, body: { error: { code: "unauthorized" } } };
    }
    const taskId = `task_${randomBytes(8).toString("hex")}`;
    const { rows } = await pool.query<{ balance: string }>({
      ...accept,
      values: [
        key.user_id,
        taskId,
        key.id,
        body.idempotencyKey,
        Date.now(),
        JSON.stringify(body),
        key.multiplier,
        charge,
      ],
    });
    // Every request of the benchmark has a fresh key and credits to spare: anything else is a
    // failure the load reports (a taken key answers no row; a refusal fails the claim's foreign key).
    const row = rows[0];
    if (!row) {
      return { status: 409, body: { error: { code: "idempotency_key_taken" } } };
    }
    return {
      status: 202,
      body: { taskId, totalCreditCost: charge, balanceAfterCredits: Number(row.balance) },
    };
  };
}

/**
 * Starts the baseline server on 127.0.0.1, port 0.
 *
 * @param options.connectionString - The database, as a role that may write the store's tables.
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
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolMax ?? 10,
  });
  pool.on("error", () => {});
  const accept = handWrittenAccept(pool, options.schema, options.credits);
  const answer = (res: ServerResponse, { status, body }: Answer) => {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(text),
    });
    res.end(text);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      (async () => {
        const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
        if (!token) {
          return answer(res, { status: 401, body: { error: { code: "unauthorized" } } });
        }
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          idempotencyKey?: string;
          modelId?: string;
        };
        return answer(res, await accept(token, body));
      })().catch(() => answer(res, { status: 500, body: { error: { code: "internal_error" } } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) {
    throw new Error("the baseline has no port");
  }
  return { server, pool, port: address.port };
}
