/**
 * With the reference server's admin token: refunds exactly once (S6), no retroactive charge (S7),
 * the ledger adds up (S13), and a foreign asset refused like an unknown one (S2).
 */
import type { ChargedState } from "./charged.js";
import { type Answer, errorCode, field, isRefusal } from "./http.js";
import type { Run } from "./run.js";

/** Sends an admin request with the admin token. */
function admin(run: Run, method: string, path: string, body?: unknown): Promise<Answer> {
  return run.send({
    method,
    path,
    origin: run.settings.adminUrl,
    headers: { authorization: `Bearer ${run.settings.adminToken ?? ""}` },
    ...(body === undefined ? {} : { body }),
  });
}

/**
 * Runs the admin checks, or skips them without a token.
 *
 * @param run - The run.
 * @param state - What the charged checks created.
 */
export async function checkAdmin(run: Run, state: ChargedState): Promise<void> {
  if (run.settings.adminToken === undefined) {
    for (const rule of ["S2", "S6", "S7", "S8", "S13"]) {
      run.skip(rule, "needs the reference server's admin API (--admin-token)");
    }
    return;
  }
  await stored(run, state);
  await refunds(run, state);
  await foreignAsset(run);
  await ledger(run);
}

/**
 * S8: the first accepted task is stored with its settings, per-job charges and normalized request.
 */
async function stored(run: Run, state: ChargedState): Promise<void> {
  const task = state.created[0];
  const jobId = task?.jobIds[0];
  if (!run.wants("S8") || !task || jobId === undefined) {
    return;
  }
  const job = await admin(run, "GET", `/admin/jobs/${encodeURIComponent(jobId)}`);
  const taskId = field(job.json, "taskId");
  if (job.status !== 200 || typeof taskId !== "string") {
    run.skip("S8", "the admin API shows no job's task");
    return;
  }
  const view = await admin(run, "GET", `/admin/tasks/${encodeURIComponent(taskId)}`);
  const { idempotencyKey: _key, ...request } = task.request;
  const storedRequest = field(view.json, "request");
  const problems: string[] = [];
  for (const name of ["aspectRatio", "resolution", "quality", "background"] as const) {
    if (field(view.json, name) !== task.request[name]) {
      problems.push(`${name} is ${JSON.stringify(field(view.json, name))}`);
    }
  }
  for (const [name, value] of Object.entries(request)) {
    if (JSON.stringify(field(storedRequest, name)) !== JSON.stringify(value)) {
      problems.push(`request.${name} is ${JSON.stringify(field(storedRequest, name))}`);
    }
  }
  const jobs = field(view.json, "jobs");
  const charges = Array.isArray(jobs) ? jobs.map((j) => field(j, "credits")) : [];
  if (charges.length !== task.jobIds.length || charges.some((c) => c !== task.perOutput)) {
    problems.push(`the jobs' charges are ${JSON.stringify(charges)}`);
  }
  if (view.status === 200 && problems.length === 0) {
    run.pass("S8");
  } else {
    run.fail("S8", {
      message: `Task ${taskId} as stored: ${problems.join("; ") || `status ${view.status}`}.`,
      expected: { ...request, jobCredits: task.jobIds.map(() => task.perOutput) },
      actual: view.json ?? view.status,
      answer: view,
    });
  }
}

