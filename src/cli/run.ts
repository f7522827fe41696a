/**
 * The command line: picks the command, and turns a user's mistake into a message and exit code 2.
 */

import { didYouMean, nearestNames } from "./args.js";
import { runCheck } from "./check.js";
import { runConformanceCommand } from "./conformance.js";
import { runDiff } from "./diff.js";
import { type CliIo, EXIT, InputError, UsageError } from "./io.js";
import { runModels } from "./models.js";
import { packageVersion } from "./packageFiles.js";
import { runPlayground } from "./playground.js";
import { runQuote } from "./quote.js";
import { runSchema } from "./schema.js";
import { runServe } from "./serve.js";

/** `--help` text of the whole tool. */
export const HELP = `Usage: imagegen-pricing <command> [options]

Validates and prices image-generation requests exactly, as the service charges them.

Commands:
  quote    price one output image and show the breakdown
           imagegen-pricing quote --model beta2 --resolution 4K --multiplier 1.15
  check    normalize, validate and price a request body from a file or - (standard input)
           imagegen-pricing check request.json
  models   list what each model accepts, as tables
  schema   print the JSON Schema of a request (of one model with --model)
  diff     list what changed between two catalogs (prices, limits, accepted values, models)
           imagegen-pricing diff before.json after.json
  serve    run the reference server over HTTP, as a test double for any language
           imagegen-pricing serve --port 0 --fixtures fixtures.json --admin-token <token>
  playground
           serve the live price preview page on this machine, and print its address
  conformance  check a server of the service against the rule book, within a spend budget
           imagegen-pricing conformance http://127.0.0.1:8787 --key "$API_KEY" --budget 2000

Run "imagegen-pricing <command> --help" for a command's options. Every command takes --json for
output meant for programs (schema always prints JSON). quote, check, models and schema take
--at <instant> to use the catalog in force then, such as --at 2027-01-15. --version (or -v)
prints the version of the package.

Exit status: 0 done, 1 invalid, not priceable or (diff) different (serve: could not start),
2 bad arguments or files.
`;

const COMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  quote: runQuote,
  check: runCheck,
  models: runModels,
  schema: runSchema,
  diff: runDiff,
  serve: runServe,
  playground: runPlayground,
  conformance: runConformanceCommand,
};

/** parseArgs' own errors are about the command line, so they are usage errors too. */
function isParseArgsError(error: unknown): error is Error {
  const code: unknown =
    error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("ERR_PARSE_ARGS");
}

/**
 * Runs the command line on the arguments after the program name, to its exit code; never throws for
 * a user's mistake.
 */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    const topic = command === "help" ? rest[0] : undefined;
    if (topic !== undefined && Object.hasOwn(COMMANDS, topic)) {
      return run([topic, "--help"], io);
    }
    (command === undefined ? io.err : io.out)(HELP);
    return command === undefined ? EXIT.usage : EXIT.ok;
  }
  if (command === "--version" || command === "-v") {
    io.out(`${packageVersion()}\n`);
    return EXIT.ok;
  }
  const handler = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  if (!handler) {
    const near = nearestNames(command.replace(/^-+/, ""), Object.keys(COMMANDS));
    const hint = near.length > 0 ? ` ${didYouMean(near).replace(/^d/, "D")}` : "";
    io.err(
      `Unknown command "${command}".${hint} Commands: ` +
        `${Object.keys(COMMANDS).join(", ")}.\nRun "imagegen-pricing --help" for usage.\n`,
    );
    return EXIT.usage;
  }
  try {
    return await handler(rest, io);
  } catch (error) {
    if (error instanceof InputError) {
      io.err(`${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.err(`${error.message}\nRun "imagegen-pricing ${command} --help" for usage.\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
