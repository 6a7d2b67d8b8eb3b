// A finished game's replay with its review: the board at any ply, each move's verdict,
// and controls (first, previous, next, last, a scrubber, the arrow keys). The History
// page and a shared game's page both show it; the game and review come from the server.
// The board is the game's variant's (the review's `variant`: 3x3, 4x4, several boards).
import { createBoard, shapeOf } from "./board.js";
import { $ } from "./dom.js";
import { setDisabled } from "./focus.js";
import { cellIndex, labAddress } from "./protocol.js";
import { createReplayReader } from "./replay_reader.js";
import {
  RECORD_CHECK,
  RECORD_VERIFIED,
  REPLAY_BOARD_LABEL,
  betterCells,
  firstMoverWords,
  modeName,
  moveListWords,
  moveWords,
  recordFailedWords,
  sharedResult,
  verdictWords,
} from "./words.js";
import {
  NOTAKTO_SIDES,
  REPLAY_BOARDS_LABEL,
  cutShortWords,
  emptyBoardWords,
  modeOnVariant,
  ofWords,
  replayHeading,
  replayMoveWords,
  resultWords,
} from "./words_history.js";

/** When a game ended, as the player's locale writes it. */
export const formatWhen = (seconds) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(
    new Date(seconds * 1000),
  );

let replay = null; // {game, review, ply, signed, stranger, result}: a stranger's is someone else's
let reader = null; // the screen-reader mode's, once the controls are wired
let downloadUrl = null;
let board = null; // the replay's board: drawn again only for a game of another shape
let drawn = ""; // the shape it was drawn for
let blank = null; // the empty element it was drawn into, to draw another shape into

const CLASSIC = { name: "classic", rows: 3, columns: 3, boards: 1, notakto: false };
const variantOf = (review) => review.variant ?? CLASSIC; // a review before variants: 3x3

/** A move as its words name it: in Notakto, where both place X, by who moved first. */
const named = (review, move) =>
  variantOf(review).notakto ? { ...move, side: NOTAKTO_SIDES[move.side] } : move;

/** The cell a review names (b2, or 2:b2 on several boards) on `variant`'s boards. */
function indexOf(variant, name) {
  const [on, cell] = name.includes(":") ? name.split(":") : ["1", name];
  return (Number(on) - 1) * variant.rows * variant.columns + cellIndex(cell, variant.columns);
}

/** The marks on the board after `ply` moves, from the recorded cells (in Notakto both
 * place X). */
function boardAt(review, ply) {
  const variant = variantOf(review);
  const cells = Array(shapeOf(variant).cells).fill(".");
  review.moves.slice(0, ply).forEach((move) => {
    cells[indexOf(variant, move.cell)] = variant.notakto ? "X" : move.side;
  });
  return cells;
}

/** The replay's board, drawn for `variant`'s shape. */
function boardFor(variant) {
  const shape = shapeOf(variant);
  const key = `${shape.rows}x${shape.columns}x${shape.boards}`;
  if (board && drawn === key) return board;
  blank ??= $("replay-board").cloneNode(false);
  if (board) $("replay-board").replaceWith(blank.cloneNode(false));
  drawn = key;
  board = createBoard($("replay-board"), {
    ...shape,
    label: REPLAY_BOARD_LABEL,
    colours: { X: "you", O: "ai" },
  });
  if (shape.boards > 1) $("replay-board").setAttribute("aria-label", REPLAY_BOARDS_LABEL);
  return board;
}

function renderPly() {
  const { review, ply } = replay;
  const moves = review.moves;
  const variant = variantOf(review);
  const marks = boardAt(review, ply);
  const move = ply > 0 ? moves[ply - 1] : null;
  const shown = boardFor(variant);
  shown.mark(move ? betterCells(move).map((name) => indexOf(variant, name)) : []);
  shown.set({
    marks,
    last: move ? indexOf(variant, move.cell) : -1,
    line: ply === moves.length ? (replay.review.winning_line ?? null) : null,
    dead: move?.dead ?? [],
  });
  const first = firstMoverWords(replay.game.record.first, moves[0]?.by);
  $("replay-move").textContent = move
    ? replayMoveWords(ply, moves.length, moveWords(named(review, move)))
    : emptyBoardWords(first);
  $("replay-verdict").textContent = move ? verdictWords(move) : "";
  $("replay-verdict").dataset.verdict = move?.verdict ?? "";
  // "Why this move?" on the AI's moves only: the lab at the position it was chosen in,
  // with the move, how the AI chose it, its roll and the difficulty (the record's).
  const lab = $("replay-lab");
  lab.hidden = move?.by !== "ai";
  if (!lab.hidden) {
    const { roll, difficulty } = replay.game.record.moves?.[ply - 1] ?? {};
    const player = replay.stranger ? "them" : null; // a shared game of someone else's
    const cell = indexOf(variant, move.cell);
    const ai = { cell, decision: move.decision, roll, difficulty, player };
    lab.href = labAddress(lab.href, boardAt(review, ply - 1).join(""), ai, variant.name);
  }
  $("replay-scrubber").value = ply;
  $("replay-at").textContent = ofWords(ply, moves.length);
  const scrubber = $("replay-scrubber");
  for (const id of ["replay-first", "replay-previous"]) setDisabled($(id), ply === 0, scrubber);
  for (const id of ["replay-last", "replay-next"]) setDisabled($(id), ply === moves.length, scrubber);
  document.querySelectorAll("#replay-moves li").forEach((item, index) => {
    item.toggleAttribute("aria-current", index === ply - 1);
  });
}

