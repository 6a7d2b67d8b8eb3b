// The rules dialog's refusals shown: a field marked invalid with what it takes, the live
// odds line, and the "Not started" message under the rules. The server names the field
// it refused; the bounds it takes are the field's own (min and max), as the page drew them.
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

/** Mark `input` invalid with `message`, or valid again with null. */
function markField(input, message) {
  const note = $(`${input.id}-error`);
  note.hidden = !message;
  note.textContent = message ?? "";
  if (message) {
    input.setAttribute("aria-invalid", "true");
    const described = [note.id, input.dataset.help].filter(Boolean);
    input.setAttribute("aria-describedby", described.join(" "));
  } else {
    input.removeAttribute("aria-invalid");
    if (input.dataset.help) input.setAttribute("aria-describedby", input.dataset.help);
    else input.removeAttribute("aria-describedby");
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
  const { form, ruleInputs, seedInput, targetInput, presetSelect } = fields;
  // The help each field is described by while it is not marked.
  seedInput.dataset.help = "client-seed-help";
  targetInput.dataset.help = "target-help";

  /** Unmark the rules; `alert` also hides the last "Not started" message. */
  function clear({ alert = true } = {}) {
    for (const input of ruleInputs) markField(input, null);
    markField(targetInput, null);
    if (alert) $("settings-error").hidden = true;
  }

  /** Mark the seed as refused (`refused`) or fine. */
  const markSeed = (refused) => markField(seedInput, refused ? SEED_WORDS : null);

  /** Mark the field `input` the server refused, and say so where its odds would be. */
  function markRefused(input) {
    if (input === seedInput) markSeed(true);
    else if (input === targetInput) {
      markField(targetInput, targetFieldWords(targetInput.min, targetInput.max));
      showPreview({ chance: NO_RULES_UNTIL }, "refused");
    } else {
      const empty = input.value.trim() === "";
      markField(input, ruleWords(nameOf(input), { min: input.min, max: input.max, empty }));
      setOddsLine(noOddsUntilWords(nameOf(input)), "refused");
    }
  }

  /**
   * Show a refusal of the settings (the server's error): by the field it names, in
   * plain words, or under the rules when it names none. `started` says whether Start
   * match was refused: then the form says so and the focus goes to the field.
   */
  function showRefusal(error, { started = false } = {}) {
    // The odds' own refusal of the same rules leaves Start match's message in place.
    clear({ alert: started });
    const named = error?.field ? form.elements.namedItem(error.field) : null;
    const input = [seedInput, targetInput, ...ruleInputs].includes(named) ? named : null;
    const refused = REFUSALS.includes(error?.code);
    // The rules refused as a whole: the server's sentence ("a draw must cost ...").
    const message = refusalWords(error, { whole: refused });
    // The live odds line says why there are no odds: by naming the field marked, or
    // in full when the rules as a whole were refused.
    if (input) markRefused(input);
    else if (refused) setOddsLine(message, "error");
    if (!started) return;
    const alert = $("settings-error");
    alert.textContent = notStartedWords(input ? { name: nameOf(input) } : { message });
    alert.hidden = false;
    (input ?? (refused ? presetSelect : form.querySelector("button[type=submit]"))).focus();
    // The field's note in view too, not only the field: it says what to change.
    if (input) $(`${input.id}-error`).scrollIntoView({ block: "nearest" });
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
