// What the screen-reader mode says (reader.js): its commands' names, the board read row
// by row, its answers to what it cannot do, and on the AI page what just happened.
import { MATCH_RESULTS, RESULTS, YOUR_TURN, gameMetaWords, modeName } from "./words.js";

/** The commands, as the player types them (a cell's name plays it). */
export const COMMANDS = Object.freeze({
  board: "board",
  last: "last",
  status: "status",
  why: "why",
  hint: "hint",
  undo: "undo",
  next: "next",
  help: "help",
  back: "back",
  first: "first",
  end: "end",
});

// What each command does, for `help`.
const DOES = {
  board: "board reads the position row by row",
  last: "last, the last move",
  status: "status, whose turn it is and the match",
  why: "why, how the AI chose its move",
  hint: "hint, where each of your moves leads",
  undo: "undo takes your move back",
  next: "next starts what the page offers next: a game, a match, a rematch",
  help: "help, this list",
  back: "back, one move back",
  first: "first, the empty board",
  end: "end, the game's last position",
};

/** `help`'s answer: how to play, and the page's own commands (`names`); a page words
 * its own (`own`: a command's words, `cell` for what a typed cell does). */
export const helpWords = (example, names, own = {}) =>
  `${own.cell ?? `Type a cell such as ${example} to play it.`} ${names.map((name) => own[name] ?? DOES[name]).join("; ")}.`;

const markWord = (mark) => (mark === "X" || mark === "O" ? mark : "empty");

/** One row of cells: "row 1: X, empty, O". */
export const rowWords = (n, marks) => `row ${n}: ${[...marks].map(markWord).join(", ")}`;

/** One of several boards, read: "Board 2, dead: row 1: …". */
export const boardRowsWords = (n, dead, rows) =>
  `Board ${n}${dead ? ", dead" : ""}: ${rows.join("; ")}`;

/** A command that does nothing on this page, or not now. */
export const notHereWords = (command) => `${command} does nothing on this page.`;
export const NOTHING_YET = "No move yet.";
export const NO_HINT_NOW = "No hint now: it is not your turn.";
export const NO_WHY = "The AI has not moved yet in this game.";
export const NOTHING_NEXT = "Nothing to start now: the game is under way.";
export const TAKEN_BACK = "Taken back: your turn.";

/** Input that is neither a command nor a cell of this board. */
export const unknownWords = (typed) => `“${typed}” is not a command or a cell. Type help for the commands.`;

/** A cell's name that is not on this board: "e5 is not on this board: cells a1 to c3". */
export const offBoardWords = (typed, first, last) =>
  `${typed} is not on this board: cells ${first} to ${last}.`;

/** A cell that cannot be played now, and why. */
export const takenWords = (cell, mark) => `${cell} is taken by ${mark}. Nothing was played.`;
export const deadCellWords = (cell, board) => `${cell} is on board ${board}, which is dead. Nothing was played.`;
export const refusedWords = (cell, reason) => `${cell} was not played: ${reason}`;

/** A move the player just played, said before the answer comes. */
export const playedWords = (cell) => `You played ${cell}.`;

// --- the AI page and practice ------------------------------------------------------

const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");

/** Both HP, with a game's change: "You 80 HP (−20), the AI 100 HP (±0)". */
function hpWords(match, change) {
  const of = (side) => (change ? ` (${signed(change[side])})` : "");
  return `You ${match.human_hp} HP${of("human")}, the AI ${match.ai_hp} HP${of("ai")}`;
}

/** The AI's move, by name: "The AI played c3." */
export const aiPlayedWords = (cell) => `The AI played ${cell}.`;

/** `last`: the latest move of the game. */
export const lastMoveWords = (by, cell) => (by === "ai" ? aiPlayedWords(cell) : `You played ${cell}.`);

/** `status` on the AI page: the headline, the game, both HP and the difficulty, or the
 * fixed mode's record. */
export function aiStatusWords(state, headline) {
  const { match } = state;
  const meta = `${gameMetaWords(state)}.`;
  if (state.mode !== "adaptive") {
    const { wins, losses, draws } = match.record;
    return `${headline}. ${meta} ${modeName(state.mode)}: ${wins} won, ${losses} lost, ${draws} drawn.`;
  }
  return `${headline}. ${meta} ${hpWords(match)}. Difficulty ${match.difficulty}.`;
}

/** A game's end: its result, both HP and their change, and the match's end if it came. */
export function gameEndWords(state) {
  const { match } = state;
  const ending = [RESULTS[state.status]];
  if (state.mode === "adaptive") ending.push(`${hpWords(match, match.last_hp_change)}.`);
  if (match.over) ending.push(MATCH_RESULTS[match.winner]);
  return ending.join(" ");
}

/** A new game: "Game 2 · You play O, the AI goes first." */
export const newGameWords = (state) => `${gameMetaWords(state)}.`;

export { YOUR_TURN };
