// A finished game's replay with its review: the board at any ply, each move's verdict,
// and controls (first, previous, next, last, a scrubber, the arrow keys). The History
// page and a shared game's page both show it; the game and review come from the server.
import { RECORD_VERIFIED, cellIndex, cellName } from "./protocol.js";

const $ = (id) => document.getElementById(id);
/** The player's result, as the pages word it. */
export const RESULTS = { win: "Win", draw: "Draw", loss: "Loss" };
const VERDICT_WORDS = {
  best: "best move",
  inaccuracy: "inaccuracy",
  mistake: "mistake",
  blunder: "blunder",
};
const DECISION_WORDS = {
  perfect: "its best move",
  random: "a random move",
  heuristic: "the move with the best odds",
  lookahead: "a move looking two ahead",
};

/** When a game ended, as the player's locale writes it. */
export const formatWhen = (seconds) =>
  new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(
    new Date(seconds * 1000),
  );
/** The text with a capital first letter. */
export const title = (text) => text.charAt(0).toUpperCase() + text.slice(1);
/** A game's mode as the pages name it: the AI's mode, or a game with a friend. */
export const modeName = (mode) => (mode === "friend" ? "With a friend" : title(mode));
const PLAYERS = { human: "You", friend: "Your friend", ai: "The AI" };
// Who won a shared game, by its result: told to its own player, or to anyone else.
const SHARED_RESULTS = {
  mine: { win: "You won against the AI", loss: "You lost to the AI", draw: "A draw with the AI" },
  theirs: { win: "The player won against the AI", loss: "The AI won", draw: "A draw with the AI" },
};

/** Who won a shared `game` (a history entry) and, if it ended there, the match. */
export function sharedResult(game, { mine = false } = {}) {
  const said = SHARED_RESULTS[mine ? "mine" : "theirs"][game.result] ?? game.result;
  if (!game.match_over) return said;
  const winner = game.match_winner === "ai" ? "the AI" : mine ? "you" : "the player";
  return `${said}; the match went to ${winner}`;
}
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

let replay = null; // {game, review, ply, signed}
let downloadUrl = null;

/** "a win in 2 moves" (the mover's), from a value whose plies count both sides. */
function valueWords({ result, plies }) {
  if (result === "draw") return "a draw";
  const own = Math.ceil(plies / 2);
  return result === "win" ? `a win in ${plural(own, "move")}` : `a loss in ${plural(own, "move")}`;
}

/** The marks on the board after `ply` moves, from the recorded cells. */
function boardAt(moves, ply) {
  const cells = Array(9).fill("");
  moves.slice(0, ply).forEach((move) => (cells[cellIndex(move.cell)] = move.side));
  return cells;
}

function moveWords(move) {
  const who = `${PLAYERS[move.by] ?? PLAYERS.ai} (${move.side})`;
  const how = move.decision ? `, ${DECISION_WORDS[move.decision] ?? move.decision}` : "";
  return `${who} played ${move.cell}${how}`;
}

/** "c1", "a1 or c3", "a1, b1 or c3". */
export function eitherCell(cells) {
  return cells.length < 2 ? cells.join("") : `${cells.slice(0, -1).join(", ")} or ${cells.at(-1)}`;
}

/** The better moves the server named for a move that was not the best, else none. */
const betterCells = (move) => (move.verdict === "best" ? [] : (move.best_cells ?? []));

function verdictWords(move) {
  const verdict = `${title(VERDICT_WORDS[move.verdict])}: `;
  const kept = `kept ${valueWords(move.played)}`;
  const better = betterCells(move);
  const was = better.length === 1 ? "was" : "were";
  const best = better.length
    ? `; best ${was} ${eitherCell(better)}, keeping ${valueWords(move.best)}`
    : "";
  const gift = move.gift ? ` AI gift: you ${move.gift === "taken" ? "took it" : "missed it"}.` : "";
  return `${verdict}${kept}${best}.${gift}`;
}

function firstMover(game, moves) {
  if (moves[0]?.by) return PLAYERS[moves[0].by].toLowerCase();
  return game.record.first === "human" ? "you" : "the AI";
}

