// The rules dialog's refusals shown: a field marked invalid with what it takes, the live
// odds line, and the "Not started" message under the rules. The server names the field
// it refused, or the fields it refused together; the bounds a field takes are its own
// (min and max), as the page drew them. Rules refused as a whole, no field named, are
// marked at the number the player changed last: the one they can take back.
import { $ } from "./dom.js";
import { ERRORS } from "./protocol.js";
import {
  NO_RULES_UNTIL,
  SEED_WORDS,
  noOddsUntilWords,
  noOddsWords,
  notStartedWords,
  oddsSentence,
  refusalWords,
  ruleWords,
  targetFieldWords,
} from "./words_rules.js";

/** The settings' own refusals: a setting out of range, or a rule that is not a number. */
export const REFUSALS = [ERRORS.badSetting, ERRORS.badPayload];

/** A target outside the dialog's bounds, refused here as the server refuses one outside 0..1. */
export const TARGET_REFUSED = { code: ERRORS.badSetting, field: "target" };

/** The note under `input` that says what is wrong with it. */
const noteOf = (input) => $(`${input.id}-error`);

/** Mark `input` invalid, described by the shown `note`; or valid again with null. */
function markInput(input, note) {
  if (note) {
    input.setAttribute("aria-invalid", "true");
    const described = [note.id, input.dataset.help].filter(Boolean);
    input.setAttribute("aria-describedby", described.join(" "));
  } else {
    input.removeAttribute("aria-invalid");
    if (input.dataset.help) input.setAttribute("aria-describedby", input.dataset.help);
    else input.removeAttribute("aria-describedby");
  }
}

/**
 * Mark `inputs` invalid with `message`, said once, in the note under `at` (the first by
 * default) and describing each of them; or valid again with null.
 */
function markFields(inputs, message, at = inputs[0]) {
  for (const input of inputs) {
    const note = noteOf(input);
    if (note) {
      note.hidden = !message || input !== at;
      note.textContent = note.hidden ? "" : message;
    }
    markInput(input, message ? noteOf(at) : null);
  }
}

/** Put `text` in the live odds line: the odds, a wait, or why there are none. */
function setOddsLine(text, state) {
  const line = $("rules-odds");
  line.textContent = text;
  line.dataset.state = state;
}

/** The label of a field: what the refusals call it. */
const nameOf = (input) => input.labels[0].textContent;

/**
 * The refusals shown in the rules form `fields` (see createRulesForm); a refused target
 * is said in the preview's first line, by `showPreview` (see rules_preview.js).
 */
export function createRuleMarks(fields, showPreview) {
  const { form, ruleInputs, seedInput, targetInput, targetSlider, presetSelect } = fields;
  // The help each field is described by while it is not marked.
  seedInput.dataset.help = "client-seed-help";
  targetInput.dataset.help = targetSlider.dataset.help = "target-help";

  /** Mark the chance asked for with `message`, or valid again with null. The slider keeps
   * the last chance that could be asked, and is marked too: it is not the one typed. */
  function markTarget(message) {
    markFields([targetInput], message);
    markInput(targetSlider, message ? noteOf(targetInput) : null);
  }

  /** Unmark the rules; `alert` also hides the last "Not started" message. */
  function clear({ alert = true } = {}) {
    markFields(ruleInputs, null);
    markTarget(null);
    if (alert) $("settings-error").hidden = true;
  }

  /** Mark the seed as refused (`refused`) or fine. */
  const markSeed = (refused) => markFields([seedInput], refused ? SEED_WORDS : null);

  /** Mark the field `input` the server refused, and say so where its odds would be. */
  function markRefused(input) {
    if (input === seedInput) markSeed(true);
    else if (input === targetInput) {
      markTarget(targetFieldWords(targetInput.min, targetInput.max));
      showPreview({ chance: NO_RULES_UNTIL }, "refused");
    } else {
      const empty = input.value.trim() === "";
      markFields([input], ruleWords(nameOf(input), { min: input.min, max: input.max, empty }));
      setOddsLine(noOddsUntilWords([nameOf(input)]), "refused");
    }
  }

  /** Mark the rules `inputs` refused together with `message`, said once, under the one
   * changed last if it is among them (else under the last), and where the odds would be. */
  function markTogether(inputs, message) {
    const last = fields.lastRule();
    markFields(inputs, message, inputs.includes(last) ? last : inputs.at(-1));
    setOddsLine(noOddsUntilWords(inputs.map(nameOf)), "refused");
  }

  /** The fields a refusal (the server's `error`) is about: those it names, or, for rules
   * refused as a whole, the number changed last. */
  function refusedFields(error, refused) {
    const known = [seedInput, targetInput, ...ruleInputs];
    const names = error?.field ? [error.field] : (error?.fields ?? []);
    const named = names
      .map((name) => form.elements.namedItem(name))
      .filter((input) => known.includes(input));
    if (names.length || !refused || fields.targeted()) return named;
    return [fields.lastRule()].filter(Boolean);
  }

  /**
   * Show a refusal of the settings (the server's error): by the field or fields it is
   * about, in plain words, or under the rules when it is about none. `started` says
   * whether Start match was refused: then the form says so and the focus goes to the field.
   */
  function showRefusal(error, { started = false } = {}) {
    // The odds' own refusal of the same rules leaves Start match's message in place.
    clear({ alert: started });
    const refused = REFUSALS.includes(error?.code);
    const inputs = refusedFields(error, refused);
    // The rules refused as a whole: the server's sentence ("a draw must cost ...").
    const message = refusalWords(error, { whole: refused });
    // The live odds line says why there are no odds: by naming the fields marked, or
    // in full when no field could be.
    if (inputs.length === 1 && error?.field) markRefused(inputs[0]);
    else if (inputs.length) markTogether(inputs, message);
    else if (refused) setOddsLine(message, "error");
    if (!started) return;
    const alert = $("settings-error");
    alert.textContent = notStartedWords({ names: inputs.map(nameOf), message });
    alert.hidden = false;
    const [input] = inputs;
    (input ?? (refused ? presetSelect : form.querySelector("button[type=submit]"))).focus();
    // The fields' note in view too, not only the field: it says what to change.
    const note = inputs.map(noteOf).find((shown) => shown && !shown.hidden);
    note?.scrollIntoView({ block: "nearest" });
  }

  /** Show the odds of a whole match under the rules in the form (the `odds` answer). */
  function showOdds(odds) {
    clear();
    setOddsLine(oddsSentence(odds), "shown");
  }

  /** Say why no odds came (a code the server or the page gave). */
  const showOddsUnavailable = (code) => setOddsLine(noOddsWords(code), "none");

  return { clear, markSeed, showRefusal, showOdds, showOddsUnavailable };
}
