// Where the price preview shows each problem, and in which words. It imports nothing, so a page
// with other controls copies this file and edits the two tables.

/**
 * Issue path (from `checkRequest` or `computeCharge`) -> id of the control that sets that field.
 * The words the user reads come from that control's own <label>, so a renamed label renames its
 * errors too. A path into a field (`inputAssetIds[2]`) belongs to that field.
 */
export const FIELDS = {
  modelId: "model",
  generationType: "generationType",
  aspectRatio: "aspectRatio",
  resolution: "resolution",
  quality: "quality",
  background: "background",
  imageCount: "imageCount",
  inputAssetIds: "referenceCount",
  referenceCount: "referenceCount",
  "account.multiplier": "multiplier",
};

/**
 * The id of the control an issue belongs to, or `undefined` for an issue of the whole request
 * (path "", such as `not_priceable`), which the page shows without a control.
 *
 * @param {string} path - The issue's path.
 * @returns {string | undefined} The control's id.
 */
export function controlFor(path) {
  if (Object.hasOwn(FIELDS, path)) {
    return FIELDS[path];
  }
  const field = path.split(/[.[]/)[0] ?? "";
  return Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
}

const oneOf = (values) => `choose one of ${values.join(", ")}`;

/**
 * What each issue code asks of the user, said about the control (its label goes in front):
 * "Images" + "at most 4 for this model". `caps` is `capabilities(modelId)` of the chosen model.
 */
const BY_CODE = {
  too_many_images: (caps) => `at most ${caps.maxImageCount} for this model`,
  too_many_references: (caps) => `at most ${caps.maxReferenceImages} for this model`,
  references_required: () => "at least 1 with image-to-image",
  references_not_allowed: () => "none with text-to-image",
  invalid_multiplier: () => "a plain decimal from 0 to 1000, such as 1.15",
  resolution_required: (caps) => oneOf(caps.resolutions),
  unsupported_aspect_ratio: (caps) => `not offered by this model; ${oneOf(caps.aspectRatios)}`,
  unsupported_resolution: (caps) => `not offered by this model; ${oneOf(caps.resolutions)}`,
  unsupported_quality: (caps) => `not offered by this model; ${oneOf(caps.qualities)}`,
  unsupported_background: (caps) => `not offered by this model; ${oneOf(caps.backgrounds)}`,
};

/** What a control accepts, for the codes BY_CODE does not name (a wrong type, too small, not whole). */
const BY_CONTROL = {
  imageCount: (caps) => `a whole number from 1 to ${caps.maxImageCount}`,
  referenceCount: (caps) => `a whole number from 1 to ${caps.maxReferenceImages}`,
  multiplier: () => BY_CODE.invalid_multiplier(),
};

/**
 * The sentence a user reads for an issue on a control: "Images: at most 4 for this model". An
 * issue this file has no words for keeps the core's own message after the label.
 *
 * @param {{ path: string; code: string; message: string }} issue - From `checkRequest` or `computeCharge`.
 * @param {string} label - The text of the control's <label>.
 * @param {ReturnType<typeof import("imagegen-pricing").capabilities>} caps - The chosen model's capabilities.
 * @returns {string} The sentence, without a final period.
 */
export function sentence(issue, label, caps) {
  const control = controlFor(issue.path);
  const say = caps && (BY_CODE[issue.code] ?? (control && BY_CONTROL[control]));
  return `${label}: ${say ? say(caps) : issue.message.replace(/\.$/, "")}`;
}
