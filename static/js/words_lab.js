// What the lab says beyond the words of values, lines and steps it shares with the other
// pages (words.js): its boards' names, its waits and its refusals.
import { nameOf } from "./board.js";
import { DECISION_NAMES, errorWords, plural } from "./words.js";

// The shape of the lab's boards (board.js's), for the cells' names: 3x3 until told.
const shape = { rows: 3, columns: 3, boards: 1, cells: 9 };

/** Name cells on boards of `shaped` from now on ("d4", "2:b2"). */
export function useShape(shaped) {
  Object.assign(shape, shaped);
}

const cellName = (cell) => nameOf(shape, cell);

// The other side: O for X; in Notakto, where both place X, the other player.
const OTHER = { X: "O", O: "X", "Player 1": "Player 2", "Player 2": "Player 1" };

/** The accessible names of the lab's two boards. */
export const POSITION_BOARD = "Position to search";
export const STEP_BOARD = "Position at this step";

/** A refusal of the lab's question (the server's `error`), or no answer at all. */
export const refusedWords = (error) =>
  errorWords(error, { fallback: error?.message || "No answer" });

/** The wait before a question refused for a spent share of work is asked again. */
export const waitingWords = (seconds) =>
  `This page’s share of the server’s work is spent for a moment: asking again in ${seconds.toFixed(1)} s…`;

/** A step's number as the step-through shows it: "1,024". */
export const stepNumberWords = (step) => (step + 1).toLocaleString("en");

/** How the wait for a page of the trace far from the start begins, and says where. */
export const RUNNING = "Running the search";
export const runningWords = (step) => `${RUNNING} to step ${stepNumberWords(step)}…`;

/** A move the search left unvisited, by its name. */
export const prunedWords = (name) => `${name}: pruned`;

/** The search holds no cut after the step shown. */
export const NO_MORE_CUTS = "No more cuts in this search.";

// --- the lab: the AI's search made visible -----------------------------------------------

/** Each scoring in two or three sentences: what a finished game is worth, and why. */
export const SCORING_ABOUT = {
  result:
    "A win counts 1, a draw 0 and a loss −1, however long they take. It is enough to " +
    "play perfectly, but every losing move looks the same, so in a lost position the AI " +
    "takes the first cell and gives up.",
  depth:
    "A win is worth 10 minus the moves it took, a loss the same below zero. Quick wins " +
    "beat slow ones, and a slow loss beats a quick one, so a beaten AI still blocks and " +
    "makes you find the win.",
  empties:
    "A win is worth the empty squares left plus one, a loss the same below zero. It is " +
    "the depth-aware idea counted in cells instead of moves: the sooner the game ends in " +
    "your favour, the more squares remain.",
  share:
    "Each position is worth the share of the games below it that the side to move wins, " +
    "with a draw as half, if both sides then moved at random. Under a depth limit this " +
    "guesses at positions the search cannot see to the end; without one it is win, draw " +
    "or loss again, on 0 to 1.",
};

const SCORING_NAMES = {
  result: "win, draw or loss (±1)",
  depth: "depth-aware scores",
  empties: "empty squares + 1",
  share: "the share of the leaves",
};

/**
 * A value in words, for the side to move at the top (`me`): "a draw, value 0". Under a
 * `depth` limit a position past it counts 0, as if drawn, so a 0 is no proof of a draw.
 */
export function labValueWords(value, me, scoring, { depth = null } = {}) {
  if (value == null) return "no moves left";
  const them = OTHER[me];
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (scoring === "share") return `${me}’s share ${shown}`;
  if (value > 0) return `${me} wins, value ${shown}`;
  if (value < 0) return `${them} wins, value ${shown}`;
  if (depth) return `no win or loss within ${depth} ${depth === 1 ? "ply" : "plies"}, value ${shown}`;
  return `a draw, value ${shown}`;
}

/** The line of moves from the top: "after X b2, O a1", or "the position itself". */
export function lineWords(moves) {
  if (!moves.length) return "the position itself";
  return `after ${moves.map(({ mark, cell }) => `${mark} ${cellName(cell)}`).join(", ")}`;
}

/** A node of the tree, read as words: "after X b2, O a1: a draw, value 0, chosen". */
export function nodeWords(moves, value, me, scoring, { chosen = false, depth = null } = {}) {
  const picked = chosen ? ", the chosen move" : "";
  return `${lineWords(moves)}: ${labValueWords(value, me, scoring, { depth })}${picked}`;
}

