/**
 * The test-double controls of the admin API (S17): faults on the service's requests and the
 * request journal, as admin methods and as routes under `/admin/`. Only with an admin token.
 */
import { safeEcho } from "../../echo.js";
import type { Issue } from "../../types.js";
import type { Endpoint, RouteTable } from "../context.js";
import { checkFault, FAULT_LIMITS, type FaultList } from "../faults.js";
import { readJsonBody } from "../http/body.js";
import { failure, json, type Outgoing } from "../http/respond.js";
import { DEFAULT_JOURNAL_LIMIT, JOURNAL_CAPACITY, type Journal } from "../journal.js";
import { serverMessages as m } from "../messages.js";
import { type Admin, AdminError } from "./methods.js";
import { adminFailure } from "./token.js";

/** The state of the controls: a server's faults and its journal. */
type Controls = { readonly faults: FaultList; readonly journal: Journal };

/** The admin methods of the controls. */
type ControlMethods = Pick<Admin, "addFault" | "faults" | "removeFault" | "clearFaults" | "requests">;

/** Checks a journal limit: a whole number from 1 to {@link JOURNAL_CAPACITY}. */
function limitIssue(limit: unknown): Issue | undefined {
  if (typeof limit === "number" && Number.isInteger(limit) && limit >= 1 && limit <= JOURNAL_CAPACITY) return undefined;
  const shown = typeof limit === "string" ? `"${safeEcho(limit, 20)}"` : safeEcho(String(limit), 20);
  return {
    path: "limit",
    code: "invalid_limit",
    message: m.journalLimit(JOURNAL_CAPACITY, DEFAULT_JOURNAL_LIMIT, shown),
  };
}

const tooManyFaults = () =>
  `At most ${FAULT_LIMITS.maxFaults} faults wait at once; remove some first (DELETE /admin/faults, admin.clearFaults()).`;

/**
 * The admin methods of the controls; without an admin token each rejects with `controls_off`.
 *
 * @param controls - The server's faults and journal, when it has an admin token.
 * @returns The methods.
 * @internal
 */
export function faultMethods(controls: Controls | undefined): ControlMethods {
  const on = (): Controls => {
    if (!controls) {
      throw new AdminError(
        "controls_off",
        "Faults and the request journal need an admin token: createReferenceServer({ adminToken }) or serve --admin-token.",
      );
    }
    return controls;
  };
  return {
    async addFault(input) {
      const { faults } = on();
      const checked = checkFault(input);
      if (!checked.ok) throw new AdminError("invalid_fault", checked.issues.map((i) => i.message).join(" "));
      const view = faults.add(checked.fault);
      if (!view) throw new AdminError("invalid_fault", tooManyFaults());
      return { faultId: view.faultId };
    },
    async faults() {
      return on().faults.list();
    },
    async removeFault(faultId) {
      if (!on().faults.remove(faultId)) throw new AdminError("unknown_fault", m.unknown("fault", faultId));
    },
    async clearFaults() {
      return { removed: on().faults.clear() };
    },
    async requests(options) {
      const { journal } = on();
      const limit = options?.limit ?? DEFAULT_JOURNAL_LIMIT;
      const issue = limitIssue(limit);
      if (issue) throw new AdminError("invalid_limit", issue.message);
      return journal.list(limit);
    },
  };
}

const invalid = (requestId: string, issues: Issue[]): Outgoing =>
  adminFailure(requestId, "invalid_request", m.invalidRequest(issues), { param: issues[0]?.path ?? "", issues });

/**
 * The routes of the controls, under `/admin/`: `POST`, `GET` and `DELETE /admin/faults`,
 * `DELETE /admin/faults/{faultId}` and `GET /admin/requests?limit=N`.
 *
 * @param admin - The server's admin methods (asked for at request time).
 * @returns The routes, to mount with the admin API's.
 * @internal
 */
export function faultRoutes(admin: () => Admin): RouteTable {
  const addFault: Endpoint = {
    method: "POST",
    answer: async (incoming, ctx, requestId) => {
      const read = await readJsonBody(incoming, ctx.maxBodyBytes);
      if (!read.ok) return failure(requestId, read.failure);
      const checked = checkFault(read.value);
      if (!checked.ok) return invalid(requestId, checked.issues);
      try {
        return json(201, await admin().addFault(checked.fault), requestId);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return invalid(requestId, [{ path: "", code: "too_many_faults", message: error.message }]);
      }
    },
  };
  const listFaults: Endpoint = {
    method: "GET",
    answer: async (_incoming, _ctx, requestId) => json(200, { faults: await admin().faults() }, requestId),
  };
  const clearFaults: Endpoint = {
    method: "DELETE",
    answer: async (_incoming, _ctx, requestId) => json(200, await admin().clearFaults(), requestId),
  };
  const removeFault: Endpoint = {
    method: "DELETE",
    answer: async (_incoming, _ctx, requestId, [faultId = ""]) => {
      try {
        await admin().removeFault(faultId);
      } catch (error) {
        if (!(error instanceof AdminError)) throw error;
        return adminFailure(requestId, "unknown_fault", error.message);
      }
      return json(200, { faultId }, requestId);
    },
  };
  const requests: Endpoint = {
    method: "GET",
    answer: async (incoming, _ctx, requestId) => {
      const params = new URLSearchParams(incoming.query ?? "");
      const given = params.getAll("limit");
      let limit: number = DEFAULT_JOURNAL_LIMIT;
      if (given.length > 0) {
        const text = given.length === 1 ? (given[0] as string) : given.join(",");
        const issue = limitIssue(/^[0-9]{1,7}$/.test(text) ? Number(text) : text);
        if (issue) return invalid(requestId, [issue]);
        limit = Number(text);
      }
      return json(200, { requests: await admin().requests({ limit }) }, requestId);
    },
  };
  return [
    ["/admin/faults", addFault],
    ["/admin/faults", listFaults],
    ["/admin/faults", clearFaults],
    ["/admin/faults/:id", removeFault],
    ["/admin/requests", requests],
  ];
}
