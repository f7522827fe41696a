/**
 * The `conformance` command: holds a server of the service to the rule book, within a spend budget.
 */
import { writeFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  ConformanceError,
  type ConformanceOptions,
  formatReport,
  runConformance,
  toJUnit,
} from "../conformance/index.js";
import { wholeNumber } from "./args.js";
import { type CliIo, EXIT, InputError, UsageError } from "./io.js";

/** `--help` text of `conformance`. */
export const CONFORMANCE_HELP = `\
Usage: imagegen-pricing conformance <baseUrl> --key <apiKey> [options]

Checks a server of the image generation service against the rule book: every price cell through
free quotes, every request rule through requests that must be refused (each checked to charge
nothing), auth, ping, credits and error bodies; with a budget, charged creates, replays and
references; with an admin token, refunds and the ledger.

Options:
      --key <apiKey>          the API key of the account to check (default: IMAGEGEN_API_KEY)
      --budget <credits>      the most credits the run may spend (default: 0, free checks only)
      --multiplier <m>        the account's multiplier (default: inferred from free quotes)
      --assets <id,id,...>    asset ids this key may use as references
      --admin-token <t>       the reference server's admin token: refunds and the ledger
      --admin-url <url>       where the admin API is (default: <baseUrl>)
      --profile <p>           interface (default): only what the interface states;
                              reference: this package's own decisions too
      --rules <ids>           rule ids or families to check, such as N2,P4 or P,S (default: all)
      --seed <n>              seed of the generated cases (default: 1)
      --runs <n>              how many generated cases (default: 25)
      --json <file>           write the report as JSON
      --junit <file>          write the report as JUnit XML, one testcase per rule
      --concurrency <n>       most free requests in flight (default: 4)
      --timeout-ms <n>        how long to wait for one answer (default: 10000)
  -h, --help                  show this help

Exit status: 0 no rule failed, 1 at least one rule failed, 2 could not run (bad arguments, the
server unreachable, the key refused by GET /api/ping).

Example:
  imagegen-pricing conformance http://127.0.0.1:8787 --key "$API_KEY" --budget 2000 \
--junit conformance.xml
`;

/** Runs `conformance`: prints a table by rule and each failure, writes the files asked for. */
export async function runConformanceCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      key: { type: "string" },
      budget: { type: "string" },
      multiplier: { type: "string" },
      assets: { type: "string" },
      "admin-token": { type: "string" },
      "admin-url": { type: "string" },
      profile: { type: "string" },
      rules: { type: "string" },
      seed: { type: "string" },
      runs: { type: "string" },
      json: { type: "string" },
      junit: { type: "string" },
      concurrency: { type: "string" },
      "timeout-ms": { type: "string" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    io.out(CONFORMANCE_HELP);
    return EXIT.ok;
  }
  const [baseUrl, ...extra] = positionals;
  if (baseUrl === undefined || extra.length > 0) {
    throw new UsageError("conformance needs exactly one <baseUrl>, such as http://127.0.0.1:8787.");
  }
  const key = values.key ?? process.env.IMAGEGEN_API_KEY;
  if (key === undefined || key.trim() === "") {
    throw new UsageError("conformance needs --key <apiKey> (or IMAGEGEN_API_KEY).");
  }
  const profile = values.profile ?? "interface";
  if (profile !== "interface" && profile !== "reference") {
    throw new UsageError(`--profile must be interface or reference; received "${profile}".`);
  }
  const list = (text: string | undefined) =>
    text === undefined
      ? undefined
      : text
          .split(",")
          .map((s) => s.trim())
          .filter((s) => s !== "");
  const number = (name: string, text: string | undefined, min: number) =>
    text === undefined ? undefined : wholeNumber(name, text, min);
  const options: ConformanceOptions = { baseUrl, key, profile };
  const set = <K extends keyof ConformanceOptions>(
    name: K,
    value: ConformanceOptions[K] | undefined,
  ) => {
    if (value !== undefined) {
      options[name] = value;
    }
  };
  set("budget", number("--budget", values.budget, 0));
  set("multiplier", values.multiplier);
  set("assets", list(values.assets));
  set("adminToken", values["admin-token"]);
  set("adminUrl", values["admin-url"]);
  set("rules", list(values.rules));
  set("seed", number("--seed", values.seed, 0));
  set("runs", number("--runs", values.runs, 0));
  set("concurrency", number("--concurrency", values.concurrency, 1));
  set("timeoutMs", number("--timeout-ms", values["timeout-ms"], 1));
  let report: Awaited<ReturnType<typeof runConformance>>;
  try {
    report = await runConformance(options);
  } catch (error) {
    if (error instanceof ConformanceError) {
      // One line, and never the key: the kit's messages do not hold it, and this masks it anyway.
      throw new InputError(`conformance: ${error.message.replaceAll(key, "***")}`);
    }
    throw error;
  }
  io.out(formatReport(report));
  if (values.json !== undefined) {
    await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`, "utf8");
  }
  if (values.junit !== undefined) {
    await writeFile(values.junit, toJUnit(report), "utf8");
  }
  return report.ok ? EXIT.ok : EXIT.invalid;
}
