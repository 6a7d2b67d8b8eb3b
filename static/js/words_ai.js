// What the AI page says around the board: its headline, the line under it, the match
// panel's words and the chances of the match under way. words.js has the rest.
import { RESULTS, difficultyWords, gameWords, percent } from "./words.js";

/** The headline while the AI thinks (the tab's title adds "…"). */
export const THINKING = "AI is thinking";

/** The headline while not connected, by the connection's status. */
export const OFFLINE_HEADLINES = Object.freeze({
  offline: "Not connected: reconnecting…",
  refused: "Not connected: the server refused the connection",
});

/** The headline before the first snapshot, the tab's title while not connected, and a
 * move the player may make. */
export const LOADING = "Loading the game";
export const NOT_CONNECTED = "Not connected";
export const YOUR_TURN = "Your turn";

/** The line under the headline: "Game 2 · You play O, the AI goes first". */
export function gameMetaWords(state) {
  const order = state.first === "human" ? "you go first" : "the AI goes first";
  return `${gameWords(state.match.game)} · You play ${state.human}, ${order}`;
}

/** Once the match is over, the game that ended it: "Last game: Draw". */
export const lastGameWords = (status) => `Last game: ${RESULTS[status]}`;

/** The HP badge of a win at full HP, which heals nothing. */
export const FULL_HP = "already at full HP";

/** Beside the difficulty's number, what it means (difficultyWords), after a dash. */
export const difficultyNoteWords = (difficulty, locked) =>
  ` — ${difficultyWords(difficulty, locked)}`;

/** The lock button: "Lock difficulty", or the level it is locked at. */
export const lockButtonWords = (locked) =>
  locked != null ? `Difficulty locked at ${locked}` : "Lock difficulty";

/** What "New match" would start: "New match: Adaptive, classic rules". */
export const newMatchWords = (summary) => `New match: ${summary}`;

/** "How it works" in a fixed mode: its name and its way of playing. */
export const fixedModeWords = (name, way) =>
  `${name} mode — ${way}. No hit points here: the AI plays this way all match, ` +
  "and the match counts your wins, losses and draws.";

/** The explanation's place before any move. */
export const EXPLAIN_EMPTY = "The AI explains each of its moves here.";

/** The chances of the match under way, from its current HP. */
export function chancesSentence(odds) {
  return (
    `From here, a perfect player wins ${percent(odds.perfect.human_match_win_prob)} ` +
    `of this match; a random one ${percent(odds.random.human_match_win_prob)}`
  );
}
