// The preview of a match from a chance asked for: the server tunes the rules exactly as
// Start match would (`new_match` with `check`), and only the answer to the latest
// question is shown, in three lines (the chance, the rules, the skill).
import { $ } from "./dom.js";
import { REFUSALS, TARGET_REFUSED } from "./rules_marks.js";
import { TUNING, noRulesWords } from "./words_rules.js";
import { skillUsedWords, tunedChanceWords, tunedRulesWords } from "./words.js";

// A target's preview is asked a moment after the last change, as the odds are.
const PREVIEW_DEBOUNCE_MS = 250;

/** Fill the preview's three lines (the chance, the rules, the skill) and its state. */
export function showPreview({ chance, rules = "", skill = "" }, state) {
  $("target-chance").textContent = chance;
  $("target-rules").textContent = rules;
  $("target-skill").textContent = skill;
  $("target-preview").dataset.state = state;
}

/**
 * The preview of the rules `fields` (see createRulesForm) ask for, its refusals shown by
 * `marks` (see createRuleMarks); `checkMatch(settings)` resolves to the server's ack.
 */
export function createPreview(fields, marks, checkMatch) {
  const { presets, targetFits, targeted, readSettings } = fields;
  let previewed = ""; // the settings last previewed
  let timer = 0;
  let ticket = 0;

  /** Show the rules a target was tuned to and their exact odds (the `tuned` answer). */
  function showTuned(tuned) {
    marks.clear();
    const classic = presets[Object.keys(presets)[0]];
    const state = tuned.reachable ? "shown" : "out-of-reach";
    const chance = tunedChanceWords(tuned);
    const rules = tunedRulesWords(tuned.changed, classic);
    showPreview({ chance, rules, skill: skillUsedWords(tuned.skill) }, state);
  }

  /** Ask for the preview of the form's target now (after the debounce). */
  function preview() {
    clearTimeout(timer);
    const asked = ++ticket;
    if (!targetFits()) {
      marks.showRefusal(TARGET_REFUSED);
      return;
    }
    showPreview({ chance: TUNING }, "waiting");
    timer = setTimeout(async () => {
      const reply = await checkMatch(readSettings());
      if (asked !== ticket || !targeted()) return;
      if (reply.ok) showTuned(reply.tuned);
      else if (reply.error?.field === "target" || REFUSALS.includes(reply.error?.code)) {
        marks.showRefusal(reply.error);
      } else {
        previewed = ""; // asked again with the next change or opening
        showPreview({ chance: noRulesWords(reply.error?.code) }, "none");
      }
    }, PREVIEW_DEBOUNCE_MS);
  }

  /** Ask for a preview when the form's target changed since the last one asked. */
  function previewChanged() {
    const wanted = targeted() ? JSON.stringify(readSettings()) : "";
    if (wanted === previewed) return;
    previewed = wanted;
    if (wanted) preview();
  }

  return { preview, previewChanged };
}
