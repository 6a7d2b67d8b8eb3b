// The AI page's dice panel (docs/fairness.md): the commitment before the game, the seeds,
// after it the browser's check of the dice, and the game's record to download.
import { $ } from "./dom.js";
import {
  DICE_CHECK,
  RECORD_VERIFIED,
  SEED_HIDDEN,
  diceFailedWords,
  nextSeedWords,
} from "./words.js";

/** The dice panel over the server-rendered page: render(state), showSeed(seed),
 * showVerdict(record, verdict). */
export function createDicePanel() {
  let shown = null;
  let nextSeed = "";
  let downloadUrl = "";

  /** The client seed the next game will use, as the dice box says it. */
  function showSeed(seed) {
    nextSeed = seed;
    if (shown) render(shown);
  }

  function render(state) {
    shown = state;
    const record = state.record;
    const panel = $("dice");
    panel.hidden = !record;
    if (!record) return;
    const dice = record.dice;
    const over = state.status !== "playing";
    // A game begun before the dice (an upgrade) has no commitment to show.
    for (const part of panel.querySelectorAll(".dice-details, .dice-seed")) part.hidden = !dice;
    if (dice) {
      $("dice-commitment-full").textContent = dice.commitment;
      $("dice-server-seed").textContent = dice.server_seed ?? SEED_HIDDEN;
      $("dice-client-seed").textContent = dice.client_seed;
      const later = nextSeed && !dice.client_seed.startsWith(`${nextSeed}-`);
      $("dice-next-seed").textContent = later ? nextSeedWords(nextSeed) : "";
      // Format 1 records (before 0.5) say nothing of it; only an explicit false is shown.
      $("dice-unseeded").hidden = dice.player_seeded !== false;
    }
    const next = state.next_commitment;
    $("dice-next").hidden = !next;
    $("dice-next-commitment").textContent = next ?? "";
    const check = $("dice-check");
    if (!dice) {
      setCheck(DICE_CHECK.none, "none");
    } else if (!dice.server_seed) {
      setCheck(DICE_CHECK.waiting, "waiting");
    } else if (check.dataset.commitment !== dice.commitment) {
      setCheck(DICE_CHECK.checking, "checking");
    }
    renderDownload(over ? record : null, state.signed_record);
  }

  function setCheck(text, result, commitment = "") {
    const check = $("dice-check");
    // The same words again are not written again, so the status is not read again.
    if (check.textContent !== text) check.textContent = text;
    check.dataset.result = result;
    check.dataset.commitment = commitment;
  }

  /**
   * Show the result of checking the dice of `record`: verifyRecord's answer, or null
   * when the checker could not run.
   */
  function showVerdict(record, verdict) {
    const showing = shown?.record?.dice;
    if (!showing || showing.commitment !== record.dice?.commitment) return;
    if (!verdict) {
      setCheck(DICE_CHECK.unchecked, "none");
      return;
    }
    const text = verdict.ok ? RECORD_VERIFIED[verdict.signature] : diceFailedWords(verdict.reason);
    setCheck(text, verdict.ok ? "ok" : "failed", showing.commitment);
  }

  /** Offer the game's record for download: the signed one, when the server signed it. */
  function renderDownload(record, signed) {
    const link = $("dice-download");
    link.hidden = $("dice-verify").hidden = !record;
    const name = record ? `tictactoe-game-${record.game}.json` : "";
    const commitment = record?.dice?.commitment ?? "";
    if (!record || (link.download === name && link.dataset.commitment === commitment)) return;
    if (downloadUrl) URL.revokeObjectURL(downloadUrl);
    const json = JSON.stringify(signed ?? record, null, 2);
    downloadUrl = URL.createObjectURL(new Blob([json], { type: "application/json" }));
    link.href = downloadUrl;
    link.download = name;
    link.dataset.commitment = commitment;
  }

  return { render, showSeed, showVerdict };
}
