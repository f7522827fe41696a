/** The `check` command: a request body normalized, validated and priced, or every issue it has. */
import {
  type Charge,
  capabilities,
  checkRequest,
  InvalidRequestError,
  type Issue,
} from "../index.js";
import { priceValidated } from "../pricing/computeCharge.js";
import { accountOption, CATALOG_OPTIONS, catalogForAt, parseOptions, wholeNumber } from "./args.js";
import { breakdownLines, credits, issueLines } from "./format.js";
import { type CliIo, EXIT, readJson, UsageError } from "./io.js";

/** `--help` text of `check`. */
export const CHECK_HELP = `Usage: imagegen-pricing check <request.json | -> [options]

Normalizes, validates and prices a generation request body (the JSON of POST /api/generations),
read from a file or, with "-", from standard input. Prints every issue, or the exact charge.

Options:
      --multiplier <m>   the account's price multiplier, a plain decimal such as 1.15 (default: 1)
      --refs <n>         authorized reference images to charge, at most the distinct inputAssetIds
                         (default: all of them)
      --at <instant>     check and price with the catalog in force then (P8): a date such as
                         2027-01-15 (00:00 UTC), a date-time with Z or an offset, or "now"
                         (default: the newest catalog shipped)
      --json             print the result as JSON: { valid, request, charge } or { valid, issues }
  -h, --help             show this help

Exit status: 0 valid (the charge is printed), 1 invalid (the issues are printed), 2 bad arguments,
or a file that cannot be read or is not JSON (one line on standard error says why).

Example:
  echo '{"prompt":"a red fox","modelId":"beta2","imageCount":2}' | imagegen-pricing check -
`;

/** Runs `check`: reads a request body, then normalizes, validates and charges it. */
export async function runCheck(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: { multiplier: { type: "string" }, refs: { type: "string" }, ...CATALOG_OPTIONS },
  });
  if (values.help) {
    io.out(CHECK_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw new UsageError("check needs exactly one file name, or - for standard input.");
  }
  const account = accountOption(values.multiplier);
  const refs = values.refs === undefined ? undefined : wholeNumber("--refs", values.refs, 0);
  const catalog = catalogForAt(values.at, io);
  const source = positionals[0] as string;

  const body = await readJson(source, io, UsageError);

  const checked = checkRequest(body, { catalog });
  if (!checked.success) {
    return report(io, values.json, checked.issues);
  }
  let charge: Charge;
  try {
    charge = priceValidated(checked.output, {
      ...(account !== undefined && { account }),
      ...(refs !== undefined && { referenceCount: refs }),
      catalog,
    });
  } catch (error) {
    // Only a --refs above the listed references gets here: the request itself passed.
    if (error instanceof InvalidRequestError) {
      const listed = checked.output.inputAssetIds.length;
      const issues = error.issues.map((issue) =>
        issue.path === "referenceCount"
          ? {
              ...issue,
              path: "--refs",
              message:
                `${refs} is more than the ${listed} distinct reference ` +
                `image${listed === 1 ? "" : "s"} the body lists in inputAssetIds: a charge ` +
                "counts only the references the request carries, so --refs may be 0 to " +
                `${listed}.`,
            }
          : issue,
      );
      return report(io, values.json, issues);
    }
    throw error;
  }

  const request = checked.output;
  if (values.json) {
    io.out(`${JSON.stringify({ valid: true, request, charge }, null, 2)}\n`);
    return EXIT.ok;
  }
  const surcharge = capabilities(charge.modelId, { catalog })?.referenceSurchargeCredits ?? 0;
  io.out(
    `${[
      `Valid. ${request.modelId}, ${request.generationType}, ${request.aspectRatio}, ` +
        `${request.resolution}, quality ${request.quality}, background ${request.background}`,
      `${credits(charge.perOutputCredits)} per image x ${charge.imageCount} = ` +
        credits(charge.totalCreditCost),
      breakdownLines(charge.breakdown, surcharge),
      `prices of ${charge.catalogVersion}`,
    ].join("\n")}\n`,
  );
  return EXIT.ok;
}

function report(io: CliIo, json: boolean | undefined, issues: Issue[]): number {
  if (json) {
    io.out(`${JSON.stringify({ valid: false, issues }, null, 2)}\n`);
  } else {
    io.out(
      `Invalid: ${issues.length} issue${issues.length === 1 ? "" : "s"}\n${issueLines(issues)}\n`,
    );
  }
  return EXIT.invalid;
}
