/** The `schema` command: the JSON Schema of a generation request, of any model or of one. */
import { modelRequestJsonSchema, requestJsonSchema } from "../jsonSchema.js";
import { CATALOG_OPTIONS, catalogForAt, parseOptions } from "./args.js";
import { type CliIo, EXIT, UsageError } from "./io.js";

/** `--help` text of `schema`. */
export const SCHEMA_HELP = `Usage: imagegen-pricing schema [--model <id>] [--at <instant>]

Prints the JSON Schema (draft-07) of a generation request: of any model, or, with --model, only
what that model accepts (its ratios, resolutions, qualities, backgrounds and limits). The output is
always JSON; --json is accepted for symmetry with the other commands.

Options:
  -m, --model <id>     the model to describe
      --at <instant>   describe the catalog in force then (P8): a date such as 2027-01-15 (00:00
                       UTC), a date-time with Z or an offset, or "now" (default: the newest catalog)
      --json           print JSON (always the case)
  -h, --help           show this help
`;

/** Runs `schema`: prints a JSON Schema of a generation request. */
export async function runSchema(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({
    args,
    options: { model: { type: "string", short: "m" }, ...CATALOG_OPTIONS },
  });
  if (values.help) {
    io.out(SCHEMA_HELP);
    return EXIT.ok;
  }
  const catalog = catalogForAt(values.at, io);
  const schema =
    values.model === undefined
      ? requestJsonSchema(catalog)
      : modelRequestJsonSchema(values.model.trim(), catalog);
  if (!schema) {
    throw new UsageError(
      `--model "${values.model}" is not a known model; run "imagegen-pricing models" to list them.`,
    );
  }
  io.out(`${JSON.stringify(schema, null, 2)}\n`);
  return EXIT.ok;
}
