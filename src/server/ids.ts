/**
 * Random identifiers and secrets, from `crypto.getRandomValues` (Web Crypto: Node, Deno, Bun and
 * workers alike).
 */

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/**
 * Random bytes for ids are taken from a pool filled 4 KiB at a time: one `getRandomValues` call
 * costs about as much as a small request's own work, and every request needs an id. Each byte is
 * handed out once; no id takes more than the pool holds. API keys do not use the pool (see {@link
 * randomBase64Url}).
 */
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

function randomBytes(bytes: number): Uint8Array {
  if (poolOffset + bytes > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const out = pool.subarray(poolOffset, poolOffset + bytes);
  poolOffset += bytes;
  return out;
}

/** So many random bytes as lowercase hex (twice as many characters). @internal */
export function randomHex(bytes: number): string {
  return hexWith("", bytes, "");
}

/**
 * `prefix`, random bytes as lowercase hex, then `suffix`, as one flat string: join() makes it
 * flat, where `+=` or a template would keep a rope of small pieces alive in every stored id.
 */
function hexWith(prefix: string, bytes: number, suffix: string): string {
  const buffer = randomBytes(bytes);
  const parts: string[] = new Array(bytes + 2);
  parts[0] = prefix;
  for (let i = 0; i < bytes; i++) {
    parts[i + 1] = HEX[buffer[i] as number] as string;
  }
  parts[bytes + 1] = suffix;
  return parts.join("");
}

/** So many random bytes as unpadded base64url (`A-Z a-z 0-9 - _`), not from the pool. @internal */
export function randomBase64Url(bytes: number): string {
  const buffer = crypto.getRandomValues(new Uint8Array(bytes));
  let binary = "";
  for (const byte of buffer) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/**
 * A string's UTF-8 bytes as lowercase hex: the spelling of a user id inside a task id (hex, so that
 * task and job ids keep to `[0-9a-f]` after their prefix).
 */
function utf8Hex(text: string): string {
  const cached = userHex.get(text);
  if (cached !== undefined) {
    return cached;
  }
  const hex = Array.from(encoder.encode(text), (byte) => HEX[byte]).join("");
  // The users who accept tasks are few beside their tasks: their spellings are kept, within a
  // bound.
  if (userHex.size >= USER_HEX_CACHE) {
    userHex.clear();
  }
  userHex.set(text, hex);
  return hex;
}

const encoder = new TextEncoder();
/** The hex spelling of recent user ids, at most {@link USER_HEX_CACHE} of them. */
const userHex = new Map<string, string>();
const USER_HEX_CACHE = 1024;

/**
 * Identifier makers; 64 random bits each, so collisions are not a practical concern in memory.
 * @internal
 */
export const newId = {
  user: () => `usr_${randomHex(8)}`,
  apiKey: () => `apk_${randomHex(8)}`,
  asset: () => `ast_${randomHex(8)}`,
  /**
   * A task id that carries its user: `task_<16 random hex digits><the user id's UTF-8 as hex>`, so
   * a store distributed by user id finds a task (and its jobs) on one node from the id alone
   * (`taskUserId` of the store reads it back).
   */
  task: (userId: string) => hexWith("task_", 8, utf8Hex(userId)),
  request: () => `req_${randomHex(8)}`,
  /** A server-made idempotency key for a request that sent none (N13): 128 random bits. */
  idempotencyKey: () => `srv_${randomHex(16)}`,
};

/**
 * The id of a task's job: `job_<task suffix>_<index>`. Deriving it from the task keeps a task's
 * memory small (no per-job map entry) and still makes the lookup O(1) (see {@link parseJobId}).
 * @internal
 */
export function jobId(taskId: string, index: number): string {
  return `job_${taskId.slice(5)}_${index}`;
}

/**
 * Splits a job id back into its task id and index; `undefined` for anything but the spelling
 * {@link jobId} makes (an index with leading zeros names no job, so a job has exactly one id).
 * @internal
 */
export function parseJobId(id: unknown): { taskId: string; index: number } | undefined {
  const match = typeof id === "string" ? /^job_([0-9a-f]+)_(0|[1-9][0-9]{0,3})$/.exec(id) : null;
  return match ? { taskId: `task_${match[1]}`, index: Number(match[2]) } : undefined;
}
