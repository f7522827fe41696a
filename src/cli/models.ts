/** The `models` command: what each model of a catalog accepts, as two tables or JSON. */
import { capabilities } from "../index.js";
import { CATALOG_OPTIONS, catalogForAt, parseOptions } from "./args.js";
import { table } from "./format.js";
import { type CliIo, EXIT } from "./io.js";

/** The widest line `models` prints, so the tables read in a terminal of 100 columns. */
export const MODELS_WIDTH = 100;

/** `--help` text of `models`. */
export const MODELS_HELP = `Usage: imagegen-pricing models [--at <instant>] [--json]

Prints what each model accepts, read from the catalog: resolutions (* marks the default; "no
default" means the request must name it), qualities, backgrounds and the output format; then the
most output images and reference images, the surcharge per reference image, and the aspect ratios.

Options:
      --at <instant>   the catalog in force then (P8): a date such as 2027-01-15 (00:00 UTC), a
                       date-time with Z or an offset, or "now" (default: the newest catalog)
      --json           print the capabilities of every model as JSON
  -h, --help           show this help
`;

const marked = (values: readonly string[], fallback: string | null) =>
  values.map((v) => (v === fallback ? `${v}*` : v)).join(",");

/** Runs `models`: two tables (or JSON) of every model's capabilities. */
export async function runModels(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({ args, options: CATALOG_OPTIONS });
  if (values.help) {
    io.out(MODELS_HELP);
    return EXIT.ok;
  }
  const catalog = catalogForAt(values.at, io);
  const all = Object.keys(catalog.models).flatMap((id) => capabilities(id, { catalog }) ?? []);
  if (values.json) {
    io.out(`${JSON.stringify(all, null, 2)}\n`);
    return EXIT.ok;
  }
  const options = all.map((c) => [
    c.modelId,
    marked(c.resolutions, c.defaultResolution) +
      (c.defaultResolution === null ? " (no default)" : ""),
    marked(c.qualities, "low"),
    marked(c.backgrounds, "auto"),
    c.outputFormat ?? "-",
  ]);
  const limits = all.map((c) => [
    c.modelId,
    String(c.maxImageCount),
    String(c.maxReferenceImages),
    String(c.referenceSurchargeCredits),
    marked(c.aspectRatios, c.defaultAspectRatio),
  ]);
  io.out(
    `${[
      table(["model", "resolutions", "qualities", "backgrounds", "output"], options, MODELS_WIDTH),
      "",
      table(["model", "images", "refs", "+/ref", "aspect ratios"], limits, MODELS_WIDTH),
      "",
      "* default. images: most output images; refs: most reference images;",
      "+/ref: credits added per reference image, per output image.",
      `Catalog ${catalog.version}.`,
    ].join("\n")}\n`,
  );
  return EXIT.ok;
}