/** S6, S7: failing a job refunds its stored charge once, even after the multiplier changed. */
async function refunds(run: Run, state: ChargedState): Promise<void> {
  const task = state.multiJob;
  if (!task || task.jobIds.length < 2) {
    for (const rule of ["S6", "S7"]) {
      run.skip(rule, "no create with two jobs was accepted (budget or an earlier failure)");
    }
    return;
  }
  const [first, second] = task.jobIds as [string, string];
  if (run.wants("S6")) {
    const start = run.lastBalance;
    const fail = await admin(run, "POST", `/admin/jobs/${encodeURIComponent(first)}/fail`);
    const refunded = field(fail.json, "refundedCredits");
    const balance = await run.balance();
    const again = await admin(run, "POST", `/admin/jobs/${encodeURIComponent(first)}/fail`);
    const second_ = field(again.json, "refundedCredits");
    const after = await run.balance();
    if (balance === undefined || after === undefined) {
      return;
    }
    const rise = balance - run.lastBalance;
    run.lastBalance = after;
    run.confirmed -= after - start;
    const right =
      fail.status === 200 &&
      refunded === task.perOutput &&
      rise === task.perOutput &&
      again.status === 200 &&
      second_ === 0 &&
      after === balance;
    if (right) {
      run.pass("S6", 2);
    } else {
      run.fail("S6", {
        message:
          `Failing job ${first} refunds its charge (${task.perOutput}) once; failing it ` +
          "again refunds nothing.",
        expected: { refundedCredits: [task.perOutput, 0], balanceRise: [task.perOutput, 0] },
        actual: {
          status: [fail.status, again.status],
          refundedCredits: [refunded, second_],
          balanceRise: [rise, after - balance],
        },
        answer: fail,
      });
    }
  }
  if (run.wants("S7")) {
    const user = await admin(run, "GET", `/admin/users/${encodeURIComponent(run.userId)}`);
    const multiplier = field(user.json, "multiplier");
    if (user.status !== 200 || (typeof multiplier !== "string" && typeof multiplier !== "number")) {
      run.skip("S7", "the admin API gives no multiplier for the user");
      return;
    }
    const changed = await admin(
      run,
      "PUT",
      `/admin/users/${encodeURIComponent(run.userId)}/multiplier`,
      { multiplier: "3" },
    );
    const fail = await admin(run, "POST", `/admin/jobs/${encodeURIComponent(second)}/fail`);
    await admin(run, "PUT", `/admin/users/${encodeURIComponent(run.userId)}/multiplier`, {
      multiplier,
    });
    const refunded = field(fail.json, "refundedCredits");
    const balance = await run.balance();
    if (balance === undefined) {
      return;
    }
    const rise = balance - run.lastBalance;
    run.lastBalance = balance;
    run.confirmed -= rise;
    if (changed.status === 200 && refunded === task.perOutput && rise === task.perOutput) {
      run.pass("S7");
    } else {
      run.fail("S7", {
        message:
          `After the multiplier changed, failing job ${second} refunds what it was charged ` +
          `(${task.perOutput}).`,
        expected: task.perOutput,
        actual: { refundedCredits: refunded, balanceRise: rise },
        answer: fail,
      });
    }
  }
}

/** S2: another user's asset gets the error of an unknown one, and charges nothing. */
async function foreignAsset(run: Run): Promise<void> {
  if (!run.wants("S2") || run.stopped) {
    return;
  }
  const other = await admin(run, "POST", "/admin/users", { credits: 0 });
  const otherId = field(other.json, "userId");
  const asset =
    typeof otherId === "string"
      ? await admin(run, "POST", `/admin/users/${encodeURIComponent(otherId)}/assets`)
      : undefined;
  const assetId = field(asset?.json, "assetId");
  if (typeof assetId !== "string") {
    run.skip("S2", "the admin API made no second user's asset");
    return;
  }
  const body = {
    prompt: "a conformance check",
    modelId: "alpha-img2-official",
    resolution: "1K",
    generationType: "image-to-image",
    inputAssetIds: [assetId],
  };
  const answer = await run.send({ method: "POST", path: "/api/generations", body });
  const free = await run.expectFree("S2", answer);
  const right = run.reference
    ? answer.status === 400 &&
      errorCode(answer) === "asset_not_found" &&
      field(field(answer.json, "error"), "param") === "inputAssetIds[0]"
    : isRefusal(answer);
  if (right && free) {
    run.pass("S2");
  } else if (!right) {
    if (answer.status >= 200 && answer.status < 300) {
      run.stop("another user's asset was accepted (S2)");
    }
    run.fail("S2", {
      message: "Another user's asset is refused like an unknown one.",
      expected: run.reference
        ? { status: 400, code: "asset_not_found", param: "inputAssetIds[0]" }
        : "a refusal",
      actual: { status: answer.status, code: errorCode(answer) },
      answer,
    });
  }
}

/** S13: grants - debits + refunds = the balance. */
async function ledger(run: Run): Promise<void> {
  if (!run.wants("S13")) {
    return;
  }
  const answer = await admin(run, "GET", `/admin/users/${encodeURIComponent(run.userId)}/ledger`);
  const entries = field(answer.json, "entries");
  const balance = await run.balance();
  if (!Array.isArray(entries) || balance === undefined) {
    run.fail("S13", {
      message: "The admin API gives no ledger for the user.",
      expected: "200 { entries }",
      actual: { status: answer.status },
      answer,
    });
    return;
  }
  run.lastBalance = balance;
  let sum = 0;
  for (const entry of entries) {
    const credits = Number(field(entry, "credits"));
    const kind = field(entry, "kind");
    sum += kind === "debit" ? -credits : credits;
  }
  if (sum === balance) {
    run.pass("S13");
  } else {
    run.fail("S13", {
      message: `The ledger's grants - debits + refunds is ${sum}; the balance is ${balance}.`,
      expected: balance,
      actual: sum,
      answer,
    });
  }
}
