// The live price preview. `./core.js` is the browser build of the package's core entry
// (src/index.ts bundled with valibot): `imagegen-pricing playground` serves the package's
// dist/playground/core.js, and `npm run playground` bundles it from the sources; it is not committed.
// docs/playground.md explains the pattern: issue path -> control -> its <label>, aria-invalid,
// aria-describedby, one polite live region.
import {
  capabilities,
  catalog,
  checkRequest,
  computeCharge,
  InvalidRequestError,
  parseMultiplier,
} from "./core.js";
import { controlFor, FIELDS, sentence } from "./fields.js";

const $ = (id) => /** @type {HTMLInputElement & HTMLSelectElement} */ (document.getElementById(id));
const form = $("spec");
/** Every control that can be at fault, once each (two paths lead to "referenceCount"). */
const CONTROLS = [...new Set(Object.values(FIELDS))];

/** The text of a control's <label>: the name a user sees and a screen reader says. */
const labelOf = (id) => $(id).labels?.[0]?.textContent?.trim() ?? id;

/**
 * Replaces a select's options, keeping the current value when the new list still has it. A select
 * with one option stays enabled: a disabled control leaves the Tab order, and its one value would
 * not be heard.
 */
function offer(select, values, fallback) {
  const previous = select.value;
  select.replaceChildren(...values.map((value) => new Option(value, value)));
  select.value = values.includes(previous) ? previous : (fallback ?? values[0]);
}

/** Sets every control to what the chosen model accepts (from `capabilities`). */
function applyModel() {
  const caps = capabilities($("model").value);
  if (!caps) {
    return;
  }
  offer($("generationType"), caps.generationTypes, "text-to-image");
  offer($("aspectRatio"), caps.aspectRatios, caps.defaultAspectRatio);
  // A model with no default resolution needs one named; the page always names it.
  offer($("resolution"), caps.resolutions, caps.defaultResolution ?? caps.resolutions[0]);
  offer($("quality"), caps.qualities, "low");
  offer($("background"), caps.backgrounds, "auto");
  const images = $("imageCount");
  images.max = String(caps.maxImageCount);
  $("imageCount-hint").textContent = `1 to ${caps.maxImageCount} for this model.`;
  applyGenerationType();
}

/** References exist only when editing: 1 to the model's limit for image-to-image, none otherwise. */
function applyGenerationType() {
  const caps = capabilities($("model").value);
  if (!caps) {
    return;
  }
  const refs = $("referenceCount");
  const editing = $("generationType").value === "image-to-image";
  refs.disabled = !editing;
  refs.min = editing ? "1" : "0";
  refs.max = String(editing ? caps.maxReferenceImages : 0);
  if (!editing) {
    refs.value = "0";
  } else if (refs.value === "0") {
    refs.value = "1";
  }
  const surcharge = caps.referenceSurchargeCredits;
  $("referenceCount-hint").textContent = editing
    ? `1 to ${caps.maxReferenceImages} for this model; ${surcharge ? `+${surcharge} credits each, per image.` : "no surcharge."}`
    : "Only with image-to-image.";
}

/** A number field as the request would carry it: a number, or the text when it is not one. */
const numberField = (id) => {
  const text = $(id).value.trim();
  return text === "" || Number.isNaN(Number(text)) ? text : Number(text);
};

/** Prices the form exactly as a backend would charge the same request, or lists what stops it. */
function render() {
  const references = numberField("referenceCount");
  const wholeReferences =
    typeof references === "number" && Number.isInteger(references) && references >= 0;
  const body = {
    prompt: "price preview",
    modelId: $("model").value,
    generationType: $("generationType").value,
    aspectRatio: $("aspectRatio").value,
    resolution: $("resolution").value,
    quality: $("quality").value,
    background: $("background").value,
    imageCount: numberField("imageCount"),
    // One more than any model allows is enough to be refused; a huge count builds no huge list.
    inputAssetIds: Array.from(
      { length: wholeReferences ? Math.min(references, 100) : 0 },
      (_, i) => `reference-${i + 1}`,
    ),
  };
  let issues = [];
  let charge;
  const checked = checkRequest(body); // shape and model limits together: every issue at once (N15)
  if (!checked.success) {
    issues = checked.issues;
  }
  if (!wholeReferences) {
    // The request listed no references because the field is not a count; say that, not "at least 1".
    issues = issues.filter((issue) => controlFor(issue.path) !== "referenceCount");
    issues.push({
      path: "referenceCount",
      code: "invalid_reference_count",
      message: "Reference images must be a whole number.",
    });
  }
  // The multiplier is the account's, not the request's: checked here too, so that every problem shows at once.
  const multiplier = parseMultiplier($("multiplier").value);
  if (!multiplier) {
    issues.push({
      path: "account.multiplier",
      code: "invalid_multiplier",
      message: "The price multiplier is not a plain decimal.",
    });
  }
  if (checked.success && issues.length === 0) {
    try {
      charge = computeCharge(checked.output, { account: { multiplier } });
    } catch (error) {
      if (!(error instanceof InvalidRequestError)) {
        throw error;
      }
      issues = error.issues;
    }
  }
  show(charge, issues);
}

