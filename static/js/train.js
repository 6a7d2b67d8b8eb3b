// The Train page: the player's cards due, one at a time until each is found (a failed
// card goes to the back of the session's queue and comes back before it ends), the
// streak and the chart, and puzzles. A move is a click, the board's keys, or a cell typed
// in the box (b2); what happened is said in one assertive live region.
import { createBoard, nameOf, shapeOf } from "./board.js";
import { $ } from "./dom.js";
import { drawChart } from "./train_chart.js";
import { createTrainReader } from "./train_reader.js";
import { errorWords } from "./words.js";
import {
  CARD_BOARD,
  PUZZLE_BOARD,
  SESSION_DONE,
  YOU_PLAYED,
  cardPrompt,
  dueWords,
  failedWords,
  missedAgainWords,
  missedWords,
  passedWords,
  puzzlePrompt,
  severalBoards,
  ratingWords,
  solvedWords,
  streakWords,
} from "./words_train.js";

const urls = $("train-main").dataset;
let queue = []; // this session's cards: the due ones, a failed one again at the back
let cards = 0;
let puzzle = null;
let tries = 0;
const solved = []; // the puzzles done on this page, not offered again

// The screen-reader mode's commands over the card due, else the puzzle; its live region
// is the page's one, which says each verdict with the mode on or off.
const { say } = createTrainReader({
  now: () => (queue[0] ? { card: queue[0] } : puzzle && { puzzle, solved: !$("puzzle-next").hidden }),
  answerCard: (cell) => answerCard(cell),
  answerPuzzle: (cell) => answerPuzzle(cell),
  nextPuzzle: () => nextPuzzle(),
});

