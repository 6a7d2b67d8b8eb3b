// What History and a shared game's page say: the list of games, each match's timeline,
// the replay's steps, and the calibration of the promises kept. words.js has the rest
// (results, verdicts, skill and promises in a sentence).
import { PLAYER_RESULTS, chanceWords, plural } from "./words.js";

// --- the list of games --------------------------------------------------------------------

/** A game's Replay button, and its accessible name with the game's date. */
export const REPLAY = "Replay";
export const replayLabel = (date) => `Replay the game of ${date}`;

/** After a game's result in the list, when it ended its match. */
export const MATCH_OVER = ", match over";

/** The tab's title while a replay is shown. */
export const replayTitle = (date, page) => `Game of ${date} · ${page}`;

/** "Delete everything" when the server did not answer. */
export const NOT_DELETED = "Nothing was deleted: the server did not answer. Try again.";

/** A game with a friend that a player cut short by leaving it: who left, by `forfeit`. */
const LEFT_BY = { human: "you left", friend: "your friend left" };

/** A game's result as its player reads it: "Win", or "Win by forfeit (your friend left)". */
export function resultWords(game) {
  const result = PLAYER_RESULTS[game.result];
  const left = LEFT_BY[game.forfeit];
  return left ? `${result} by forfeit (${left})` : result;
}

/** What the replay of a game cut short says first ("" for a game played out). */
export function cutShortWords(game, moves) {
  const left = LEFT_BY[game.forfeit];
  if (!left) return "";
  const after = moves ? `after ${plural(moves, "move")}` : "before the first move";
  const winner = game.forfeit === "human" ? "your friend" : "you";
  return `Cut short ${after}: ${left} the room, and the game went to ${winner}.`;
}

/** An HP match's name above its timeline: over, under way, or abandoned for a newer one. */
export function matchName(over, underWay, ended) {
  if (over) return `Match of ${ended}`;
  if (underWay) return `This match, under way (last game ${ended})`;
  return `Abandoned match (last game ${ended})`;
}

// --- a match's timeline ---------------------------------------------------------------------

/** The timeline's horizontal axis. */
export const gamesAxis = (games) => `games 1 to ${games}`;

/** The timeline table's columns, its first row, and the legend's keys by line. */
export const TIMELINE_COLUMNS = ["After game", "You", "AI", "Difficulty"];
export const TIMELINE_START = "Start";
export const TIMELINE_KEYS = [
  ["you", "You"],
  ["ai", "AI"],
  ["difficulty", "Difficulty"],
];

/** The timeline chart's accessible name. */
export function timelineLabel(title, human, ai) {
  const last = human.length - 1;
  return `${title}: you from ${human[0]} to ${human[last]} HP, the AI from ${ai[0]} to ${ai[last]} HP over ${last} games`;
}

/** The disclosure of a chart's numbers. */
export const THE_NUMBERS = "The numbers";

// --- the replay -----------------------------------------------------------------------------

/** The replay's heading: "Replay: Adaptive, 27 Nov 2026, 10:02, Win". */
export const replayHeading = (mode, date, result) => `Replay: ${mode}, ${date}, ${result}`;

/** Where the replay is: "Move 3 of 7: You (X) played b2, …", or the empty board. */
export const replayMoveWords = (ply, count, move) => `Move ${ply} of ${count}: ${move}`;
export const emptyBoardWords = (first) => `The empty board: ${first} moved first`;

/** "3 of 7": a count out of a total (the replay's ply, a calibration's wins). */
export const ofWords = (part, whole) => `${part} of ${whole}`;

// --- the promises kept ----------------------------------------------------------------------

/** The calibration chart's axes. */
export const CHANCE_PROMISED = "chance promised";
export const SHARE_WON = "share won";

/** A bucket of promises: "50–60%", and its interval "41.2% to 78.3%". */
export const rangeWords = (bucket) =>
  `${Math.round(bucket.from * 100)}–${Math.round(bucket.to * 100)}%`;
export const intervalWords = ([low, high]) => `${chanceWords(low)} to ${chanceWords(high)}`;

/** The chart's description: every bucket in words, as the table has them. */
export function calibrationDescription(calibration) {
  const parts = calibration.buckets.map(
    (b) =>
      `promised ${rangeWords(b)}: ${b.won} of ${b.matches} won (${chanceWords(b.observed)}, ` +
      `interval ${intervalWords(b.interval)}) against ${chanceWords(b.promised)} promised`,
  );
  return `The diagonal is a promise kept exactly. ${parts.join("; ")}.`;
}

/** A targeted match not finished yet, beside its promise. */
export const unfinishedWords = (promise) =>
  `${chanceWords(promise.chance)} promised · not finished`;

/** A game's mode with its variant when it is not classic: "With a friend · 4x4k4". */
export const modeOnVariant = (mode, variant) =>
  variant && variant !== "classic" ? `${mode} · ${variant}` : mode;

/** The replay's group of several boards (Notakto), as its single board is "Replay board". */
export const REPLAY_BOARDS_LABEL = "Replay boards";

/** Each side in Notakto, where both place X: the first player and the second. */
export const NOTAKTO_SIDES = { X: "first", O: "second" };

// --- the screen-reader mode in the replay (replay_reader.js) ---------------------------

/** What the replay's `help` says of a typed cell and of its `next`. */
export const REPLAY_DOES = Object.freeze({
  cell: "This is a replay: cells are not played here.",
  next: "next, one move forward",
});

/** A cell typed in a replay: nothing is played. */
export const replayCellWords = (typed) => `${typed}: a replay, nothing is played here.`;

/** A step said: the move and the review's verdict, as the replay shows them. */
export const replayStepWords = (move, verdict) => [`${move}.`, verdict].filter(Boolean).join(" ");

/** `status` in a replay: "Move 5 of 6. Loss. On 4x4k3." (the variant if not classic). */
export function replayStatusWords({ ply, count, result, variant }) {
  const on = variant && variant !== "classic" ? ` On ${variant}.` : "";
  return `Move ${ofWords(ply, count)}. ${result}.${on}`;
}

/** `last` in a replay: the move at this step, by whom. */
export const replayLastWords = (move) => `${move}.`;

/** No step that way: the replay is at the empty board, or at the game's end. */
export const AT_FIRST = "Already at the empty board: type next to step forward.";
export const AT_END = "Already at the game's end: type back to step back.";
export const NO_VERDICT = "No move at this step: the empty board has no verdict.";