function go(ply) {
  if (!replay) return;
  replay.ply = Math.max(0, Math.min(replay.review.moves.length, ply));
  renderPly();
  reader?.stepped();
}

/** The step shown, for the screen-reader mode: its position, and its words as shown. */
function shown() {
  if (!replay) return null;
  const { review, ply } = replay;
  const move = ply > 0 ? review.moves[ply - 1] : null;
  return {
    shape: shapeOf(variantOf(review)),
    marks: boardAt(review, ply),
    dead: move?.dead ?? [],
    ply,
    count: review.moves.length,
    result: replay.result,
    variant: variantOf(review).name,
    move: move ? moveWords(named(review, move)) : "",
    line: $("replay-move").textContent,
    verdict: $("replay-verdict").textContent,
  };
}

function renderMoveList(review) {
  const items = review.moves.map((move, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move-link";
    button.dataset.verdict = move.verdict;
    button.textContent = moveListWords(named(review, move));
    button.addEventListener("click", () => go(index + 1));
    item.append(button);
    return item;
  });
  $("replay-moves").replaceChildren(...items);
}

/** Offer the game's signed record for download, and check it as the game's page does. */
async function showRecord(signed, game) {
  const check = $("replay-check");
  const link = $("replay-download");
  check.hidden = link.hidden = $("replay-verify").hidden = !signed;
  if (!signed) return;
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  const json = JSON.stringify(signed, null, 2);
  downloadUrl = URL.createObjectURL(new Blob([json], { type: "application/json" }));
  link.href = downloadUrl;
  link.download = `tictactoe-game-${game.record.game}.json`;
  check.textContent = RECORD_CHECK.checking;
  check.dataset.result = "checking";
  let verdict = null;
  try {
    const { verifyRecord } = await import("./fairness.js");
    verdict = await verifyRecord(signed);
  } catch {
    // the checker could not be loaded: said below
  }
  if (replay?.signed !== signed) return; // another game is shown by now
  if (!verdict) {
    check.textContent = RECORD_CHECK.unchecked;
    check.dataset.result = "none";
    return;
  }
  const ok = verdict.ok;
  check.textContent = ok ? RECORD_VERIFIED[verdict.signature] : recordFailedWords(verdict.reason);
  check.dataset.result = ok ? "ok" : "failed";
}

/** Show `game` (a history entry) with its `review` and its `signed` record, at its last
 * move; the focus moves to the replay's heading unless `focus` is false. `shared`
 * ({mine}) words the result for a shared game's page. */
export function showReplay(game, review, { focus = true, signed = null, shared = null } = {}) {
  const stranger = Boolean(shared && !shared.mine);
  // A shared page says whose result it is; the player's own History says theirs.
  const result = shared ? sharedResult(game, shared) : resultWords(game);
  replay = { game, review, ply: review.moves.length, signed, stranger, result };
  showRecord(signed, game);
  const date = formatWhen(game.ended);
  const mode = modeOnVariant(modeName(game.record.mode), variantOf(review).name);
  $("replay-title").textContent = replayHeading(mode, date, result);
  // A game cut short says so first: its last position is not its end.
  const cut = cutShortWords(game, review.moves.length);
  $("replay-summary").textContent = cut ? `${cut} ${review.summary}` : review.summary;
  $("replay-scrubber").max = review.moves.length;
  renderMoveList(review);
  $("replay").hidden = false;
  renderPly();
  if (!focus) return;
  // The replay's top at the screen's top: its board, the move and the steps in view.
  $("replay").scrollIntoView({ block: "start" });
  $("replay-title").setAttribute("tabindex", "-1");
  $("replay-title").focus({ preventScroll: true });
}

/** Take the replay off the page. */
export function hideReplay() {
  replay = null;
  $("replay").hidden = true;
}

/** Make the replay's buttons, scrubber, arrow keys and the screen-reader mode's commands
 * step through the game. */
export function wireControls() {
  reader = createReplayReader({ shown, go });
  $("replay-first").addEventListener("click", () => go(0));
  $("replay-previous").addEventListener("click", () => go(replay.ply - 1));
  $("replay-next").addEventListener("click", () => go(replay.ply + 1));
  $("replay-last").addEventListener("click", () => go(Infinity));
  $("replay-scrubber").addEventListener("input", (event) => go(Number(event.target.value)));
  $("replay").addEventListener("keydown", (event) => {
    if (!replay || event.target.id === "replay-scrubber") return;
    const steps = { ArrowLeft: -1, ArrowRight: 1 };
    if (event.key in steps) go(replay.ply + steps[event.key]);
    else if (event.key === "Home") go(0);
    else if (event.key === "End") go(Infinity);
    else return;
    event.preventDefault();
  });
}
