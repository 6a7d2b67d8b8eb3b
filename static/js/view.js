// The AI page: renders server snapshots into the DOM and turns input into intentions.
// No game rules live here; every decision comes from the server's `state`. The board,
// the headline and the AI's explanation are drawn here; the match panel, the dice panel
// and the controls each have their module.

import { createBoard, nameOf, shapeOf } from "./board.js";
import { announce, showConnection } from "./connection.js";
import { $ } from "./dom.js";
import { labAddress } from "./protocol.js";
import { createControls } from "./view_controls.js";
import { createDicePanel } from "./view_dice.js";
import { createMatchPanel } from "./view_match.js";
import {
  EXPLAIN_EMPTY,
  LOADING,
  MATCH_RESULTS,
  NOT_CONNECTED,
  OFFLINE_HEADLINES,
  RESULTS,
  THINKING,
  YOUR_TURN,
  deadNewsWords,
  errorWords,
  gameMetaWords,
  lastGameWords,
  latestMoveWords,
  modeName,
  noticeWords,
  offlineMoveWords,
  practiceWords,
} from "./words.js";

const NOTICE_MS = 3500;
const SERVER_NOTICE_MS = 10000; // what the server tells unasked is read more slowly
const SERVER_NOTICE_FIRST_MS = 2000; // errors that follow from it do not replace it at once

/**
 * Build the view over the server-rendered page. `actions` receives the player's
 * intentions: play(cell), nextGame(), takeBack(), newMatch() (the one the rules dialog
 * describes), toggleHints(on), lockDifficulty() (asked first, by the rules dialog),
 * toggleChances(on), numberKeysChanged(on) and toggleSound(on).
 */