/** An amount with its unit, as every number on the page that is money is shown: "138 credits". */
const credits = (n) => `${n} ${n === 1 ? "credit" : "credits"}`;

/**
 * Marks each control at fault (`aria-invalid`, its error text, `aria-describedby` naming the error
 * then the hint) and clears the others. Returns the sentences, controls first in page order, then
 * the problems of the whole request.
 */
function markControls(issues) {
  const caps = capabilities($("model").value);
  /** control id -> its sentences */
  const byControl = new Map();
  const general = [];
  for (const issue of issues) {
    const id = controlFor(issue.path);
    if (id === undefined) {
      general.push(issue.message.replace(/\.$/, ""));
    } else {
      byControl.set(id, [...(byControl.get(id) ?? []), sentence(issue, labelOf(id), caps)]);
    }
  }
  for (const id of CONTROLS) {
    const control = $(id);
    const error = $(`${id}-error`);
    const hint = document.getElementById(`${id}-hint`);
    const said = byControl.get(id);
    // Two issues on one control are one description: "Images: ...; Images: ..." is rare, and clear.
    error.textContent = said ? [...new Set(said)].join("; ") : "";
    error.hidden = !said;
    if (said) {
      control.setAttribute("aria-invalid", "true");
    } else {
      control.removeAttribute("aria-invalid");
    }
    const describedBy = [said ? error.id : "", hint ? hint.id : ""].filter(Boolean).join(" ");
    if (describedBy) {
      control.setAttribute("aria-describedby", describedBy);
    } else {
      control.removeAttribute("aria-describedby");
    }
  }
  return [
    ...CONTROLS.flatMap((id) => (byControl.has(id) ? [$(`${id}-error`).textContent] : [])),
    ...general,
  ];
}

/** Shows a charge (every amount in credits) or, when there is none, what to fix; says either once in #status. */
function show(charge, issues) {
  const problems = markControls(charge ? [] : issues);
  $("result").className = `price ${charge ? "status-valid" : "status-invalid"}`;
  $("perImage").textContent = charge ? credits(charge.perOutputCredits) : "-";
  $("total").textContent = charge ? credits(charge.totalCreditCost) : "-";
  const status = charge
    ? charge.imageCount === 1
      ? `Total ${credits(charge.totalCreditCost)} for 1 image.`
      : `Total ${credits(charge.totalCreditCost)}: ${charge.imageCount} images at ${credits(charge.perOutputCredits)} each.`
    : `No price: ${problems.join("; ")}.`;
  // The same text again is not a change, so a screen reader is not told it twice.
  if ($("status").textContent !== status) {
    $("status").textContent = status;
  }
  const rows = charge
    ? [
        ["Base price", charge.breakdown.baseCredits],
        [
          `Reference surcharge (${charge.breakdown.referenceCount} x ${credits(capabilities(charge.modelId)?.referenceSurchargeCredits ?? 0)})`,
          charge.breakdown.referenceSurchargeCredits,
        ],
        ["Subtotal", charge.breakdown.subtotalCredits],
        [
          `x ${charge.breakdown.multiplier}, rounded ${charge.breakdown.rounding}`,
          charge.breakdown.credits,
        ],
        [
          `x ${charge.imageCount} image${charge.imageCount === 1 ? "" : "s"}`,
          charge.totalCreditCost,
        ],
      ]
    : [];
  $("breakdown").hidden = rows.length === 0;
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
}

offer($("model"), Object.keys(catalog.models), catalog.defaultModelId);
$("catalog").textContent = `Prices of ${catalog.version}.`;
applyModel();
// `input` fires for typing, pasting, arrow keys on a select and mouse alike: no click-only path.
form.addEventListener("input", (event) => {
  if (event.target === $("model")) {
    applyModel();
  }
  if (event.target === $("generationType")) {
    applyGenerationType();
  }
  render();
});
form.addEventListener("submit", (event) => event.preventDefault());
render();
document.body.dataset.ready = "true";
