// The AI page's match: its mode, the HP bars (over the board on one column) and the
// difficulty, the lock and the chances (adaptive matches only), "How it works", and the
// tally of wins, losses and draws.
import { $ } from "./dom.js";
import {
  FULL_HP,
  chancesSentence,
  difficultyNoteWords,
  fixedModeWords,
  gameWords,
  lockButtonWords,
  modeName,
  ownChanceWords,
} from "./words.js";

const formatDelta = (n) => (n > 0 ? `+${n}` : n < 0 ? `-${-n}` : "±0");

/**
 * The match panel over the server-rendered page. `actions`: lockDifficulty() (asked
 * first, by the rules dialog) and toggleChances(on). The handle: render(state),
 * showChances(answer).
 */
export function createMatchPanel(actions) {
  // On one column (a phone) the HP bars head the board, where a game's end is seen with
  // its change; beside the board they head the match card.
  const oneColumn = matchMedia("(max-width: 860px)");
  const placeBars = () => (oneColumn.matches ? $("hp-band") : $("hp-bars")).prepend($("hp-pair"));
  placeBars();
  oneColumn.addEventListener("change", placeBars);

  $("lock").addEventListener("click", () => actions.lockDifficulty());
  const chancesToggle = $("chances-toggle");
  chancesToggle.addEventListener("click", () => {
    const on = chancesToggle.getAttribute("aria-pressed") !== "true";
    chancesToggle.setAttribute("aria-pressed", String(on));
    if (!on) showChances(null);
    actions.toggleChances(on);
  });

  function renderMeter(side, hp, delta, maxHp, why = "") {
    const value = Math.max(0, Math.min(maxHp, hp));
    const width = Math.round((value / maxHp) * 1000) / 10;
    $(`${side}-hp`).textContent = String(value);
    $(`${side}-fill`).style.width = `${width}%`;
    $(`${side}-ghost`).style.width = `${width}%`;
    const meter = $(`${side}-meter`);
    meter.setAttribute("aria-valuemax", String(maxHp));
    meter.setAttribute("aria-valuenow", String(value));
    meter.dataset.level = width <= 25 ? "low" : width <= 50 ? "mid" : "high";
    const badge = $(`${side}-delta`);
    badge.hidden = delta == null;
    if (delta != null) {
      badge.textContent = why || formatDelta(delta);
      badge.dataset.sign = delta > 0 ? "up" : delta < 0 ? "down" : "zero";
    }
  }

  function render(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    $("mode-chip").textContent = modeName(state.mode);
    $("game-number").textContent = gameWords(match.game);
    $("hp-bars").hidden = $("hp-band").hidden = !adaptive;
    renderHowItWorks(state.mode);
    if (adaptive) {
      const change = state.status !== "playing" ? match.last_hp_change : null;
      const maxHp = state.rules?.max_hp ?? 100;
      // A win heals nothing at full HP: the badge says so rather than a bare ±0.
      const won = state.status === "human_won";
      const full = won && change?.human === 0 && match.human_hp >= maxHp;
      renderMeter("human", match.human_hp, change?.human, maxHp, full ? FULL_HP : "");
      renderMeter("ai", match.ai_hp, change?.ai, maxHp);
      $("difficulty").textContent = String(match.difficulty);
      $("difficulty-note").textContent = difficultyNoteWords(match.difficulty, match.locked);
    }
    renderTools(state);
    $("wins").textContent = String(match.record.wins);
    $("losses").textContent = String(match.record.losses);
    $("draws").textContent = String(match.record.draws);
  }

  // Lock difficulty and Show my chances: adaptive matches only.
  function renderTools(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    $("match-tools").hidden = !adaptive;
    const lock = $("lock");
    const locked = match.locked != null;
    lock.setAttribute("aria-pressed", String(locked));
    lock.disabled = locked || match.over;
    $("lock-text").textContent = lockButtonWords(match.locked);
    chancesToggle.disabled = match.over;
    if (!adaptive || match.over) showChances(null);
  }

  /** The chances of the match under way (a current `odds` answer: the player's own, then
   * the scripted players' for reference), or hide them with null. */
  function showChances(answer) {
    const shown = Boolean(answer && chancesToggle.getAttribute("aria-pressed") === "true");
    $("chances").hidden = !shown;
    $("chances-you").textContent = shown ? ownChanceWords(answer.you) : "";
    $("chances-reference").textContent = shown ? chancesSentence(answer.odds) : "";
  }

  /** "How it works": the HP rules in adaptive mode, the fixed mode's way otherwise. */
  function renderHowItWorks(mode) {
    const adaptive = mode === "adaptive";
    for (const part of $("how").querySelectorAll("[data-mode]")) {
      part.hidden = (part.dataset.mode === "adaptive") !== adaptive;
    }
    if (adaptive) return;
    const way = $(`mode-${mode}-desc`)?.textContent ?? "";
    $("how-fixed").textContent = fixedModeWords(modeName(mode), way);
  }

  return { render, showChances };
}
