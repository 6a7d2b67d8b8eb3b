// The History page: the player's finished games, their lifetime figures, and a replay of
// any game with its review by perfect play. Everything shown comes from the server.
import { connect } from "./connection.js";
import { ERROR_MESSAGES, EVENTS, cellIndex, cellName } from "./protocol.js";

const $ = (id) => document.getElementById(id);
const RESULT_WORDS = { win: "Win", draw: "Draw", loss: "Loss" };
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
const when = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

let replay = null; // {game, review, ply}
let asked = null; // the id of the game last asked for

const title = (text) => text.charAt(0).toUpperCase() + text.slice(1);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** "win in 2 of the mover's moves", from a value whose plies count both sides. */
function valueWords({ result, plies }) {
  if (result === "draw") return "a draw";
  const own = Math.ceil(plies / 2);
  return result === "win" ? `a win in ${plural(own, "move")}` : `a loss in ${plural(own, "move")}`;
}

function showNotice(text) {
  $("notice").textContent = text;
}

function refused(reply) {
  const code = reply?.error?.code;
  showNotice(ERROR_MESSAGES[code] ?? reply?.error?.message ?? "The server did not answer");
}

function renderTotals(totals) {
  const modes = Object.entries(totals.by_mode);
  $("totals-empty").hidden = modes.length > 0;
  $("totals").hidden = $("by-mode").hidden = modes.length === 0;
  $("matches-won").textContent = totals.matches_won;
  $("matches-lost").textContent = totals.matches_lost;
  $("longest-unbeaten").textContent = plural(totals.longest_unbeaten, "game");
  const rows = modes.map(([mode, counts]) => {
    const row = document.createElement("tr");
    const head = document.createElement("th");
    head.scope = "row";
    head.textContent = title(mode);
    row.append(head, ...["win", "draw", "loss"].map((key) => cellOf(counts[key])));
    return row;
  });
  $("by-mode-rows").replaceChildren(...rows);
}

function cellOf(text) {
  const cell = document.createElement("td");
  cell.textContent = text;
  return cell;
}

function renderGames(games, open) {
  $("games").hidden = games.length === 0;
  const rows = games.map((game) => {
    const row = document.createElement("tr");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "btn btn-small";
    const date = when.format(new Date(game.ended * 1000));
    button.textContent = "Replay";
    button.setAttribute("aria-label", `Replay the game of ${date}`);
    button.addEventListener("click", () => open(game.id));
    const action = document.createElement("td");
    action.append(button);
    const result = RESULT_WORDS[game.result] + (game.match_over ? ", match over" : "");
    row.append(cellOf(date), cellOf(title(game.mode)), cellOf(result), cellOf(game.moves), action);
    return row;
  });
  $("games-rows").replaceChildren(...rows);
}

/** The marks on the board after `ply` moves, from the recorded cells. */
function boardAt(moves, ply) {
  const cells = Array(9).fill("");
  moves.slice(0, ply).forEach((move) => (cells[cellIndex(move.cell)] = move.side));
  return cells;
}

function moveWords(move) {
  const who = move.by === "human" ? `You (${move.side})` : `The AI (${move.side})`;
  const how = move.decision ? `, ${DECISION_WORDS[move.decision] ?? move.decision}` : "";
  return `${who} played ${move.cell}${how}`;
}

function verdictWords(move) {
  const verdict = `${title(VERDICT_WORDS[move.verdict])}: `;
  const kept = `kept ${valueWords(move.played)}`;
  const best = move.verdict === "best" ? "" : `; the best kept ${valueWords(move.best)}`;
  const gift = move.gift ? ` AI gift: you ${move.gift === "taken" ? "took it" : "missed it"}.` : "";
  return `${verdict}${kept}${best}.${gift}`;
}

function renderPly() {
  const { review, ply } = replay;
  const moves = review.moves;
  const marks = boardAt(moves, ply);
  document.querySelectorAll("#replay-board [data-cell]").forEach((cell) => {
    const index = Number(cell.dataset.cell);
    cell.firstElementChild.textContent = marks[index];
    cell.dataset.mark = marks[index];
    cell.dataset.last = ply > 0 && cellIndex(moves[ply - 1].cell) === index ? "true" : "false";
    cell.setAttribute("aria-label", `${cellName(index)}, ${marks[index] || "empty"}`);
  });
  const move = ply > 0 ? moves[ply - 1] : null;
  $("replay-move").textContent = move
    ? `Move ${ply} of ${moves.length}: ${moveWords(move)}`
    : `The empty board: ${moves[0]?.side === review.mark ? "you" : "the AI"} moved first`;
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
    button.textContent = `${move.side} ${move.cell}: ${VERDICT_WORDS[move.verdict]}${gift}`;
    button.addEventListener("click", () => go(index + 1));
    item.append(button);
    return item;
  });
  $("replay-moves").replaceChildren(...items);
}

function showReplay(game, review) {
  replay = { game, review, ply: review.moves.length };
  const date = when.format(new Date(game.ended * 1000));
  const result = RESULT_WORDS[game.result];
  $("replay-title").textContent = `Replay: ${title(game.record.mode)}, ${date}, ${result}`;
  $("replay-summary").textContent = review.summary;
  $("replay-scrubber").max = review.moves.length;
  renderMoveList(review);
  $("replay").hidden = false;
  renderPly();
  $("replay-title").setAttribute("tabindex", "-1");
  $("replay-title").focus();
}

function wireControls() {
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

function start() {
  let send = null;
  const open = async (id) => {
    asked = id;
    const reply = await send(EVENTS.historyGame, { id });
    if (asked !== id) return;
    if (reply.ok) showReplay(reply.game, reply.review);
    else refused(reply);
  };
  const load = async () => {
    const reply = await send(EVENTS.history);
    if (!reply.ok) return refused(reply);
    renderTotals(reply.totals);
    renderGames(reply.games, open);
    const wanted = new URLSearchParams(window.location.search).get("game");
    if (wanted && !replay) open(wanted);
  };
  const onStatus = (status, message) => {
    $("connection").hidden = status === "online";
    if (status !== "online") $("connection-text").textContent = message || "Reconnecting…";
    if (status === "online") load();
  };
  ({ send } = connect({ onStatus }));
  wireControls();
}

start();