async function ask(url, body = null) {
  try {
    const reply = await fetch(url, body ? { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {});
    const data = await reply.json();
    if (reply.ok) return data;
    return { error: typeof data.error === "object" ? data.error : { code: data.error, message: data.message } };
  } catch {
    return { error: "offline" };
  }
}

/**
 * The board of a card or a puzzle (`item`: its variant's rows, columns and boards), in
 * the element `id`: drawn again only when the shape changes (3x3, 4x4, Notakto's boards).
 */
function boardOn(id, label, onPlay) {
  const blank = $(id).cloneNode(false);
  let drawn = "";
  let board = null;
  return (item) => {
    const shape = shapeOf(item);
    const key = `${shape.rows}x${shape.columns}x${shape.boards}`;
    if (board && drawn === key) return board;
    if (board) {
      $(`${id}-help`)?.remove(); // the keys' help, said beside the old board
      $(id).replaceWith(blank.cloneNode(false));
    }
    drawn = key;
    board = createBoard($(id), { ...shape, label, onPlay });
    if (shape.boards > 1) $(id).setAttribute("aria-label", severalBoards(label));
    return board;
  };
}

const cardBoardFor = boardOn("card-board", CARD_BOARD, (cell) => answerCard(cell));
const puzzleBoardFor = boardOn("puzzle-board", PUZZLE_BOARD, (cell) => answerPuzzle(cell));
/** A cell's name on `item`'s board: b2, d4 or 2:b2; typed names as typed. */
const named = (item, cell) => (typeof cell === "number" ? nameOf(shapeOf(item), cell) : String(cell).trim());
/** The cell the box's label names as an example: b2, or 2:b2 on several boards. */
const example = (item) => nameOf(shapeOf(item), (item.boards > 1 ? item.rows * item.columns : 0) + item.columns + 1);
/** `item`'s position as the board draws it: a mark or . per cell, the boards run together. */
const drawOn = (item, playable) => ({ marks: item.board.replaceAll("/", ""), playable, dead: item.dead ?? [] });

function showCard() {
  const card = queue[0] ?? null;
  $("due-count").textContent = dueWords(queue.length, cards);
  $("card-task").hidden = !card;
  if (!card) return;
  $("card-cell-example").textContent = example(card);
  const cardBoard = cardBoardFor(card);
  cardBoard.set(drawOn(card, true));
  cardBoard.tag({ [card.played]: { kinds: ["played"], words: YOU_PLAYED } });
  $("card-prompt").textContent = cardPrompt(card, named(card, card.played));
}

async function answerCard(cell) {
  const card = queue[0];
  if (!card) return { ok: false };
  const reply = await ask(urls.answer, { card: card.key, cell });
  if (reply.error) {
    say(errorWords(reply.error, { servers: true }));
    return { ok: false };
  }
  queue.shift();
  if (!reply.passed) queue.push(card); // until found, in this session
  const words = reply.passed
    ? passedWords(reply.best.map((best) => named(card, best)), reply.scheduled)
    : failedWords(named(card, cell));
  say(queue.length ? words : `${words} ${SESSION_DONE}`);
  showCard();
  await showProgress();
  return { ok: true };
}

function showPuzzle(next, rating) {
  puzzle = next;
  tries = 0;
  $("puzzle-rating").textContent = ratingWords(rating);
  $("puzzle-task").hidden = !puzzle;
  $("puzzle-next").hidden = true;
  if (!puzzle) return;
  $("puzzle-cell-example").textContent = example(puzzle);
  const puzzleBoard = puzzleBoardFor(puzzle);
  puzzleBoard.set(drawOn(puzzle, true));
  puzzleBoard.mark([]);
  $("puzzle-prompt").textContent = puzzlePrompt(puzzle);
}

async function answerPuzzle(cell) {
  if (!puzzle || !$("puzzle-next").hidden) return { ok: false };
  const reply = await ask(urls.solve, { puzzle: puzzle.key, cell, first_try: tries === 0 });
  if (reply.error) {
    say(errorWords(reply.error, { servers: true }));
    return { ok: false };
  }
  $("puzzle-rating").textContent = ratingWords(reply.rating);
  if (reply.solved) {
    solved.push(puzzle.key);
    const puzzleBoard = puzzleBoardFor(puzzle);
    puzzleBoard.set(drawOn(puzzle, false));
    puzzleBoard.mark(reply.answer);
    $("puzzle-next").hidden = false;
    say(solvedWords(reply.answer.map((best) => named(puzzle, best)), reply.rating));
  } else {
    const cellSaid = named(puzzle, cell);
    say(tries === 0 ? missedWords(cellSaid, reply.rating) : missedAgainWords(cellSaid));
  }
  tries += 1;
  return { ok: true };
}

async function state() {
  const asked = [`variant=${encodeURIComponent($("puzzle-variant").value)}`];
  const query = [...asked, ...solved.map((key) => `done=${encodeURIComponent(key)}`)].join("&");
  const found = await ask(`${urls.state}?${query}`);
  if (found.error) say(errorWords(found.error, { servers: true }));
  return found.error ? null : found;
}

async function showProgress(found = null) {
  const shown = found ?? (await state());
  if (!shown) return;
  $("streak").textContent = streakWords(shown.streak);
  drawChart($("train-chart"), $("train-chart-desc"), shown.chart);
}

function typed(form, input, answer) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reply = await answer(input.value);
    if (reply.ok) input.value = "";
  });
}

typed($("card-form"), $("card-cell"), answerCard);
typed($("puzzle-form"), $("puzzle-cell"), answerPuzzle);
$("puzzle-variant").addEventListener("change", async () => {
  const chosen = $("puzzle-variant");
  const found = await state();
  if (found) showPuzzle(found.puzzle, found.rating);
  else if (puzzle) chosen.value = puzzle.variant; // refused: the puzzle shown stays, and its variant
  $("puzzle-variant-meaning").textContent = chosen.selectedOptions[0].dataset.meaning;
});
async function nextPuzzle() {
  const found = await state();
  if (found) showPuzzle(found.puzzle, found.rating);
}
$("puzzle-next").addEventListener("click", async () => {
  await nextPuzzle();
  $("puzzle-cell").focus();
});

const first = await state();
if (first) {
  queue = first.due;
  cards = first.cards;
  showCard();
  showProgress(first);
  showPuzzle(first.puzzle, first.rating);
}
document.documentElement.dataset.ready = String(Boolean(first));