export function createView(actions) {
  const board = $("board");
  const baseTitle = document.title;
  let shown = null;
  let online = false;
  let socketStatus = "connecting"; // as setConnection last said: "online", "offline", "refused"
  let serverNoticeUntil = 0;

  // The board sends every play to the server, whose answer is shown; the one move
  // refused here is a move while not connected, which could not be sent. It is drawn
  // again for each rule set: "4x4k4" is one 4x4 board, "notakto3" three 3x3 boards.
  let drawnFor = null;
  let shape = shapeOf({});
  let grid = null;
  let numberKeys = true;
  const name = (cell) => nameOf(shape, cell);

  function draw(variant) {
    if (variant === drawnFor) return;
    drawnFor = variant;
    const [size, boards] = [/^(\d)x/, /^notakto(\d)/].map((named) => named.exec(variant)?.[1]);
    shape = shapeOf({ size: Number(size ?? 3), boards: Number(boards ?? 1) });
    grid?.remove();
    grid = createBoard(board, { ...shape, onPlay: play });
    grid.setNumberKeys(numberKeys);
  }
  draw("classic");

  // News of the game (a dead board) in the notice area, else a refusal.
  function say(text, { news = false, ms = NOTICE_MS } = {}) {
    $("notice").dataset.tone = news ? "news" : "";
    announce(text, ms);
  }

  function play(cell) {
    if (online) return actions.play(cell);
    say(offlineMoveWords(name(cell)));
    return { ok: false };
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  const showHints = (analysis) => grid.showHints(analysis);

  const drawn = {
    setNumberKeys(on) {
      numberKeys = on;
      grid.setNumberKeys(on);
    },
    focus: () => grid.focus(),
  };
  const controls = createControls(drawn, { ...actions, hintsOff: () => showHints(null) });
  const match = createMatchPanel(actions);
  const dice = createDicePanel();

  // The board as the server's snapshot has it: playable when it is the player's turn.
  function renderBoard(state) {
    const playable = online && state.status === "playing" && state.turn === "human";
    const ai = state.human === "X" ? "O" : "X";
    const notakto = state.variant?.startsWith("notakto");
    grid.setColours(notakto ? {} : { [state.human]: "you", [ai]: "ai" });
    grid.set({
      marks: state.board,
      playable,
      last: state.status === "playing" ? (state.last_ai_move?.cell ?? -1) : -1,
      line: state.winning_line,
      dead: state.dead ?? [],
    });
  }

  function renderStatus(state) {
    $("game-meta").textContent = gameMetaWords(state);
    const over = state.match.over;
    $("substatus").textContent = over ? lastGameWords(state.status) : "";
    $("substatus").dataset.match = over ? state.match.winner : "";
    renderHeadline();
  }

  /** The headline and the tab's title: whose turn, the result, or why nothing can be played. */
  function renderHeadline() {
    const state = shown;
    const cut = OFFLINE_HEADLINES[socketStatus];
    const playing = state?.status === "playing";
    const thinking = !cut && playing && state.turn === "ai";
    let text = cut ?? LOADING;
    let title = cut ? NOT_CONNECTED : "";
    if (!cut && state) {
      text = playing ? (thinking ? THINKING : YOUR_TURN) : RESULTS[state.status];
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

  function sayDead(before, state) {
    if (before?.variant !== state.variant || before.match.game !== state.match.game) return;
    const said = deadNewsWords(state.dead ?? [], before.dead ?? []);
    if (said) say(said, { news: true });
  }

  function render(state) {
    const fresh = !shown || shown.version !== state.version;
    draw(state.variant ?? "classic");
    sayDead(shown, state);
    shown = state;
    board.dataset.turn = state.turn ?? "none";
    board.dataset.status = state.status;
    board.dataset.version = String(state.version);
    board.dataset.mode = state.mode;
    renderBoard(state);
    renderStatus(state);
    match.render(state);
    controls.render(state);
    const said = latestMoveWords(state, modeName(state.mode), name);
    $("explain").textContent = said || EXPLAIN_EMPTY;
    $("explain").classList.toggle("is-empty", !said);
    renderWhy(state);
    dice.render(state);
    renderPractice(state);
    if (fresh) showHints(null);
  }

  /**
   * "Why this move?": the lab at the position the AI's move was chosen in, offered while
   * that move is the latest (the line above it speaks of it), never on the player's.
   */
  function renderWhy(state) {
    const why = $("why");
    const latest = state.history.at(-1);
    why.hidden = latest?.by !== "ai";
    if (why.hidden) return;
    const before = [...state.board].map((mark, cell) => (cell === latest.cell ? "." : mark));
    // How the AI chose it, its roll and the difficulty, when the state says (last_ai_move).
    const told = state.last_ai_move;
    const move = told?.cell === latest.cell ? told : { cell: latest.cell };
    why.href = labAddress(why.href, before.join(""), move, state.variant);
  }

  /** On the practice page: the mistake practised, and what the latest move does. */
  function renderPractice(state) {
    const lesson = $("practice-lesson");
    if (!lesson) return;
    // Words only with the game they belong to: none on a game that practises nothing.
    const words = state.practice ? practiceWords(state.practice) : { lesson: "", feedback: "" };
    lesson.textContent = words.lesson;
    $("practice-feedback").textContent = words.feedback;
    $("practice-feedback").dataset.feedback = state.practice?.feedback?.feedback ?? "";
  }

  /**
   * Reflect the socket: "online", "offline" (reconnecting) or "refused"; `reason` is
   * the server's word when it refused the connection.
   */
  function setConnection(status, reason = "") {
    online = status === "online";
    socketStatus = status;
    showConnection(status, reason);
    renderHeadline();
    if (shown) renderBoard(shown);
  }

  function showError(code) {
    // A refusal right after a server notice is its consequence (a move on the lost board).
    if (performance.now() < serverNoticeUntil) return;
    say(errorWords(code));
  }

  /** Show what the server's `notice` says, by its code. */
  function showNotice(code) {
    say(noticeWords(code), { ms: SERVER_NOTICE_MS });
    serverNoticeUntil = performance.now() + SERVER_NOTICE_FIRST_MS;
  }

  return {
    render,
    showHints,
    showHintsOn: controls.showHintsOn,
    showNextMatch: controls.showNextMatch,
    showChances: match.showChances,
    showSeed: dice.showSeed,
    showNumberKeys: controls.showNumberKeys,
    showSound: controls.showSound,
    showVerdict: dice.showVerdict,
    setConnection,
    showError,
    showNotice,
    shape: () => shape,
    name,
    headline: () => $("status-text").textContent,
    focusBoard() {
      grid.focus();
      board.scrollIntoView({ block: "nearest" });
    },
  };
}
