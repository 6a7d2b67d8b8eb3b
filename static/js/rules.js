// The new match's rules, in their own modal dialog: the form, its odds, its errors in
// plain words by their field, and the questions asked before a match changes for good
// (abandoning it, locking its difficulty). Every setting is judged by the server: the
// form asks it (`new_match` with `check`) before it asks whether to abandon anything.

import { CLIENT_ERROR_MESSAGES, CLIENT_SEED, ERRORS, ERROR_MESSAGES } from "./protocol.js";
import { percent } from "./view.js";
import {
  lockWords,
  promiseWords,
  skillUsedWords,
  targetWords,
  tunedChanceWords,
  tunedRulesWords,
} from "./words.js";

// Who starts the first game of a fixed-mode match, as the new-match summary says it.
const FIRST_WORDS = { toss: "coin toss for who starts", human: "you start", ai: "the AI starts" };
// A target outside the dialog's bounds is refused here, as the server refuses one outside 0..1.
const TARGET_REFUSED = { code: ERRORS.badSetting, field: "target" };
const SEED_WORDS = "A seed is 1 to 64 letters, digits, - or _";
// The settings' own refusals: a setting out of range, or a rule that is not a number.
const REFUSALS = [ERRORS.badSetting, ERRORS.badPayload];

// A target's preview is asked a moment after the last change, as the odds are.
const PREVIEW_DEBOUNCE_MS = 250;

const games = (n) => `${n} game${n === 1 ? "" : "s"}`;

/** The odds line of the rules: a perfect and a random player's chances of a match. */
export function oddsSentence(odds) {
  const perfect = odds.perfect;
  const played = Math.round(perfect.expected_games);
  return (
    `A perfect player wins this match ${percent(perfect.human_match_win_prob)} of the time, ` +
    `in about ${games(played)}; a random player ${percent(odds.random.human_match_win_prob)}`
  );
}

/** `text` with its first letter a capital, as a sentence shown alone begins. */
const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * Keep Tab inside the modal `dialog` (round its own controls, never out to the
 * browser's), and give the focus back to `opener()` when it closes, unless
 * `elsewhere(returnValue)` moved it already.
 */
export function modal(dialog, { opener = () => null, elsewhere = () => false } = {}) {
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const stops = [...dialog.querySelectorAll("button, input, select, summary, a[href]")].filter(
      (el) => !el.disabled && el.offsetParent !== null && el.tabIndex >= 0,
    );
    const [first, last] = [stops[0], stops.at(-1)];
    const [from, to] = event.shiftKey ? [first, last] : [last, first];
    if (document.activeElement !== from) return;
    event.preventDefault();
    to.focus();
  });
  dialog.addEventListener("close", () => {
    if (!elsewhere(dialog.returnValue)) opener()?.focus();
  });
}

/**
 * Build the rules dialog over the server-rendered page. `actions`: checkMatch(settings)
 * and newMatch(settings) (each resolves to the server's ack), lockDifficulty(),
 * rulesChanged({preset, rules} | null), seedChanged(seed), newSeed(),
 * summaryChanged(text) (the match the form would start, in a few words), started()
 * (a match has started: the page shows its board) and failed(code) (a new match begun
 * outside the dialog was refused for a reason other than its settings).
 */
