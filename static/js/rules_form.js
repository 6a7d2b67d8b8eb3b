// The rules dialog's form and its presets: what the form asks for, read as the server
// takes it; the presets' numbers filled in and recognised; the fields a mode shows; and
// the form set back to the defaults or to the match under way. It judges nothing: the
// server does (rules.js asks it).
import { $ } from "./dom.js";
import { modeName } from "./words.js";
import { fixedSummaryWords, rulesSummaryWords, targetSummaryWords } from "./words_rules.js";

// Numbers as typed: an integer as a number, anything else as it is, for the server to judge.
function readNumber(input) {
  const text = input.value.trim();
  return /^-?\d+$/.test(text) ? Number(text) : input.valueAsNumber || text;
}

/** The form of the server-rendered rules dialog, its fields and what they ask for. */
export function createRulesForm() {
  const form = $("settings");
  const presetSelect = $("preset");
  const ruleInputs = [...$("rules").querySelectorAll("input")];
  const seedInput = $("client-seed");
  const targetInput = $("target");
  const targetSlider = $("target-slider");
  const presets = Object.fromEntries(
    [...presetSelect.options]
      .filter((option) => option.dataset.rules)
      .map((option) => [option.value, JSON.parse(option.dataset.rules)]),
  );
  let lastRule = null; // the rule's number the player changed last

  function readRules() {
    return Object.fromEntries(ruleInputs.map((input) => [input.name, readNumber(input)]));
  }

  /** Whether the form asks for an HP match, whose rules it shows. */
  const adaptiveMode = () => form.elements.mode.value === "adaptive";

  /** Whether the form asks for a chance of winning instead of rules. */
  const targeted = () => adaptiveMode() && form.elements.rules_from.value === "target";

  /** Whether the target is a whole percent within the dialog's bounds (or not asked). */
  const targetFits = () =>
    !targeted() || (targetInput.value.trim() !== "" && targetInput.checkValidity());

  /** The target as typed: a chance from 0 to 1 for a whole percent, else as it is. */
  function readTarget() {
    const text = targetInput.value.trim();
    return /^\d+$/.test(text) ? Number(text) / 100 : text;
  }

  // The rule set chosen; classic is named by none, as before there were others.
  const readVariant = () => form.elements.variant.value;
  const variantAsk = () => (readVariant() === "classic" ? {} : { variant: readVariant() });
  const named = (words) => (readVariant() === "classic" ? words : `${readVariant()} · ${words}`);

  /** What `odds` and `new_match` need to know of the rules, or null outside adaptive. */
  function readAsk() {
    if (form.elements.mode.value !== "adaptive" || targeted()) return null;
    // Custom numbers are sent whole, so any preset will do as their base.
    const preset = presets[presetSelect.value] ? presetSelect.value : Object.keys(presets)[0];
    return { preset, rules: readRules(), ...variantAsk() };
  }

  function readSettings() {
    const mode = form.elements.mode.value;
    if (targeted()) return { mode, target: readTarget(), ...variantAsk() };
    const first = mode === "adaptive" ? {} : { first: form.elements.first.value };
    return { mode, ...readAsk(), ...first, ...variantAsk() };
  }

  /** The match the form would start, in a few words. */
  const summary = () => named(gameSummary());

  function gameSummary() {
    const mode = form.elements.mode.value;
    const name = modeName(mode);
    if (mode !== "adaptive") return fixedSummaryWords(name, form.elements.first.value);
    if (targeted()) {
      const bounds = { fits: targetFits(), min: targetInput.min, max: targetInput.max };
      return targetSummaryWords(name, readTarget(), bounds);
    }
    const { start_human_hp: you, start_ai_hp: ai } = readRules();
    return rulesSummaryWords(name, presetSelect.selectedOptions[0]?.textContent, you, ai);
  }

  /** Keep the slider and the number of the target together, and the preset with its numbers. */
  function follow(changed) {
    if (changed === targetSlider) targetInput.value = targetSlider.value;
    else if (changed === targetInput && targetInput.validity.valid && targetInput.value !== "") {
      targetSlider.value = targetInput.value;
    }
    if (changed === presetSelect) fillPreset(presetSelect.value);
    else if (ruleInputs.includes(changed)) {
      lastRule = changed;
      matchPreset();
    }
  }

  /** What a change of `control` shows: the part of the form to keep in view with it. */
  function resultOf(control) {
    if (control.name === "rules_from") return targeted() ? $("target-box") : presetSelect;
    if (control.name === "mode") {
      return adaptiveMode() ? form.querySelector(".rules-from") : $("first-settings");
    }
    if (control === targetInput || control === targetSlider) return $("target-preview");
    if (control === presetSelect || ruleInputs.includes(control)) return $("rules-odds");
    return null;
  }

  /** Scroll the form to `control` and what its change shows: the control last, so that
   * where both do not fit, the control is the one in view. */
  function reveal(control) {
    const note = control.id ? document.getElementById(`${control.id}-error`) : null;
    for (const part of [resultOf(control), note, control]) {
      if (part && !part.hidden) part.scrollIntoView({ block: "nearest" });
    }
  }

  /**
   * The new match's fields as they are now, and a function that puts them back so. The
   * seed is none of them: saved as it is typed, it is the dice of every game to come.
   */
  function keep() {
    const property = (field) => (field.type === "radio" ? "checked" : "value");
    const kept = [...form.querySelectorAll("input,select")]
      .filter((field) => field !== seedInput)
      .map((field) => [field, field[property(field)]]);
    return () => {
      for (const [field, value] of kept) field[property(field)] = value;
    };
  }

  function fillPreset(name) {
    const numbers = presets[name];
    if (!numbers) return;
    for (const input of ruleInputs) {
      if (input.name in numbers) input.value = numbers[input.name];
    }
  }

  function matchPreset() {
    const rules = readRules();
    const same = Object.keys(presets).find((name) =>
      Object.entries(presets[name]).every(([rule, value]) => rules[rule] === value),
    );
    presetSelect.value = same ?? "custom";
  }

  /** The fields back to the defaults the page came with; the seed stays. */
  function reset() {
    for (const radio of form.querySelectorAll("input[type=radio]")) {
      radio.checked = radio.defaultChecked;
    }
    for (const option of presetSelect.options) option.selected = option.defaultSelected;
    for (const input of ruleInputs) input.value = input.defaultValue;
    targetInput.value = targetSlider.value = targetInput.defaultValue;
    lastRule = null;
  }

  /** The fields set to the match of the snapshot `state`: its mode, promise and rules. */
  function fillFrom(state) {
    form.elements.mode.value = state.mode;
    form.elements.variant.value = state.variant ?? "classic";
    const promise = state.record?.promise;
    form.elements.rules_from.value = promise ? "target" : "numbers";
    if (promise) targetInput.value = targetSlider.value = Math.round(promise.target * 100);
    for (const input of ruleInputs) {
      const value = state.rules?.[input.name];
      if (value != null) input.value = value;
    }
    presetSelect.value = state.preset in presets ? state.preset : "custom";
    lastRule = null;
  }

  /** Show the fields the mode asks for, the preset's description and the rules' bounds. */
  function layout() {
    // A chance asked for is tuned on the rule sets whose every skill's odds are exact.
    const target = $("rules-from-target");
    target.disabled = !form.querySelector("input[name=variant]:checked")?.hasAttribute("data-tunable");
    if (target.disabled && target.checked) $("rules-from-numbers").checked = true;
    const adaptive = adaptiveMode();
    for (const [id, on] of [["rules-settings", adaptive], ["first-settings", !adaptive]]) {
      $(id).hidden = !on;
      $(id).disabled = !on;
    }
    $("target-box").hidden = !targeted();
    $("numbers-box").hidden = targeted();
    const option = presetSelect.selectedOptions[0];
    $("preset-desc").textContent = option?.dataset.description ?? "";
    // Numbers bounded by the most HP follow it while it is a number in range.
    const max = $("rule-max_hp");
    if (max && max.validity.valid && max.value !== "") {
      for (const input of ruleInputs) if ("upToMax" in input.dataset) input.max = max.value;
    }
  }

  return {
    form,
    presetSelect,
    ruleInputs,
    seedInput,
    targetInput,
    targetSlider,
    presets,
    lastRule: () => lastRule,
    reveal,
    keep,
    readAsk,
    readSettings,
    targeted,
    targetFits,
    summary,
    follow,
    reset,
    fillFrom,
    layout,
  };
}
