// The questions asked before a match changes for good, each in its own modal dialog
// (Escape cancels) whose first button keeps things as they are: starting over while the
// match has something to lose, and locking the AI's difficulty for the rest of the match.
import { $ } from "./dom.js";
import { lockWords } from "./words.js";
import { lockButtonWords, newMatchWords } from "./words_rules.js";

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
 * A question in the modal dialog `id`: `ask(yes)` shows it with its focus on `keep`, and
 * `answered(yes)` is told how it closed (true when by the button `yes`). `opener` and
 * `elsewhere` as for modal().
 */
function question(id, { keep, yes, answered, ...focus }) {
  const dialog = $(id);
  modal(dialog, focus);
  $(keep).addEventListener("click", () => dialog.close());
  $(yes).addEventListener("click", () => dialog.close(yes));
  dialog.addEventListener("close", () => answered(dialog.returnValue === yes));
  return () => {
    dialog.returnValue = "";
    dialog.showModal();
    $(keep).focus();
  };
}

/**
 * The two questions over the rules dialog `rules`: `startMatch(settings)` starts the new
 * match once confirmed, and `lockDifficulty()` locks the AI.
 */
export function createQuestions(rules, { startMatch, lockDifficulty }) {
  let confirmed = null; // the settings of the new match asked about
  const askNewMatch = question("confirm", {
    keep: "confirm-keep",
    yes: "confirm-start",
    opener: () => $("open-rules"),
    elsewhere: () => rules.open,
    answered: (yes) => {
      if (yes) startMatch(confirmed);
      else if (rules.open) rules.querySelector("button[type=submit]").focus();
    },
  });
  const askLock = question("lock-confirm", {
    keep: "lock-keep",
    yes: "lock-yes",
    opener: () => $("lock"),
    answered: (yes) => yes && lockDifficulty(),
  });

  /** Ask whether to start `settings` (`summary`, in words) and lose `progress`. */
  function confirmNewMatch(settings, progress, summary) {
    confirmed = settings;
    $("confirm-text").textContent = progress;
    $("confirm-new").textContent = newMatchWords(summary);
    askNewMatch();
  }

  /** Ask whether to lock the AI at the difficulty `level`. */
  function confirmLock(level) {
    $("lock-yes").textContent = lockButtonWords(level);
    $("lock-confirm-text").textContent = lockWords(level);
    askLock();
  }

  return { confirmNewMatch, confirmLock };
}