export function createRules(actions) {
  const $ = (id) => document.getElementById(id);
  const modeName = (mode) => $(`mode-${mode}`)?.labels[0]?.textContent ?? mode;
  const dialog = $("rules-dialog");
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
  let shown = null; // the last snapshot: what a new match would abandon
  let formTouched = false;
  let sending = false;
  let opener = null;

  modal(dialog, { opener: () => opener, elsewhere: (value) => value === "started" });
  $("open-rules").addEventListener("click", (event) => open(event.currentTarget));
  $("rules-close").addEventListener("click", () => dialog.close());
  $("rules-cancel").addEventListener("click", () => dialog.close());

  /** Open the dialog; the focus goes to its first field, or to `field` when given. */
  function open(from = document.activeElement, field = null) {
    opener = from;
    dialog.returnValue = "";
    if (!dialog.open) {
      dialog.showModal();
      form.querySelector(".rules-body").scrollTop = 0; // from the top, the summary first
    }
    (field ?? form.querySelector("input[name=mode]:checked")).focus({ preventScroll: !field });
    if (targeted()) preview(); // the skill may have changed since the last preview
  }

  form.addEventListener("input", (event) => {
    formTouched = true;
    if (event.target === targetSlider) targetInput.value = targetSlider.value;
    else if (event.target === targetInput && targetInput.validity.valid && targetInput.value !== "") {
      targetSlider.value = targetInput.value;
    }
    if (event.target === presetSelect) fillPreset(presetSelect.value);
    else if (ruleInputs.includes(event.target)) matchPreset();
    if (event.target === seedInput) seedEdited();
    else syncSettings();
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    submit();
  });
  $("new-seed").addEventListener("click", () => actions.newSeed());
  $("defaults").addEventListener("click", () => {
    formTouched = true; // kept at the defaults until a match starts
    resetSettings();
  });

  /** Start match: the server checks the settings first; only then may it ask to abandon. */
  async function submit() {
    if (sending) return;
    sending = true;
    const settings = readSettings();
    if (!targetFits()) {
      sending = false;
      showRefusal(TARGET_REFUSED, { started: true });
      return;
    }
    const checked = await actions.checkMatch(settings);
    sending = false;
    if (!checked.ok) {
      showRefusal(checked.error, { started: true });
      return;
    }
    clearRulesError();
    if (progress()) confirmNewMatch(settings);
    else startMatch(settings);
  }

  /** Start the match `settings` describe (the form's by default). */
  async function startMatch(settings = readSettings()) {
    const reply = await actions.newMatch(settings);
    if (!reply.ok) {
      const refused = REFUSALS.includes(reply.error?.code);
      if (!dialog.open && !refused) actions.failed(reply.error?.code);
      else {
        if (!dialog.open) open(document.activeElement);
        showRefusal(reply.error, { started: true });
      }
      return reply;
    }
    formTouched = false;
    if (shown) follow(shown);
    if (dialog.open) dialog.close("started");
    actions.started();
    return reply;
  }

  // Starting over while the match has something to lose asks first, in a modal dialog
  // (Escape cancels) whose first button keeps the match; the rules stay as they were.
  const confirm = $("confirm");
  let confirmed = null;
  modal(confirm, { opener: () => $("open-rules"), elsewhere: () => dialog.open });
  $("confirm-keep").addEventListener("click", () => confirm.close());
  $("confirm-start").addEventListener("click", () => confirm.close("start"));
  confirm.addEventListener("close", () => {
    if (confirm.returnValue === "start") startMatch(confirmed);
    else if (dialog.open) form.querySelector("button[type=submit]").focus();
  });

  function confirmNewMatch(settings) {
    confirmed = settings;
    $("confirm-text").textContent = progress();
    $("confirm-new").textContent = `The new match: ${summary()}.`;
    confirm.returnValue = "";
    confirm.showModal();
    $("confirm-keep").focus();
  }

  // Lock difficulty asks first too: it lasts the rest of the match.
  const lock = $("lock-confirm");
  modal(lock, { opener: () => $("lock") });
  $("lock-keep").addEventListener("click", () => lock.close());
  $("lock-yes").addEventListener("click", () => lock.close("lock"));
  lock.addEventListener("close", () => {
    if (lock.returnValue === "lock") actions.lockDifficulty();
  });

  /** Ask whether to lock the AI at the difficulty of the match shown. */
  function confirmLock() {
    const level = shown?.match?.difficulty;
    if (level == null) return;
    $("lock-yes").textContent = `Lock at ${level}`;
    $("lock-confirm-text").textContent = lockWords(level);
    lock.returnValue = "";
    lock.showModal();
    $("lock-keep").focus();
  }

  /** What the match under way would lose, in words; "" when it has nothing to lose. */
  function progress() {
    const match = shown?.match;
    if (!match || match.over) return "";
    const moved = shown.status === "playing" && shown.history.some((m) => m.by === "human");
    if (!moved && match.games === 0) return "";
    const { wins, losses, draws } = match.record;
    const tally = `you have won ${wins}, lost ${losses} and drawn ${draws}`;
    const stand = match.games
      ? `This match is at game ${match.game}: ${tally}.`
      : `Game ${match.game} is under way.`;
    if (shown.mode !== "adaptive") return stand;
    return `${stand} You have ${match.human_hp} HP, the AI ${match.ai_hp}.`;
  }

  // Numbers as typed: an integer as a number, anything else as it is, for the server to judge.
  function readNumber(input) {
    const text = input.value.trim();
    return /^-?\d+$/.test(text) ? Number(text) : input.valueAsNumber || text;
  }

  function readRules() {
    return Object.fromEntries(ruleInputs.map((input) => [input.name, readNumber(input)]));
  }

  /** Whether the form asks for a chance of winning instead of rules. */
  const targeted = () =>
    form.elements.mode.value === "adaptive" && form.elements.rules_from.value === "target";

  /** Whether the target is a whole percent within the dialog's bounds (or not asked). */
  const targetFits = () =>
    !targeted() || (targetInput.value.trim() !== "" && targetInput.checkValidity());

  /** The target as typed: a chance from 0 to 1 for a whole percent, else as it is. */
  function readTarget() {
    const text = targetInput.value.trim();
    return /^\d+$/.test(text) ? Number(text) / 100 : text;
  }

  /** What `odds` and `new_match` need to know of the rules, or null outside adaptive. */
  function readAsk() {
    if (form.elements.mode.value !== "adaptive" || targeted()) return null;
    // Custom numbers are sent whole, so any preset will do as their base.
    const preset = presets[presetSelect.value] ? presetSelect.value : Object.keys(presets)[0];
    return { preset, rules: readRules() };
  }

  function readSettings() {
    const mode = form.elements.mode.value;
    if (targeted()) return { mode, target: readTarget() };
    const first = mode === "adaptive" ? {} : { first: form.elements.first.value };
    return { mode, ...readAsk(), ...first };
  }

  /** The match the form would start, in a few words. */
  function summary() {
    const mode = form.elements.mode.value;
    const name = modeName(mode);
    if (mode !== "adaptive") return `${name} · ${FIRST_WORDS[form.elements.first.value]}`;
    if (targeted()) {
      // A target outside the bounds is no promise: the summary says so, not "Win about 1250%".
      const range = `${targetInput.min} to ${targetInput.max}`;
      if (!targetFits()) return `${name} · the chance you ask for needs a whole number from ${range}`;
      return `${name} · ${targetWords(readTarget())} · rules tuned for you`;
    }
    const { start_human_hp: you, start_ai_hp: ai } = readRules();
    const hp = you === ai ? `${you} HP each` : `you ${you} HP, the AI ${ai} HP`;
    return `${name} · ${presetSelect.selectedOptions[0]?.textContent} rules · ${hp}`;
  }

  /** The form back to the defaults the page came with; the seed stays. */
  function resetSettings() {
    for (const radio of form.querySelectorAll("input[type=radio]")) {
      radio.checked = radio.defaultChecked;
    }
    for (const option of presetSelect.options) option.selected = option.defaultSelected;
    for (const input of ruleInputs) input.value = input.defaultValue;
    targetInput.value = targetSlider.value = targetInput.defaultValue;
    clearRulesError();
    syncSettings();
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

  let asked = "";
  let previewed = "";
  function syncSettings() {
    const adaptive = form.elements.mode.value === "adaptive";
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
    // Ask for odds only when what would be asked changed.
    const ask = readAsk();
    const key = JSON.stringify(ask);
    if (key !== asked) {
      asked = key;
      if (!ask) clearRulesError();
      actions.rulesChanged(ask);
    }
    const wanted = targeted() ? JSON.stringify(readSettings()) : "";
    if (wanted !== previewed) {
      previewed = wanted;
      if (wanted) preview();
    }
    $("settings-summary").textContent = summary();
    $("rules-next").textContent = summary();
    actions.summaryChanged(summary());
  }

  /**
   * Follow the snapshot `state`: until the player changes it, the form shows the match
   * under way, and the defaults once that match is over, so a new match never silently
   * reuses an old one's numbers.
   */
  function follow(state) {
    shown = state;
    showPromise(state.record?.promise);
    if (formTouched) return;
    if (state.match.over) {
      resetSettings();
      return;
    }
    form.elements.mode.value = state.mode;
    const promise = state.record?.promise;
    form.elements.rules_from.value = promise ? "target" : "numbers";
    if (promise) targetInput.value = targetSlider.value = Math.round(promise.target * 100);
    for (const input of ruleInputs) {
      const value = state.rules?.[input.name];
      if (value != null) input.value = value;
    }
    presetSelect.value = state.preset in presets ? state.preset : "custom";
    syncSettings();
  }

  /** The Match card's modest line: what a match started from a target promised. */
  function showPromise(promise) {
    const line = $("match-promise");
    line.hidden = !promise;
    line.textContent = promise ? promiseWords(promise) : "";
  }

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

  /** Unmark the rules; `alert` also hides the last "Not started" message. */
  function clearRulesError({ alert = true } = {}) {
    for (const input of ruleInputs) markField(input, null);
    markField(targetInput, null);
    if (alert) $("settings-error").hidden = true;
  }

  /** Put `text` in the live odds line: the odds, a wait, or why there are none. */
  function setOddsLine(text, state) {
    const line = $("rules-odds");
    line.textContent = text;
    line.dataset.state = state;
  }

  /** What is wrong with a refused rule's `input`, in plain words: what it takes. */
  function ruleWords(input) {
    const name = input.labels[0].textContent;
    const range = `a whole number from ${input.min} to ${input.max}`;
    if (input.value.trim() === "") return `${name}: enter ${range}`;
    return `${name} must be ${range}`;
  }

  /**
   * Show a refusal of the settings (the server's error): by the field it names, in
   * plain words, or under the rules when it names none. `started` says whether Start
   * match was refused: then the form says so and the focus goes to the field.
   */
  function showRefusal(error, { started = false } = {}) {
    // The odds' own refusal of the same rules leaves Start match's message in place.
    clearRulesError({ alert: started });
    const code = error?.code;
    const named = error?.field ? form.elements.namedItem(error.field) : null;
    const own = [seedInput, targetInput, ...ruleInputs];
    const input = own.includes(named) ? named : null;
    const refused = REFUSALS.includes(code);
    const known = ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code];
    // The rules refused as a whole: the server's sentence ("a draw must cost ...").
    const whole = refused && error?.message ? sentence(error.message) : null;
    const message = whole ?? known ?? "Those settings were refused";
    // The live odds line says why there are no odds: by naming the field marked, or
    // in full when the rules as a whole were refused.
    if (input === seedInput) markField(seedInput, SEED_WORDS);
    else if (input === targetInput) {
      markField(targetInput, `Enter a whole number from ${targetInput.min} to ${targetInput.max}`);
      setPreview({ chance: "No rules until the chance you ask for is fixed" }, "refused");
    } else if (input) {
      markField(input, ruleWords(input));
      setOddsLine(`No odds until “${input.labels[0].textContent}” is fixed`, "refused");
    } else if (refused) setOddsLine(message, "error");
    if (!started) return;
    const alert = $("settings-error");
    alert.textContent = input
      ? `Not started: one setting needs a change. Fix “${input.labels[0].textContent}” above.`
      : `Not started: ${message}`;
    alert.hidden = false;
    (input ?? (refused ? presetSelect : form.querySelector("button[type=submit]"))).focus();
    // The field's note in view too, not only the field: it says what to change.
    if (input) $(`${input.id}-error`).scrollIntoView({ block: "nearest" });
  }

  /** Show the odds of a whole match under the rules in the form (the `odds` answer). */
  function showOdds(odds) {
    clearRulesError();
    setOddsLine(oddsSentence(odds), "shown");
  }

  /** Say why no odds came (a code the server or the page gave). */
  function showOddsUnavailable(code) {
    const why = ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code] ?? "something went wrong";
    setOddsLine(`No odds just now: ${why}`, "none");
  }

  // The target's preview: the server tunes the rules exactly as Start match would
  // (`new_match` with `check`), and only the answer to the latest question is shown.
  let previewTimer = 0;
  let previewTicket = 0;
  function preview() {
    clearTimeout(previewTimer);
    const ticket = ++previewTicket;
    if (!targetFits()) {
      showRefusal(TARGET_REFUSED);
      return;
    }
    setPreview({ chance: "Working out the rules…" }, "waiting");
    previewTimer = setTimeout(async () => {
      const reply = await actions.checkMatch(readSettings());
      if (ticket !== previewTicket || !targeted()) return;
      if (reply.ok) showTuned(reply.tuned);
      else if (reply.error?.field === "target" || REFUSALS.includes(reply.error?.code)) {
        showRefusal(reply.error);
      } else {
        previewed = ""; // asked again with the next change or opening
        const code = reply.error?.code;
        const why = ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code] ?? "something went wrong";
        setPreview({ chance: `No rules just now: ${why}` }, "none");
      }
    }, PREVIEW_DEBOUNCE_MS);
  }

  /** Fill the preview's three lines (the chance, the rules, the skill) and its state. */
  function setPreview({ chance, rules = "", skill = "" }, state) {
    $("target-chance").textContent = chance;
    $("target-rules").textContent = rules;
    $("target-skill").textContent = skill;
    $("target-preview").dataset.state = state;
  }

  /** Show the rules a target was tuned to and their exact odds (the `tuned` answer). */
  function showTuned(tuned) {
    clearRulesError();
    const classic = presets[Object.keys(presets)[0]];
    const state = tuned.reachable ? "shown" : "out-of-reach";
    setPreview(
      {
        chance: tunedChanceWords(tuned),
        rules: tunedRulesWords(tuned.changed, classic),
        skill: skillUsedWords(tuned.skill),
      },
      state,
    );
  }

  // The client seed: kept by main.js, checked here only to say what is wrong with it.
  seedInput.dataset.help = "client-seed-help";
  targetInput.dataset.help = "target-help";

  function seedEdited() {
    const seed = seedInput.value;
    if (CLIENT_SEED.test(seed)) {
      markField(seedInput, null);
      actions.seedChanged(seed);
    } else {
      markField(seedInput, SEED_WORDS);
    }
  }

  /** Show the client seed the next game will use. */
  function showSeed(seed) {
    if (seedInput.value !== seed) seedInput.value = seed;
    markField(seedInput, null);
  }

  syncSettings();
  return {
    follow,
    open,
    startMatch,
    confirmLock,
    showOdds,
    showOddsUnavailable,
    showRulesError: showRefusal,
    showSeed,
  };
}
