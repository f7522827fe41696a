// The live price preview. `./core.js` is the browser build of the package's core entry
// (src/index.ts bundled by esbuild), served by scripts/playground.ts; it is not committed.
import { capabilities, catalog, checkRequest, computeCharge, InvalidRequestError } from "./core.js";

const $ = (id) => /** @type {HTMLInputElement & HTMLSelectElement} */ (document.getElementById(id));
const form = $("spec");

/** Replaces a select's options, keeping the current value when the new list still has it. */
function offer(select, values, fallback) {
  const previous = select.value;
  select.replaceChildren(...values.map((value) => new Option(value, value)));
  select.value = values.includes(previous) ? previous : (fallback ?? values[0]);
  select.disabled = values.length < 2;
}

/** Sets every control to what the chosen model accepts (from `capabilities`). */
function applyModel() {
  const caps = capabilities($("model").value);
  if (!caps) return;
  offer($("generationType"), caps.generationTypes, "text-to-image");
  offer($("aspectRatio"), caps.aspectRatios, caps.defaultAspectRatio);
  // A model with no default resolution needs one named; the page always names it.
  offer($("resolution"), caps.resolutions, caps.defaultResolution ?? caps.resolutions[0]);
  offer($("quality"), caps.qualities, "low");
  offer($("background"), caps.backgrounds, "auto");
  const images = $("imageCount");
  images.max = String(caps.maxImageCount);
  if (Number(images.value) > caps.maxImageCount) images.value = String(caps.maxImageCount);
  applyGenerationType();
}

/** References exist only when editing: 1 to the model's limit for image-to-image, none otherwise. */
function applyGenerationType() {
  const caps = capabilities($("model").value);
  if (!caps) return;
  const refs = $("referenceCount");
  const editing = $("generationType").value === "image-to-image";
  refs.disabled = !editing;
  refs.min = editing ? "1" : "0";
  refs.max = String(editing ? caps.maxReferenceImages : 0);
  if (!editing) refs.value = "0";
  else if (Number(refs.value) < 1) refs.value = "1";
  else if (Number(refs.value) > caps.maxReferenceImages) refs.value = String(caps.maxReferenceImages);
  const surcharge = caps.referenceSurchargeCredits;
  $("referenceHint").textContent = editing
    ? `At most ${caps.maxReferenceImages}; ${surcharge ? `+${surcharge} credits each, per image.` : "no surcharge on this model."}`
    : "Only with image-to-image.";
}

/** A number field as the request would carry it: a number, or the text when it is not one. */
const numberField = (id) => {
  const text = $(id).value.trim();
  return text === "" || Number.isNaN(Number(text)) ? text : Number(text);
};

/** Prices the form exactly as a backend would charge the same request. */
function render() {
  const references = numberField("referenceCount");
  const count = typeof references === "number" && Number.isInteger(references) && references > 0 ? Math.min(references, 100) : 0;
  const body = {
    prompt: "price preview",
    modelId: $("model").value,
    generationType: $("generationType").value,
    aspectRatio: $("aspectRatio").value,
    resolution: $("resolution").value,
    quality: $("quality").value,
    background: $("background").value,
    imageCount: numberField("imageCount"),
    inputAssetIds: Array.from({ length: count }, (_, i) => `reference-${i + 1}`),
  };
  let issues = [];
  let charge;
  const checked = checkRequest(body); // shape and model limits together: every issue at once (N15)
  if (!checked.success) issues = checked.issues;
  if (typeof references !== "number" || !Number.isInteger(references) || references < 0) {
    issues.push({ path: "referenceCount", code: "invalid_reference_count", message: "Reference images must be a whole number." });
  }
  if (checked.success && issues.length === 0) {
    try {
      charge = computeCharge(checked.output, { account: { multiplier: $("multiplier").value } });
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) throw error;
      issues = error.issues;
    }
  }
  show(charge, issues);
}

/** An amount with its unit, as every number on the page that is money is shown: "138 credits". */
const credits = (n) => `${n} ${n === 1 ? "credit" : "credits"}`;

/** Shows a charge (every amount in credits) or, when there is none, the issues. */
function show(charge, issues) {
  $("result").className = `price ${charge ? "status-valid" : "status-invalid"}`;
  $("perImage").textContent = charge ? credits(charge.perOutputCredits) : "-";
  $("total").textContent = charge ? credits(charge.totalCreditCost) : "-";
  const rows = charge
    ? [
        ["Base price", charge.breakdown.baseCredits],
        [
          `Reference surcharge (${charge.breakdown.referenceCount} x ${credits(capabilities(charge.modelId)?.referenceSurchargeCredits ?? 0)})`,
          charge.breakdown.referenceSurchargeCredits,
        ],
        ["Subtotal", charge.breakdown.subtotalCredits],
        [`x ${charge.breakdown.multiplier}, rounded ${charge.breakdown.rounding}`, charge.breakdown.credits],
        [`x ${charge.imageCount} image${charge.imageCount === 1 ? "" : "s"}`, charge.totalCreditCost],
      ]
    : [];
  $("breakdown").tBodies[0]?.replaceChildren(
    ...rows.map(([label, value]) => {
      const tr = document.createElement("tr");
      const name = tr.insertCell();
      name.textContent = String(label);
      const n = tr.insertCell();
      n.className = "n";
      n.textContent = credits(value);
      return tr;
    }),
  );
  $("issues").replaceChildren(
    ...issues.map((issue) => {
      const li = document.createElement("li");
      li.dataset.code = issue.code;
      li.append(`${issue.message} `);
      const code = document.createElement("code");
      code.textContent = issue.code;
      li.append(code);
      return li;
    }),
  );
}

offer($("model"), Object.keys(catalog.models), catalog.defaultModelId);
$("catalog").textContent = `Prices of ${catalog.version}.`;
applyModel();
form.addEventListener("input", (event) => {
  if (event.target === $("model")) applyModel();
  if (event.target === $("generationType")) applyGenerationType();
  render();
});
form.addEventListener("submit", (event) => event.preventDefault());
render();
document.body.dataset.ready = "true";
