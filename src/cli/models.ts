import { parseArgs } from "node:util";
import { type Capabilities, capabilities, catalog } from "../index.js";
import { table } from "./format.js";
import { type CliIo, EXIT } from "./io.js";

/** `--help` text of `models`. */
export const MODELS_HELP = `Usage: imagegen-pricing models [--json]

Prints what each model accepts, read from the catalog: ratios, resolutions (* marks the default;
"no default" means the request must name it), qualities, backgrounds, the most output images and
reference images, the surcharge per reference image, and the output format.

Options:
      --json    print the capabilities of every model as JSON
  -h, --help    show this help
`;

const marked = (values: readonly string[], fallback: string | null) =>
  values.map((v) => (v === fallback ? `${v}*` : v)).join(",");

/**
 * Runs `models`: a table (or JSON) of every model's capabilities.
 *
 * @param args - The arguments after `models`.
 * @param io - Where to write.
 * @returns The exit code.
 */
export async function runModels(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { json: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
  });
  if (values.help) {
    io.out(MODELS_HELP);
    return EXIT.ok;
  }
  const all = Object.keys(catalog.models)
    .map((id) => capabilities(id))
    .filter((c): c is Capabilities => c !== undefined);
  if (values.json) {
    io.out(`${JSON.stringify(all, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows = all.map((c) => [
    c.modelId,
    marked(c.aspectRatios, c.defaultAspectRatio),
    `${marked(c.resolutions, c.defaultResolution)}${c.defaultResolution === null ? " (no default)" : ""}`,
    marked(c.qualities, "low"),
    marked(c.backgrounds, "auto"),
    String(c.maxImageCount),
    String(c.maxReferenceImages),
    String(c.referenceSurchargeCredits),
    c.outputFormat ?? "-",
  ]);
  const header = ["model", "aspect ratios", "resolutions", "qualities", "backgrounds", "images", "refs", "+/ref", "output"];
  io.out(
    `${table(header, rows)}\n* default. images: most output images; refs: most reference images; +/ref: credits added per reference image, per output image.\nPrices of ${catalog.version}.\n`,
  );
  return EXIT.ok;
}
