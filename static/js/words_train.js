// What the Train page says: the cards due, a card's question and its answer, the streak,
// the chart's description, and the puzzles' themes and ratings.
import { eitherCell, plural } from "./words.js";

/** How many cards are due now, and how many the player has. */
export function dueWords(due, cards) {
  if (cards === 0) return "No cards yet: each mistake of yours in a finished game becomes one.";
  if (due === 0) return `Nothing due now: ${plural(cards, "card")}, each back when it is due.`;
  return `${plural(due, "card")} due now, of ${cards}.`;
}

/** When the session's cards are all found. */
export const SESSION_DONE = "All found for today: they come back when they are due.";

/** Who is to move on a card's or a puzzle's board, and on which variant if not classic:
 * "X to move", "First player to move on notakto2" (both place X there). */
function toMove(item) {
  const side = item.variant?.startsWith("notakto") ? (item.to_move === "X" ? "First player" : "Second player") : item.to_move;
  return item.variant && item.variant !== "classic" ? `${side} to move on ${item.variant}` : `${side} to move`;
}

/** A card's question: the side to move, and the move the player made there. */
export const cardPrompt = (card, played) =>
  `${toMove(card)}. You played ${played} here, a ${card.verdict}: find a better move.`;

/** The played cell's tag beside it on the board. */
export const YOU_PLAYED = "you played here";

/** A card passed: the best cells, and whether it was its scheduled answer. */
export const passedWords = (best, scheduled) =>
  `Found. Best here: ${eitherCell(best)}.` + (scheduled ? " It comes back later, on its schedule." : "");

/** A card failed: it comes back in this session. */
export const failedWords = (cell) => `${cell} is not among the best: this card comes back before the session ends.`;

/** The streak: days in a row with cards answered when due. */
export const streakWords = (days) =>
  days ? `Streak: ${plural(days, "day")} in a row.` : "No streak yet: answer a card that is due.";

/** The short name of a day number (days since 1970, in UTC, as the server counts them). */
export function dayName(day) {
  return new Date(day * 86400000).toLocaleDateString(undefined, { day: "numeric", month: "short", timeZone: "UTC" });
}

/** The chart's description: each day with answers. */
export function chartWords(bars) {
  const told = bars.filter((bar) => bar.passed || bar.failed);
  if (!told.length) return "No cards answered in the last two weeks.";
  return told.map((bar) => `${dayName(bar.day)}: ${bar.passed} passed, ${bar.failed} failed`).join("; ");
}

/** The themes' names. */
export const THEMES = Object.freeze({
  win_in_1: "Win in 1",
  win_in_2: "Win in 2",
  win_in_3: "Win in 3",
  only_draw: "The only move that draws",
  stop_fork: "Stop the fork",
});

/** The puzzle's question. */
export const puzzlePrompt = (puzzle) => `${THEMES[puzzle.theme] ?? puzzle.theme}: ${toMove(puzzle)}.`;

/** The player's puzzle rating. */
export const ratingWords = (rating) => `Your puzzle rating: ${rating}.`;

/** A puzzle answered. */
export const solvedWords = (answer, rating) =>
  `Solved: ${eitherCell(answer)}. Your puzzle rating is now ${rating}.`;
export const missedWords = (cell, rating) => `${cell} does not solve it: try again. Your puzzle rating is now ${rating}.`;
export const missedAgainWords = (cell) => `${cell} does not solve it either: try again.`;

/** The boards' names. */
export const CARD_BOARD = "Card board";
export const PUZZLE_BOARD = "Puzzle board";

/** The group of several boards (Notakto) of a card or a puzzle: "Card boards". */
export const severalBoards = (label) => `${label}s`;

// --- the screen-reader mode (train_reader.js) -------------------------------------------

/** A cell typed on a puzzle already solved, and `next` with nothing offered. */
export const SOLVED_ALREADY = "This puzzle is solved: type next for another.";
export const NEXT_CARD_FIRST = "Nothing next yet: answer this card first, and the next comes.";
export const NEXT_PUZZLE_FIRST = "Nothing next yet: solve this puzzle first.";
export const NOTHING_TO_TRAIN = "Nothing to train now.";

/** What `help` says a typed cell and `next` do here. */
export const TRAIN_DOES = Object.freeze({
  cell: "Type a cell such as b2 to answer the card due, or the puzzle when no card is due.",
  status: "status, the question and how many cards are due, or the puzzle's theme and your rating",
  next: "next, the next puzzle once this one is solved",
});
