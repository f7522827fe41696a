/** The `quote` command: the price of one output image with its breakdown, or why it has none. */
import { capabilities, type QuoteSpec, quote } from "../index.js";
import { LIMITS } from "../models/lists.js";
import { accountOption, CATALOG_OPTIONS, catalogForAt, parseOptions, wholeNumber } from "./args.js";
import { breakdownLines, credits } from "./format.js";
import { type CliIo, EXIT, UsageError } from "./io.js";

/** `--help` text of `quote`. */
export const QUOTE_HELP = `Usage: imagegen-pricing quote --model <id> [options]

Prices one output image (and, with --images, a whole request) the way the service charges it.

Options:
  -m, --model <id>          model id (required; see "imagegen-pricing models")
  -r, --resolution <tier>   1K, 2K or 4K (default: the model's default)
  -q, --quality <level>     low, medium or high (default: low)
      --refs <n>            distinct reference images (default: 0)
      --multiplier <m>      the account's multiplier, a plain decimal such as 1.15 (default: 1)
  -n, --images <n>          output images, for the total (default: 1)
      --at <instant>        price with the catalog in force then (P8): a date such as 2027-01-15
                            (00:00 UTC), a date-time with Z or an offset, or "now"
                            (default: the newest catalog shipped)
      --json                print the quote as JSON
  -h, --help                show this help

Exit status: 0 priced, 1 not priceable (the reason is printed), 2 bad arguments.

Example:
  imagegen-pricing quote --model beta2 --resolution 4K --quality low --refs 0 --multiplier 1.15
  imagegen-pricing quote --model beta2 --resolution 4K --at 2027-01-15
`;

/** The flag of each field of a spec, so that a reason names what the user typed. */
const FLAGS: Record<string, string> = {
  modelId: "--model",
  resolution: "--resolution",
  quality: "--quality",
  referenceImageCount: "--refs",
};

/** The request-wide bound on distinct reference images, as a reason states it. */
const MOST_REFERENCES = `${LIMITS.maxReferences} is the most distinct reference images`;

/** Why a reference count has its bound, for the reasons that are about one. */
const BOUNDS: Record<string, string> = {
  invalid_reference_count: `${MOST_REFERENCES} a request may list.`,
  too_many_references: "That is the most reference images this model takes.",
};

/**
 * A reason of quote() in the command line's words: the flag for the field it names first, and why
 * its bound is what it is.
 */
function inFlags(message: string, reason: string): string {
  const flagged = message.replace(
    /^(modelId|resolution|quality|referenceImageCount)\b/,
    (field) => FLAGS[field] ?? field,
  );
  return Object.hasOwn(BOUNDS, reason) ? `${flagged} ${BOUNDS[reason]}` : flagged;
}

/** Runs `quote`: prints the price of one output image with its breakdown, or why it has none. */
export async function runQuote(args: string[], io: CliIo): Promise<number> {
  const { values } = parseOptions({
    args,
    options: {
      model: { type: "string", short: "m" },
      resolution: { type: "string", short: "r" },
      quality: { type: "string", short: "q" },
      refs: { type: "string" },
      multiplier: { type: "string" },
      images: { type: "string", short: "n" },
      ...CATALOG_OPTIONS,
    },
  });
  if (values.help) {
    io.out(QUOTE_HELP);
    return EXIT.ok;
  }
  if (values.model === undefined) {
    throw new UsageError("quote needs --model <id>.");
  }
  const catalog = catalogForAt(values.at, io);
  const images = values.images === undefined ? 1 : wholeNumber("--images", values.images, 1);
  const spec = {
    kind: "image" as const,
    modelId: values.model,
    ...(values.resolution !== undefined && { resolution: values.resolution }),
    ...(values.quality !== undefined && { quality: values.quality }),
    ...(values.refs !== undefined && {
      referenceImageCount: wholeNumber("--refs", values.refs, 0),
    }),
  };
  // The flags' strings as given: quote judges them, answering credits: null for what it cannot
  // price.
  const result = quote(spec as QuoteSpec, { account: accountOption(values.multiplier), catalog });

  if (result.credits === null) {
    if (values.json) {
      io.out(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      io.err(`Not priceable: ${inFlags(result.message, result.reason)} [${result.reason}]\n`);
    }
    return EXIT.invalid;
  }
  const total = result.credits * images; // the sum of `images` equal rounded lines (P5)
  if (values.json) {
    io.out(`${JSON.stringify({ ...result, imageCount: images, totalCredits: total }, null, 2)}\n`);
    return EXIT.ok;
  }
  const b = result.breakdown;
  const surcharge = capabilities(b.modelId, { catalog })?.referenceSurchargeCredits ?? 0;
  const lines = [
    `${b.modelId}, ${b.resolution}, quality ${b.quality}: ${credits(result.credits)} per image`,
    breakdownLines(b, surcharge),
  ];
  if (images !== 1) {
    lines.push(`total for ${images} images: ${credits(total)} (${images} x ${result.credits})`);
  }
  lines.push(`prices of ${result.catalogVersion}`);
  io.out(`${lines.join("\n")}\n`);
  return EXIT.ok;
}
