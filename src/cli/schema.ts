import { parseArgs } from "node:util";
import { modelRequestJsonSchema, requestJsonSchema } from "../jsonSchema.js";
import { type CliIo, EXIT, UsageError } from "./io.js";

/** `--help` text of `schema`. */
export const SCHEMA_HELP = `Usage: imagegen-pricing schema [--model <id>]

Prints the JSON Schema (draft-07) of a generation request: of any model, or, with --model, only
what that model accepts (its ratios, resolutions, qualities, backgrounds and limits).

Options:
  -m, --model <id>   the model to describe
  -h, --help         show this help
`;

/**
 * Runs `schema`: prints a JSON Schema of a generation request.
 *
 * @param args - The arguments after `schema`.
 * @param io - Where to write.
 * @returns The exit code.
 */
export async function runSchema(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { model: { type: "string", short: "m" }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.out(SCHEMA_HELP);
    return EXIT.ok;
  }
  const schema = values.model === undefined ? requestJsonSchema() : modelRequestJsonSchema(values.model.trim());
  if (!schema)
    throw new UsageError(`--model "${values.model}" is not a known model; run "imagegen-pricing models" to list them.`);
  io.out(`${JSON.stringify(schema, null, 2)}\n`);
  return EXIT.ok;
}
