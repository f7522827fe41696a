/**
 * Reading an admin request's body, shared by the admin routes and the test-double controls: a JSON
 * object, or the 400 that refuses it in the service's error shape.
 */
import { show } from "../../messages.js";
import type { Issue } from "../../types.js";
import type { ServerContext } from "../context.js";
import { readJsonBody } from "../http/body.js";
import type { Incoming } from "../http/incoming.js";
import { failure, type Outgoing } from "../http/respond.js";
import { serverMessages as m } from "../messages.js";
import { adminFailure } from "./token.js";

/**
 * The 400 `invalid_request` of an admin request, naming its first issue as `param`.
 *
 * @param requestId - The request's id.
 * @param issues - What is wrong, at least one.
 * @returns The answer.
 * @internal
 */
export const invalidAdminRequest = (requestId: string, issues: Issue[]): Outgoing =>
  adminFailure(requestId, "invalid_request", m.invalidRequest(issues), { param: issues[0]?.path ?? "", issues });

/**
 * Reads an admin request's body as a JSON object.
 *
 * @param incoming - The request.
 * @param ctx - The server (its body limit).
 * @param requestId - The request's id.
 * @param emptyIsObject - Whether an empty body means `{}`, whatever its media type (curl -X POST
 *   sends none, fetch text/plain).
 * @returns The object, or the answer that refuses the body.
 * @internal
 */
export async function readAdminObject(
  incoming: Incoming,
  ctx: ServerContext,
  requestId: string,
  emptyIsObject: boolean,
): Promise<{ ok: true; body: Record<string, unknown> } | { ok: false; out: Outgoing }> {
  let source = incoming;
  if (emptyIsObject) {
    const bytes = await incoming.readBody(ctx.maxBodyBytes);
    if (bytes instanceof Uint8Array && bytes.byteLength === 0) return { ok: true, body: {} };
    source = {
      method: incoming.method,
      path: incoming.path,
      header: (name) => incoming.header(name),
      readBody: async () => bytes,
    };
  }
  const read = await readJsonBody(source, ctx.maxBodyBytes);
  if (!read.ok) return { ok: false, out: failure(requestId, read.failure) };
  const value = read.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const message = `The body must be a JSON object; received ${show(value)}.`;
    return { ok: false, out: invalidAdminRequest(requestId, [{ path: "", code: "invalid_type", message }]) };
  }
  return { ok: true, body: value as Record<string, unknown> };
}
