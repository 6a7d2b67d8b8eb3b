// The page: renders server snapshots into the DOM and turns input into intentions.
// No game rules live here; every decision comes from the server's `state`.

import {
  CLIENT_ERROR_MESSAGES,
  ERROR_MESSAGES,
  NOTICE_MESSAGES,
  cellName,
  labAddress,
} from "./protocol.js";
import { createBoard } from "./board.js";
import {
  MATCH_RESULTS,
  RESULTS,
  RECORD_VERIFIED,
  difficultyWords,
  latestMoveWords,
  offlineMoveWords,
  practiceWords,
} from "./words.js";

const NOTICE_MS = 3500;
const SERVER_NOTICE_MS = 10000; // what the server tells unasked is read more slowly
const SERVER_NOTICE_FIRST_MS = 2000; // errors that follow from it do not replace it at once

const THINKING = "AI is thinking";
const OFFLINE_STATUS = {
  offline: "Not connected: reconnecting…",
  refused: "Not connected: the server refused the connection",
};

const formatDelta = (n) => (n > 0 ? `+${n}` : n < 0 ? `-${-n}` : "±0");

/**
 * A probability as a percentage with about three significant figures: 84.7%, 0.002%,
 * 99.3%, 100%; never rounded up to 100% or down to 0% unless it is exactly that.
 */
export function percent(probability) {
  const p = probability * 100;
  if (!(p > 0)) return "0%";
  if (p >= 100) return "100%";
  const trim = (text) => (text.includes(".") ? text.replace(/\.?0+$/, "") : text);
  let decimals = Math.min(20, Math.max(0, 2 - Math.floor(Math.log10(p))));
  let text = trim(p.toFixed(decimals));
  while (Number(text) >= 100 && decimals < 20) text = trim(p.toFixed(++decimals));
  return `${text}%`;
}

/** The chances of the match under way, from its current HP. */
export function chancesSentence(odds) {
  return (
    `From here, a perfect player wins ${percent(odds.perfect.human_match_win_prob)} ` +
    `of this match; a random one ${percent(odds.random.human_match_win_prob)}`
  );
}

/**
 * Build the view over the server-rendered page. `actions` receives the player's
 * intentions: play(cell), nextGame(), takeBack(), newMatch() (the one the rules dialog
 * describes), toggleHints(on), lockDifficulty() (asked first, by the rules dialog),
 * toggleChances(on), numberKeysChanged(on) and toggleSound(on).
 */