function renderPly() {
  const { review, ply } = replay;
  const moves = review.moves;
  const marks = boardAt(moves, ply);
  const move = ply > 0 ? moves[ply - 1] : null;
  const better = move ? betterCells(move).map(cellIndex) : [];
  document.querySelectorAll("#replay-board [data-cell]").forEach((cell) => {
    const index = Number(cell.dataset.cell);
    const best = better.includes(index);
    cell.firstElementChild.textContent = marks[index];
    cell.dataset.mark = marks[index];
    cell.dataset.last = move && cellIndex(move.cell) === index ? "true" : "false";
    cell.dataset.best = best ? "true" : "false";
    const label = `${cellName(index)}, ${marks[index] || "empty"}`;
    cell.setAttribute("aria-label", best ? `${label}, the better move` : label);
  });
  $("replay-move").textContent = move
    ? `Move ${ply} of ${moves.length}: ${moveWords(move)}`
    : `The empty board: ${firstMover(replay.game, moves)} moved first`;
  $("replay-verdict").textContent = move ? verdictWords(move) : "";
  $("replay-verdict").dataset.verdict = move?.verdict ?? "";
  $("replay-scrubber").value = ply;
  $("replay-at").textContent = `${ply} of ${moves.length}`;
  $("replay-first").disabled = $("replay-previous").disabled = ply === 0;
  $("replay-last").disabled = $("replay-next").disabled = ply === moves.length;
  document.querySelectorAll("#replay-moves li").forEach((item, index) => {
    item.toggleAttribute("aria-current", index === ply - 1);
  });
}

function go(ply) {
  if (!replay) return;
  replay.ply = Math.max(0, Math.min(replay.review.moves.length, ply));
  renderPly();
}

function renderMoveList(review) {
  const items = review.moves.map((move, index) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "move-link";
    button.dataset.verdict = move.verdict;
    const gift = move.gift ? `, AI gift ${move.gift}` : "";
    const better = betterCells(move);
    const best = better.length ? ` (best ${eitherCell(better)})` : "";
    button.textContent = `${move.side} ${move.cell}: ${VERDICT_WORDS[move.verdict]}${best}${gift}`;
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
  check.hidden = link.hidden = !signed;
  if (!signed) return;
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  const json = JSON.stringify(signed, null, 2);
  downloadUrl = URL.createObjectURL(new Blob([json], { type: "application/json" }));
  link.href = downloadUrl;
  link.download = `tictactoe-game-${game.record.game}.json`;
  check.textContent = "Checking the record…";
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
    check.textContent = "The record could not be checked: reload the page to try again";
    check.dataset.result = "none";
    return;
  }
  const ok = verdict.ok;
  check.textContent = ok ? RECORD_VERIFIED[verdict.signature] : `Check failed: ${verdict.reason}`;
  check.dataset.result = ok ? "ok" : "failed";
}

/** Show `game` (a history entry) with its `review` and its `signed` record, at its last
 * move; the focus moves to the replay's heading unless `focus` is false. `shared`
 * ({mine}) words the result for a shared game's page. */
export function showReplay(game, review, { focus = true, signed = null, shared = null } = {}) {
  replay = { game, review, ply: review.moves.length, signed };
  showRecord(signed, game);
  const date = formatWhen(game.ended);
  // A shared page says whose result it is; the player's own History says theirs.
  const result = shared ? sharedResult(game, shared) : RESULTS[game.result];
  $("replay-title").textContent = `Replay: ${modeName(game.record.mode)}, ${date}, ${result}`;
  $("replay-summary").textContent = review.summary;
  $("replay-scrubber").max = review.moves.length;
  renderMoveList(review);
  $("replay").hidden = false;
  renderPly();
  if (!focus) return;
  $("replay-title").setAttribute("tabindex", "-1");
  $("replay-title").focus();
}

/** Take the replay off the page. */
export function hideReplay() {
  replay = null;
  $("replay").hidden = true;
}

/** Make the replay's buttons, scrubber and arrow keys step through the game. */
export function wireControls() {
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