/** Who played each side in the game the lab was opened from. */
const PLAYERS = { ai: "The AI", you: "You", them: "The player" };

/**
 * Who is to move, and what it is worth: "O to move: X wins, value -6"; when the lab
 * knows who played that side (`who`, "ai", "you" or "them"), "The AI, playing O, to
 * move: …".
 */
export function toMoveWords(mark, value, scoring, { depth = null, who = null } = {}) {
  if (!mark) return "The game is over here.";
  const mover = PLAYERS[who] ? `${PLAYERS[who]}, playing ${mark},` : mark;
  return `${mover} to move: ${labValueWords(value, mark, scoring, { depth })}.`;
}

/** The move a scoring picks, and why: "With depth-aware scores it plays c3 (X wins, value -6)". */
export function choiceWords(scoring, answer, me) {
  const name = SCORING_NAMES[scoring];
  if (answer.best == null) return `With ${name}: no move to make.`;
  const ties = answer.children.filter((child) => child.value === answer.value).length;
  const tied = ties > 1 ? `; ${ties} moves tie, and the first is taken` : "";
  const worth = labValueWords(answer.value, me, scoring);
  return `With ${name} it plays ${cellName(answer.best)} (${worth}${tied}).`;
}

/**
 * What the AI played in the game at this position (its `decision`, as a game's moves
 * name it), set against the search's choice: "In the game the AI played c3, a random
 * move (O wins, value -7): this search plays a1 (a draw, value 0)."
 */
export function playedWords(cell, decision, answer, me, scoring, { depth = null } = {}) {
  const child = answer.children.find((found) => found.cell === cell);
  if (!child) return "";
  const how = DECISION_NAMES[decision] ?? "its move";
  const worth = (value) => labValueWords(value, me, scoring, { depth });
  const said = `In the game the AI played ${cellName(cell)}, ${how} (${worth(child.value)})`;
  if (cell === answer.best) return `${said}: the move this search plays too.`;
  const best = cellName(answer.best);
  if (child.value === answer.value) return `${said}: worth as much as this search’s ${best}.`;
  return `${said}: this search plays ${best} (${worth(answer.value)}).`;
}

// --- "Why this move?": the answer first, for the AI's move in a game ----------------------

/** The marks on the lab's board at the game's position, seen and read alike. */
export const PLAYED_TAG = "AI’s move";
export const BEST_TAG = "best";

// How the AI chose, after the cell: "The AI played b2 at random".
const CHOSE = {
  perfect: ", its best move",
  random: " at random",
  heuristic: ", the move with the best odds",
  lookahead: ", looking a few moves ahead",
};

/** "b1", "b1 and c3", "a1, b1 and c3". */
const cellsWords = (cells) => {
  const names = cells.map((cell) => cellName(cell));
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
};

// The AI's opponent in the answer: the reader, or the player of someone else's game.
const OPPONENTS = {
  you: { who: "you", plays: "you play", wins: "you win" },
  them: { who: "the player", plays: "the player plays", wins: "the player wins" },
};

// What a move worth `value` (depth-aware, for the AI) does against `them`; `s` makes
// its verb singular.
function outcomeWords(value, them, s = "s") {
  const top = shape.cells + 1; // a win on the spot, depth-aware: 10 on 3x3
  const moves = Math.ceil((top - Math.abs(value)) / 2); // the AI's own moves to its win
  if (value > 0 && moves === 1) return `win${s} at once`;
  if (value > 0) return `win${s} in ${moves} moves, whatever ${them.plays}`;
  if (value === 0) return `keep${s} a draw`;
  return `hold${s} out longest, though ${them.wins} against best play`;
}

// What the move played does, set against a better one: "lets you win", "only draws".
function worseWords(value, best, them) {
  if (value > 0) return "still wins, but more slowly";
  if (value === 0) return "only draws";
  return best < 0 ? `lets ${them.who} win sooner` : `lets ${them.who} win`;
}

/** The roll against the difficulty, where it decided: " (its roll of 71 was not under …)". */
function rollWords(roll, difficulty) {
  if (roll == null || difficulty == null || difficulty <= 0 || difficulty >= 100) return "";
  const under = roll < difficulty ? "under" : "not under";
  return ` (its roll of ${roll} was ${under} the difficulty, ${difficulty})`;
}

/**
 * The answer to "Why this move?" in one sentence, from the game's `played` ({cell,
 * decision, roll, difficulty, player}) and the depth-aware `answer` at its position
 * (values for the AI): "The AI played b2 at random (its roll of 71 was not under the
 * difficulty, 40); the best moves were b1 and c3, which keep a draw, and b2 lets you win."
 */