export function createView(actions) {
  const $ = (id) => document.getElementById(id);
  // A mode's name is the label of its option in the new-match form.
  const modeName = (mode) => $(`mode-${mode}`)?.labels[0]?.textContent ?? mode;
  const board = $("board");
  const hint = $("hint");
  const baseTitle = document.title;
  let shown = null;
  let online = false;
  let socketStatus = "connecting"; // as setConnection last said: "online", "offline", "refused"
  let noticeTimer = 0;
  let serverNoticeUntil = 0;
  let nextSeed = "";
  let downloadUrl = "";

  // The board sends every play to the server, whose answer is shown; the one move
  // refused here is a move while not connected, which could not be sent.
  const grid = createBoard(board, { size: 3, label: "Board", onPlay: play });

  function play(cell) {
    if (online) return actions.play(cell);
    announce(offlineMoveWords(cellName(cell)), NOTICE_MS);
    return { ok: false };
  }

  const numberKeys = $("number-keys");
  numberKeys.addEventListener("change", () => {
    showNumberKeys(numberKeys.checked);
    actions.numberKeysChanged(numberKeys.checked);
  });

  /** Whether keys 1-9 play cells: the switch, and the board's description of its keys. */
  function showNumberKeys(on) {
    numberKeys.checked = on;
    grid.setNumberKeys(on);
  }

  const sound = $("sound");
  sound.addEventListener("click", () => {
    const on = sound.getAttribute("aria-pressed") !== "true";
    showSound(on);
    actions.toggleSound(on);
  });

  /** Whether sounds play: the Sound toggle, pressed when on. */
  function showSound(on) {
    sound.setAttribute("aria-pressed", String(on));
    sound.dataset.sound = on ? "on" : "off";
  }

  $("next-game").addEventListener("click", () => actions.nextGame());
  $("take-back").addEventListener("click", () => actions.takeBack());
  $("new-match").addEventListener("click", () => actions.newMatch());
  $("lock").addEventListener("click", () => actions.lockDifficulty());
  const chancesToggle = $("chances-toggle");
  chancesToggle.addEventListener("click", () => {
    const on = chancesToggle.getAttribute("aria-pressed") !== "true";
    chancesToggle.setAttribute("aria-pressed", String(on));
    if (!on) showChances(null);
    actions.toggleChances(on);
  });
  hint.addEventListener("click", () => {
    const on = hint.getAttribute("aria-pressed") !== "true";
    showHintsOn(on);
    if (!on) showHints(null);
    actions.toggleHints(on);
  });

  /** Whether hints are on: the Hint toggle, pressed when on. */
  function showHintsOn(on) {
    hint.setAttribute("aria-pressed", String(on));
  }

  /** What "New match" would start, in a few words (the rules dialog's summary). */
  function showNextMatch(text) {
    $("new-match-uses").textContent = `New match: ${text}`;
  }

  /** The client seed the next game will use, as the dice box says it. */
  function showSeed(seed) {
    nextSeed = seed;
    if (shown) renderDice(shown);
  }

  // The board as the server's snapshot has it: playable when it is the player's turn.
  function renderBoard(state) {
    const playable = online && state.status === "playing" && state.turn === "human";
    const ai = state.human === "X" ? "O" : "X";
    grid.setColours({ [state.human]: "you", [ai]: "ai" });
    grid.set({
      marks: state.board,
      playable,
      last: state.status === "playing" ? (state.last_ai_move?.cell ?? -1) : -1,
      line: state.winning_line,
    });
  }

  function renderStatus(state) {
    const order = state.first === "human" ? "you go first" : "the AI goes first";
    $("game-meta").textContent = `Game ${state.match.game} · You play ${state.human}, ${order}`;
    const match = state.match;
    $("substatus").textContent = match.over ? `Last game: ${RESULTS[state.status]}` : "";
    $("substatus").dataset.match = match.over ? match.winner : "";
    renderHeadline();
  }

  /** The headline and the tab's title: whose turn, the result, or why nothing can be played. */
  function renderHeadline() {
    const state = shown;
    const cut = OFFLINE_STATUS[socketStatus];
    const playing = state?.status === "playing";
    const thinking = !cut && playing && state.turn === "ai";
    let text = cut ?? "Loading the game";
    let title = cut ? "Not connected" : "";
    if (!cut && state) {
      text = playing ? (thinking ? THINKING : "Your turn") : RESULTS[state.status];
      if (state.match.over) text = MATCH_RESULTS[state.match.winner];
      title = thinking ? `${THINKING}…` : text;
    }
    const over = !cut && state?.match.over;
    $("status-text").textContent = text;
    $("thinking").hidden = !thinking;
    $("status").dataset.result = cut
      ? "offline"
      : over
        ? `${state.match.winner === "human" ? "human" : "ai"}_won`
        : (state?.status ?? "loading");
    board.setAttribute("aria-disabled", String(Boolean(cut)));
    document.title = title ? `${title} · ${baseTitle}` : baseTitle;
  }

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

  function renderMatch(state) {
    const match = state.match;
    const adaptive = state.mode === "adaptive";
    $("mode-chip").textContent = modeName(state.mode);
    $("game-number").textContent = `Game ${match.game}`;
    $("hp-bars").hidden = !adaptive;
    renderHowItWorks(state.mode);
    if (adaptive) {
      const change = state.status !== "playing" ? match.last_hp_change : null;
      const maxHp = state.rules?.max_hp ?? 100;
      // A win heals nothing at full HP: the badge says so rather than a bare ±0.
      const won = state.status === "human_won";
      const full = won && change?.human === 0 && match.human_hp >= maxHp;
      renderMeter("human", match.human_hp, change?.human, maxHp, full ? "already at full HP" : "");
      renderMeter("ai", match.ai_hp, change?.ai, maxHp);
      $("difficulty").textContent = String(match.difficulty);
      $("difficulty-note").textContent = ` — ${difficultyWords(match.difficulty, match.locked)}`;
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
    $("lock-text").textContent = locked
      ? `Difficulty locked at ${match.locked}`
      : "Lock difficulty";
    const toggle = $("chances-toggle");
    toggle.disabled = match.over;
    if (!adaptive || match.over) showChances(null);
  }

  /** The chances of the match under way (an `odds` answer), or hide them with null. */
  function showChances(odds) {
    const line = $("chances");
    const on = $("chances-toggle").getAttribute("aria-pressed") === "true";
    line.hidden = !(odds && on);
    line.textContent = odds && on ? chancesSentence(odds) : "";
  }

  // The dice panel: the commitment before the game, the seed, and after it the check.
  function renderDice(state) {
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
      $("dice-server-seed").textContent = dice.server_seed ?? "revealed when the game ends";
      $("dice-client-seed").textContent = dice.client_seed;
      const later = nextSeed && !dice.client_seed.startsWith(`${nextSeed}-`);
      $("dice-next-seed").textContent = later ? ` (from your next game: ${nextSeed}-…)` : "";
      // Format 1 records (before 0.5) say nothing of it; only an explicit false is shown.
      $("dice-unseeded").hidden = dice.player_seeded !== false;
    }
    const next = state.next_commitment;
    $("dice-next").hidden = !next;
    $("dice-next-commitment").textContent = next ?? "";
    const check = $("dice-check");
    if (!dice) {
      setCheck("This game began before verifiable dice", "none");
    } else if (!dice.server_seed) {
      setCheck("Dice fixed before the game: checked here when it ends", "waiting");
    } else if (check.dataset.commitment !== dice.commitment) {
      setCheck("Checking the dice…", "checking");
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
      setCheck("The dice could not be checked: reload the page to try again", "none");
      return;
    }
    const failed = `Dice check failed: ${verdict.reason}`;
    const text = verdict.ok ? RECORD_VERIFIED[verdict.signature] : failed;
    setCheck(text, verdict.ok ? "ok" : "failed", showing.commitment);
  }

  /** Offer the game's record for download: the signed one, when the server signed it. */
  function renderDownload(record, signed) {
    const link = $("dice-download");
    link.hidden = !record;
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

  /** "How it works": the HP rules in adaptive mode, the fixed mode's way otherwise. */
  function renderHowItWorks(mode) {
    const adaptive = mode === "adaptive";
    for (const part of $("how").querySelectorAll("[data-mode]")) {
      part.hidden = (part.dataset.mode === "adaptive") !== adaptive;
    }
    if (adaptive) return;
    const way = $(`mode-${mode}-desc`)?.textContent ?? "";
    $("how-fixed").textContent =
      `${modeName(mode)} mode — ${way}. No hit points here: the AI plays this way all match, ` +
      "and the match counts your wins, losses and draws.";
  }

  function renderActions(state) {
    const over = state.status !== "playing";
    const buttons = [$("next-game"), $("new-match"), hint, $("take-back")];
    // Take-back in the fixed modes (and practice) once you have moved; an HP match says
    // why it has none.
    const moved = state.history.some((move) => move.by === "human");
    const adaptive = state.mode === "adaptive";
    $("take-back").hidden = adaptive || !moved || state.turn !== "human";
    $("take-back-note").hidden = !adaptive || !moved || over;
    const held = buttons.find((button) => button.contains(document.activeElement));
    buttons[0].hidden = !over || state.match.over;
    buttons[1].hidden = !state.match.over;
    $("new-match-uses").hidden = !state.match.over;
    // Nothing to hint once the game is over.
    hint.hidden = over;
    // A button that vanishes under the focus hands it back to the board.
    if (held?.hidden) grid.focus();
  }

  function render(state) {
    const fresh = !shown || shown.version !== state.version;
    shown = state;
    board.dataset.turn = state.turn ?? "none";
    board.dataset.status = state.status;
    board.dataset.version = String(state.version);
    board.dataset.mode = state.mode;
    renderBoard(state);
    renderStatus(state);
    renderMatch(state);
    renderActions(state);
    const said = latestMoveWords(state, modeName(state.mode));
    $("explain").textContent = said || "The AI explains each of its moves here.";
    $("explain").classList.toggle("is-empty", !said);
    renderWhy(state);
    renderDice(state);
    renderPractice(state);
    if (fresh) showHints(null);
  }

  /** "Why this move?": the lab at the position the AI's latest move was chosen in. */
  function renderWhy(state) {
    const why = $("why");
    const at = state.history.findLastIndex((move) => move.by === "ai");
    why.hidden = at < 0;
    if (at < 0) return;
    const later = new Set(state.history.slice(at).map((move) => move.cell));
    const before = [...state.board].map((mark, cell) => (later.has(cell) ? "." : mark)).join("");
    // The move played there, and how the AI chose it when the state says (last_ai_move).
    const { cell } = state.history[at];
    const decision = state.last_ai_move?.cell === cell ? state.last_ai_move.decision : null;
    why.href = labAddress(why.href, before, { cell, decision });
  }

  /** On the practice page: the mistake practised, and what the latest move does. */
  function renderPractice(state) {
    const lesson = $("practice-lesson");
    if (!lesson || !state.practice) return;
    const words = practiceWords(state.practice);
    lesson.textContent = words.lesson;
    $("practice-feedback").textContent = words.feedback;
    $("practice-feedback").dataset.feedback = state.practice.feedback?.feedback ?? "";
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  const showHints = (analysis) => grid.showHints(analysis);

  /**
   * Reflect the socket: "online", "offline" (reconnecting) or "refused"; `reason` is
   * the server's word when it refused the connection.
   */
  function setConnection(status, reason = "") {
    online = status === "online";
    socketStatus = status;
    const banner = $("connection");
    banner.hidden = online;
    banner.dataset.status = status;
    const refusal = `Connection refused: ${reason || "reload the page"}`;
    $("connection-text").textContent = status === "refused" ? refusal : "Reconnecting…";
    document.body.classList.toggle("is-offline", !online);
    renderHeadline();
    if (shown) renderBoard(shown);
  }

  function announce(text, ms) {
    const notice = $("notice");
    notice.textContent = text;
    notice.classList.add("is-visible");
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => {
      notice.classList.remove("is-visible");
      noticeTimer = setTimeout(() => (notice.textContent = ""), 400);
    }, ms);
  }

  function showError(code) {
    // A refusal right after a server notice is its consequence (a move on the lost board).
    if (performance.now() < serverNoticeUntil) return;
    announce(
      ERROR_MESSAGES[code] ?? CLIENT_ERROR_MESSAGES[code] ?? "Something went wrong",
      NOTICE_MS,
    );
  }

  /** Show what the server's `notice` says, by its code. */
  function showNotice(code) {
    announce(NOTICE_MESSAGES[code] ?? "The server sent a notice", SERVER_NOTICE_MS);
    serverNoticeUntil = performance.now() + SERVER_NOTICE_FIRST_MS;
  }

  return {
    render,
    showHints,
    showHintsOn,
    showNextMatch,
    showChances,
    showSeed,
    showNumberKeys,
    showSound,
    showVerdict,
    setConnection,
    showError,
    showNotice,
    focusBoard() {
      grid.focus();
      board.scrollIntoView({ block: "nearest" });
    },
  };
}
