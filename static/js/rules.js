// The new match's rules, in their own modal dialog: this module wires its parts, the
// form and its presets (rules_form.js), the refusals shown by their field
// (rules_marks.js), the preview of a chance asked for (rules_preview.js) and the
// questions asked before a match changes for good (rules_dialogs.js). Every setting is
// judged by the server: the form asks it (`new_match` with `check`) before it asks
// whether to abandon anything.

import { $ } from "./dom.js";
import { CLIENT_SEED } from "./protocol.js";
import { createQuestions, modal } from "./rules_dialogs.js";
import { createRulesForm } from "./rules_form.js";
import { REFUSALS, TARGET_REFUSED, createRuleMarks } from "./rules_marks.js";
import { createPreview, showPreview } from "./rules_preview.js";
import { promiseWords } from "./words.js";
import { progressWords } from "./words_rules.js";

/** What the match of the snapshot `shown` would lose, in words; "" when it has nothing to lose. */
function progress(shown) {
  const match = shown?.match;
  if (!match || match.over) return "";
  const moved = shown.status === "playing" && shown.history.some((m) => m.by === "human");
  if (!moved && match.games === 0) return "";
  return progressWords(match, shown.mode);
}

/** The Match card's modest line: what a match started from a target promised. */
function showPromise(promise) {
  const line = $("match-promise");
  line.hidden = !promise;
  line.textContent = promise ? promiseWords(promise) : "";
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
  const dialog = $("rules-dialog");
  const fields = createRulesForm();
  const { form, seedInput } = fields;
  const marks = createRuleMarks(fields, showPreview);
  const { preview, previewChanged } = createPreview(fields, marks, actions.checkMatch);
  const questions = createQuestions(dialog, {
    startMatch: (settings) => startMatch(settings),
    lockDifficulty: () => actions.lockDifficulty(),
  });
  let shown = null; // the last snapshot: what a new match would abandon
  let formTouched = false;
  let sending = false;
  let opener = null;
  let asked = ""; // the rules the odds were last asked for
  let putBack = null; // puts the form back as it was when the dialog opened
  let changed = null; // the field the player changed last, kept in view with its result
  const body = form.querySelector(".rules-body");

  modal(dialog, { opener: () => opener, elsewhere: (value) => value === "started" });
  $("open-rules").addEventListener("click", (event) => open(event.currentTarget));
  $("rules-close").addEventListener("click", () => dialog.close());
  $("rules-cancel").addEventListener("click", () => dialog.close());
  // Closed without starting (Cancel, Close, Escape): the new match is as it was.
  dialog.addEventListener("close", () => {
    if (dialog.returnValue !== "started") putBack?.();
    putBack = changed = null;
  });
  // A result that comes later (odds, a preview, a refusal) may push the field away.
  const kept = new ResizeObserver(() => {
    if (dialog.open && changed) fields.reveal(changed);
  });
  kept.observe($("rules-settings"));
  // The player scrolling the form themselves decides what is in view.
  for (const type of ["wheel", "touchmove"]) {
    body.addEventListener(type, () => (changed = null), { passive: true });
  }

  /** Open the dialog; the focus goes to its first field, or to `field` when given. */
  function open(from = document.activeElement, field = null) {
    opener = from;
    dialog.returnValue = "";
    if (!dialog.open) {
      putBack = keepForm();
      dialog.showModal();
      body.scrollTop = 0; // from the top, the summary first
    }
    (field ?? form.querySelector("input[name=mode]:checked")).focus({ preventScroll: !field });
    if (fields.targeted()) preview(); // the skill may have changed since the last preview
  }

  /** The form as it is, and whether the player changed it: a function that puts both back. */
  function keepForm() {
    const [restore, touched] = [fields.keep(), formTouched];
    return () => {
      restore();
      formTouched = touched;
      marks.clear();
      asked = ""; // the odds asked again: the rules put back may be refused ones
      if (!touched && shown) follow(shown);
      else syncSettings();
    };
  }

  form.addEventListener("input", (event) => {
    formTouched = true;
    fields.follow(event.target);
    if (event.target === seedInput) seedEdited();
    else syncSettings();
    changed = event.target;
    fields.reveal(changed);
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
    const settings = fields.readSettings();
    if (!fields.targetFits()) {
      sending = false;
      marks.showRefusal(TARGET_REFUSED, { started: true });
      return;
    }
    const checked = await actions.checkMatch(settings);
    sending = false;
    if (!checked.ok) {
      marks.showRefusal(checked.error, { started: true });
      return;
    }
    marks.clear();
    const lost = progress(shown);
    if (lost) questions.confirmNewMatch(settings, lost, fields.summary());
    else startMatch(settings);
  }

  /** Start the match `settings` describe (the form's by default). */
  async function startMatch(settings = fields.readSettings()) {
    const reply = await actions.newMatch(settings);
    if (!reply.ok) {
      const refused = REFUSALS.includes(reply.error?.code);
      if (!dialog.open && !refused) actions.failed(reply.error?.code);
      else {
        if (!dialog.open) open(document.activeElement);
        marks.showRefusal(reply.error, { started: true });
      }
      return reply;
    }
    formTouched = false;
    if (shown) follow(shown);
    if (dialog.open) dialog.close("started");
    actions.started();
    return reply;
  }

  /** Ask whether to lock the AI at the difficulty of the match shown. */
  function confirmLock() {
    const level = shown?.match?.difficulty;
    if (level != null) questions.confirmLock(level);
  }

  /** The form back to the defaults the page came with; the seed stays. */
  function resetSettings() {
    fields.reset();
    marks.clear();
    syncSettings();
  }

  /** Show what the form asks for, and tell the page: the odds, the preview, the summary. */
  function syncSettings() {
    fields.layout();
    // Ask for odds only when what would be asked changed.
    const ask = fields.readAsk();
    const key = JSON.stringify(ask);
    if (key !== asked) {
      asked = key;
      if (!ask) marks.clear();
      actions.rulesChanged(ask);
    }
    previewChanged();
    $("settings-summary").textContent = fields.summary();
    $("rules-next").textContent = fields.summary();
    actions.summaryChanged(fields.summary());
  }

  /**
   * Follow the snapshot `state`: until the player changes it, the form shows the match
   * under way, or just played once it is over, so that New match offers its rules again.
   */
  function follow(state) {
    shown = state;
    showPromise(state.record?.promise);
    if (formTouched) return;
    fields.fillFrom(state);
    syncSettings();
  }

  // The client seed: kept by main.js, checked here only to say what is wrong with it.
  function seedEdited() {
    const seed = seedInput.value;
    const fits = CLIENT_SEED.test(seed);
    marks.markSeed(!fits);
    if (fits) actions.seedChanged(seed);
  }

  /** Show the client seed the next game will use. */
  function showSeed(seed) {
    if (seedInput.value !== seed) seedInput.value = seed;
    marks.markSeed(false);
  }

  syncSettings();
  return {
    follow,
    open,
    startMatch,
    confirmLock,
    showOdds: marks.showOdds,
    showOddsUnavailable: marks.showOddsUnavailable,
    showRulesError: marks.showRefusal,
    showSeed,
  };
}