export function answerWords({ cell, decision, roll, difficulty, player }, answer) {
  const played = answer.children.find((child) => child.cell === cell);
  if (!played) return "";
  const them = OPPONENTS[player] ?? OPPONENTS.you;
  const best = answer.children.filter((child) => child.value === answer.value).map((c) => c.cell);
  const chose = `The AI played ${cellName(cell)}${CHOSE[decision] ?? ""}`;
  const said = chose + rollWords(roll, difficulty);
  if (played.value === answer.value) {
    const others = best.filter((other) => other !== cell);
    let also = others.length ? `, as good as ${cellsWords(others)}` : "";
    if (others.length > 2) also = `, one of ${best.length} as good`;
    const luck = decision === "perfect" ? "" : ", a best move all the same";
    return `${said}${luck}${also}: it ${outcomeWords(answer.value, them)}.`;
  }
  const many = best.length > 1;
  const bestSaid = `the best move${many ? "s were" : " was"} ${cellsWords(best)}`;
  const worth = outcomeWords(answer.value, them, many ? "" : "s");
  const worse = worseWords(played.value, answer.value, them);
  return `${said}; ${bestSaid}, which ${worth}, and ${cellName(cell)} ${worse}.`;
}

/** The two choices differ: the fatalist, and the one that fights on. */
export const FATALIST_WORDS =
  "Every move loses against best play, so ±1 scores make them all equal and the AI " +
  "takes the first cell; depth-aware scores make it block and lose as late as it can.";

const bound = (value) => (value == null ? "∞" : String(value));

/** α or β as shown: "−∞", "+∞" or the number. */
export function windowWords(value, side) {
  if (value == null) return side === "alpha" ? "−∞" : "+∞";
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}

/** One step of the search in words. */
export function stepWords(event) {
  const at = `node ${event.node}`;
  if (event.type === "enter") {
    const move = event.cell == null ? "the position itself" : `the move ${cellName(event.cell)}`;
    return `Visit ${at}, ${move}, at depth ${event.depth}.`;
  }
  if (event.type === "update") {
    return `${at} takes ${cellName(event.cell)}’s value: best so far ${bound(event.best)}.`;
  }
  if (event.type === "cut") return `Cut at ${at}: ${event.reason}.`;
  const how = {
    end: "the game is over",
    frontier: "the depth limit",
    table: "found in the table",
    searched: "searched",
  }[event.how];
  const kind = event.bound === "exact" ? "" : ` (${event.bound})`;
  return `Leave ${at}: value ${bound(event.value)}${kind}, ${how}.`;
}

/** Next cut asked of a search without alpha-beta pruning. */
export const NO_CUTS_WORDS =
  "Without alpha-beta pruning the search visits every move: there are no cuts. Turn pruning on to see them.";

/** Where the step-through is: "Step 18 of 70,289". */
export function stepOfWords(step, steps) {
  const total = steps == null ? "" : ` of ${steps.toLocaleString("en")}`;
  return `Step ${(step + 1).toLocaleString("en")}${total}.`;
}

/**
 * One kind of search's counts beside its bar; an estimate (`estimate`) is "≈ 1,234 nodes
 * (estimated)", a search stopped at the lab's cap (`more`) "more than 20,480 nodes".
 */
export function countWords({ nodes, hits, cuts, ms, estimate = false, more = false }) {
  const count = plural(nodes, "node").replace(/^\d+/, nodes.toLocaleString("en"));
  const parts = [estimate ? `≈ ${count} (estimated)` : more ? `more than ${count}` : count];
  if (hits) parts.push(`${hits.toLocaleString("en")} from the table`);
  if (cuts) parts.push(plural(cuts, "cut").replace(/^\d+/, cuts.toLocaleString("en")));
  parts.push(`${ms.toLocaleString("en")}\u00a0ms`); // a time never split from its unit
  return parts.join(" · ");
}

/** When the times were measured. */
export function measuredWords(measured) {
  if (!measured) return "Counted just now on this server; the counts are exact, the times indicative.";
  return (
    `Measured once on ${measured} (this position is costly to count): the counts are exact, ` +
    "the times indicative."
  );
}

/** The search's kind, in words: "alphabeta+table" -> "alpha-beta, table". */
export const kindWords = (kind) =>
  kind.replace("alphabeta", "alpha-beta").replace("minimax", "plain minimax").split("+").join(", ");
