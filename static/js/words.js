// What the pages say to the player about a game: the board's cells and keys, the AI's
// decisions, the values of moves under perfect play, the review's verdicts and the
// results, and what every page says of refusals, notices and the connection. Every page
// takes its words from here or from its own words_*.js, so each is written once
// (tests/test_one_wording.py fails on words written anywhere else).
import { cellName } from "./protocol.js";

/** "1 move", "2 moves". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** A costly answer refused for a while (429 with Retry-After): when to ask again. */
export const askedTooOften = (seconds) =>
  `Asked for too often: try again in ${plural(Math.ceil(seconds), "second")}`;

/** "c1", "a1 or c3", "a1, b1 or c3". */
export function eitherCell(cells) {
  return cells.length < 2 ? cells.join("") : `${cells.slice(0, -1).join(", ")} or ${cells.at(-1)}`;
}

// --- the board ----------------------------------------------------------------------

/** A cell's accessible name: "b2, empty", "b2, X". */
export const cellWords = (name, mark) => `${name}, ${mark === "X" || mark === "O" ? mark : "empty"}`;

/** Said of a cell the review marks as the better move. */
export const BETTER_MOVE = "the better move";

/** What the keys do on a board that can be played. */
export const BOARD_HELP = "Arrow keys move between cells, Enter or Space plays the focused cell";
export const BOARD_HELP_DIGITS = ", keys 1 to 9 play a cell in reading order";

/** A move the page could not send: it is not connected. */
export const offlineMoveWords = (cell) => `Not connected: ${cell} was not played. Reconnecting…`;

/** The board's accessible name, on a page that plays and on a replay. */
export const BOARD_LABEL = "Board";
export const REPLAY_BOARD_LABEL = "Replay board";

/** Several boards (Notakto): the group, each board, a dead one, and the keys across. */
export const BOARDS_LABEL = "Boards";
export const boardName = (n) => `Board ${n}`;
export const deadBoardWords = (n) => `Board ${n} is dead`;
export const ON_DEAD_BOARD = "on a dead board";
export const BOARDS_HELP = " At a board's edge, arrow keys go on to the next board.";
/** Typing a cell's name goes to it (board.js). */
export const namesHelp = (example) => ` Typing a cell's name, such as ${example}, goes to it.`;

/** The boards (from 0) dead now and not `before`, said; "" for none. */
export function deadNewsWords(dead, before) {
  const fresh = dead.filter((b) => !before.includes(b));
  return fresh.map((b) => deadBoardWords(b + 1)).join(". ");
}

/** A hint as the cell's description: "hint: win now: three in a row". */
export const hintDescription = (sentence) => `hint: ${sentence}`;

// --- the page's errors, the server's notices and the connection ------------------------

/** What each refusal means to a player, by error code. */
export const ERROR_MESSAGES = Object.freeze({
  bad_payload: "The server did not understand that",
  cell_out_of_range: "There is no such cell",
  cell_taken: "That cell is taken",
  not_your_turn: "Wait for the AI’s move",
  stale_version: "The game changed in another tab: look again",
  game_over: "This game is over",
  match_over: "The match is over: start a new one",
  bad_setting: "Those settings are out of range",
  rate_limited: "Slow down a little",
  unknown_event: "The server did not understand that",
  busy: "The game is busy: try again",
  bad_packet: "The server could not read what the page sent",
  room_not_found: "This room has ended or expired",
  not_seated: "You are watching: only the two players move",
  not_allowed: "That is not allowed here",
  game_not_over: "Finish this game first",
  too_many_rooms: "You have too many rooms open: leave one first",
  too_many_watchers: "This room has as many watchers as it can take",
  rooms_full: "The server has as many rooms open as it can hold: try again later",
  too_many_new_rooms: "Too many new rooms were opened from your network: try again later",
  no_free_seat: "Both seats are taken: you can watch",
  bad_name: "That name cannot be used",
  storage_full: "The server’s storage is full: try again later",
  game_not_found: "That game is not in your history",
  bad_board: "That board cannot arise in a game",
  too_costly: "That search is too large to show here",
  bad_step: "That step is not in this search",
  player_deleted: "Your data was deleted: reload the page",
  internal: "The server failed: try again",
  dead_board: "That board is dead: play on a live one",
  classic_only: "That is for the classic game only",
});

/** Codes the page makes up itself (connection.js), when no answer came. */
export const CLIENT_ERROR_MESSAGES = Object.freeze({
  offline: "Not connected: wait a moment",
  timeout: "The server did not answer",
  bad_reply: "The server’s answer was not understood",
});

/** Said of a refusal whose code the page does not know. */
export const SOMETHING_WENT_WRONG = "Something went wrong";

/**
 * A refused request in words: `error` is an ack's {code, message}, or a bare code. The
 * page's words for the code come first, else `fallback`. With `servers`, the server's
 * own message (when it says more than the code) goes before the page's words for a
 * server's code, with a capital unless it begins with a cell's name ("b2 is taken").
 */
export function errorWords(error, { fallback = SOMETHING_WENT_WRONG, servers = false } = {}) {
  const { code, message } = typeof error === "object" && error ? error : { code: error };
  const own = CLIENT_ERROR_MESSAGES[code];
  const said = servers && message && message !== code ? message : "";
  const text = own ?? (said || ERROR_MESSAGES[code]) ?? fallback;
  return /^[a-i][1-9]\b/.test(text) ? text : capital(text);
}

/** What each of the server's notices tells the player, by code. */
export const NOTICE_MESSAGES = Object.freeze({
  match_unreadable: "Your saved match could not be read, so a new one was started",
});

/** What the server's `notice` says, by its code. */
export const noticeWords = (code) => NOTICE_MESSAGES[code] ?? "The server sent a notice";

/** Copying a link, by the clipboard or, without one, by hand. */
export const LINK_COPIED = "Link copied";
export const LINK_SELECTED = "Link selected: copy it with your keyboard or menu";

/**
 * The connection banner's words while not connected: reconnecting, or refused (with the
 * server's `reason`). A page that only reads (History, the lab) shows the reason alone.
 */
export function connectionWords(status, reason = "", { plays = true } = {}) {
  if (!plays) return reason || "Reconnecting…";
  if (status !== "refused") return "Reconnecting…";
  return `Connection refused: ${reason || "reload the page"}`;
}

/** A game's mode as the pages name it: the AI's mode (the new-match form's label), or a
 * game with a friend. */
export const modeName = (mode) => (mode === "friend" ? "With a friend" : capital(mode));

/** "Game 3". */
export const gameWords = (game) => `Game ${game}`;

// --- the AI page: its headline, the match and its tools ------------------------------

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
  const plays = state.variant?.startsWith("notakto") ? "Both place X" : `You play ${state.human}`;
  return `${gameWords(state.match.game)} · ${plays}, ${order}`;
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

/** The scripted players' chances of the match under way, from its current HP. */
export function chancesSentence(odds) {
  return (
    `For reference, from here a perfect player wins ${percent(odds.perfect.human_match_win_prob)} ` +
    `of this match; a random one ${percent(odds.random.human_match_win_prob)}`
  );
}

/**
 * The player's own chance from here (the `you` of a current `odds` answer), at their skill
 * with its interval: "You, at your skill 0.62 (0.48–0.75), win this match from here 41% of
 * the time (33% to 50%)"; or how many more moves their skill needs.
 */
export function ownChanceWords(you) {
  const skill = you.skill;
  if (you.chance == null) {
    return (
      `You: your own chance shows here after ${plural(you.more_moves, "more move")} where a ` +
      `choice mattered (${skill.moves} of ${skill.min_moves} so far)`
    );
  }
  const [low, high] = [percent(you.low), percent(you.high)];
  const range = low === high ? "" : ` (${low} to ${high})`;
  return (
    `You, at your skill ${skillNumber(skill.skill)} (${skillNumber(skill.low)}–${skillNumber(skill.high)}), ` +
    `win this match from here ${percent(you.chance)} of the time${range}`
  );
}

// --- the dice: the AI page's panel and the replay's signed record ----------------------

/** A game record that passed the page's check, in plain words, by what its signature said
 * (the details are in the downloadable record). */
export const RECORD_VERIFIED = Object.freeze({
  verified: "Dice checked ✓",
  unchecked: "Dice checked ✓ (this browser cannot check the signature)",
  unsigned: "Dice checked ✓ (the record is unsigned)",
});

/** The server seed's place while the game goes on. */
export const SEED_HIDDEN = "revealed when the game ends";

/** The client seed the next game will start from, when it is not this game's. */
export const nextSeedWords = (seed) => ` (from your next game: ${seed}-…)`;

/** The dice check's line, by where the game is. */
export const DICE_CHECK = Object.freeze({
  none: "This game began before verifiable dice",
  waiting: "Dice fixed before the game: checked here when it ends",
  checking: "Checking the dice…",
  unchecked: "The dice could not be checked: reload the page to try again",
});

/** A dice check that failed, with the checker's reason. */
export const diceFailedWords = (reason) => `Dice check failed: ${reason}`;

/** The replay's check of a signed record, while it runs and when it could not. */
export const RECORD_CHECK = Object.freeze({
  checking: "Checking the record…",
  unchecked: "The record could not be checked: reload the page to try again",
});

/** A record check that failed, with the checker's reason. */
export const recordFailedWords = (reason) => `Check failed: ${reason}`;

// --- results ----------------------------------------------------------------------------

/** A game's end, by the server's status, as the player of the AI page reads it. */
export const RESULTS = { human_won: "You win!", ai_won: "AI wins", draw: "Draw" };

/** A match's end, by its winner. */
export const MATCH_RESULTS = { human: "You won the match!", ai: "The AI won the match" };

/** The player's result in a finished game, as History and the replay name it. */
export const PLAYER_RESULTS = { win: "Win", draw: "Draw", loss: "Loss" };

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

// How a game ended, said after the move that ended it.
const ENDINGS = {
  human_won: ": three in a row, you win",
  ai_won: ": three in a row, the AI wins",
  draw: ": the board is full, a draw",
};
/** How a game of `variant` ended: who made the run or killed the last board, who wins. */
function endingWords(status, variant = "classic") {
  const won = status === "human_won";
  if ((!won && status !== "ai_won") || variant === "classic") return ENDINGS[status] ?? "";
  const [winner, maker] = won ? ["you win", "the AI"] : ["the AI wins", "you"];
  if (variant.startsWith("notakto")) return `: ${maker} killed the last board, ${winner}`;
  const run = variant === "4x4k4" ? "four in a row" : "three in a row";
  return `: ${variant === "misere" ? `${maker} made ` : ""}${run}, ${winner}`;
}

// --- values: where a move leads under perfect play ---------------------------------------

/**
 * A hint (the server's {result, plies} for a cell) in the player's own moves: the short
 * label on the cell, and the sentence a screen reader hears. Plies count both sides'
 * moves, this one included, so a win in 3 plies is this move and one more of yours.
 */
export function hintWords({ result, plies }) {
  if (result === "draw") return { label: "draw", sentence: "draw with best play" };
  if (result !== "win") return { label: "loses", sentence: "loses against best play" };
  const mine = Math.ceil(plies / 2);
  if (mine === 1) return { label: "win now", sentence: "win now: three in a row" };
  return { label: `win · ${mine} moves`, sentence: `win in ${mine} of your moves` };
}

/**
 * What a move (or any of several) leads to under best play, short and plain: "b1 loses
 * in 3", "c1, a2 or c3 keep the draw", "a3 wins now"; `slipped`: a draw where a win was.
 */
function leadsTo(cells, { result, plies }, { slipped = false } = {}) {
  const verb = (one, many) => (cells.length === 1 ? one : many);
  const moves = Math.ceil(plies / 2);
  const does = {
    draw: slipped ? verb("only draws", "only draw") : `${verb("keeps", "keep")} the draw`,
    win: plies === 1 ? verb("wins now", "win now") : `${verb("wins", "win")} in ${moves}`,
    loss: `${verb("loses", "lose")} in ${moves}`,
  }[result];
  return `${eitherCell(cells)} ${does}`;
}

// Best first: the fastest win, the draw, the slowest loss.
const RANK = { win: (plies) => plies, draw: () => 100, loss: (plies) => 200 - plies };

/** Every empty cell's value under best play (the server's analysis: cell -> {result,
 * plies}), best first: "b2 wins in 2. a1 or c3 keep the draw. a2 loses in 3." */
export function valuesWords(analysis, name) {
  const groups = new Map();
  for (const [cell, value] of Object.entries(analysis)) {
    const key = `${value.result} ${value.plies}`;
    if (!groups.has(key)) groups.set(key, { value, cells: [] });
    groups.get(key).cells.push(Number(cell));
  }
  const rank = ({ value }) => RANK[value.result]?.(value.plies) ?? 300;
  const ranked = [...groups.values()].sort((a, b) => rank(a) - rank(b));
  return ranked.map(({ value, cells }) => `${leadsTo(cells.map(name), value)}.`).join(" ");
}

// --- decisions: what the AI did --------------------------------------------------------

// What the AI did, by its decision, in a sentence; `depth` is how far lookahead looks.
const DECISIONS = {
  perfect: (cell) => `played its best move, ${cell}`,
  random: (cell) => `moved at random, ${cell}`,
  heuristic: (cell) => `played the move with the best odds, ${cell}`,
  lookahead: (cell, depth) => `looked ${depth} moves ahead and played ${cell}`,
};

// The same decisions named in a list of moves.
export const DECISION_NAMES = {
  perfect: "its best move",
  random: "a random move",
  heuristic: "the move with the best odds",
  lookahead: "a move looking two ahead",
};

/** What the difficulty means: "the AI plays its best move 60% of the time, else at random". */
export function difficultyWords(difficulty, locked) {
  const lock = locked != null ? "locked: " : "";
  return `${lock}the AI plays its best move ${difficulty}% of the time, else at random`;
}

/** What locking the difficulty at `level` means, asked before it is done. */
export function lockWords(level) {
  return (
    `The AI will play its best move ${level}% of the time for the rest of this match, ` +
    "whatever the HP. Only a new match undoes it."
  );
}

/** What the AI's `move` was, in plain words; `mode` is the fixed mode's name. */
export function aiMoveWords(move, { mode, depth = 2, name = cellName }) {
  const cell = name(move.cell);
  const did = (DECISIONS[move.decision] ?? ((name) => `played ${name}`))(cell, depth);
  const level = move.difficulty;
  if (level == null) return `${mode}: the AI ${did}`;
  // At 0 and at 100 the roll decides nothing, so it goes unsaid.
  if (level <= 0 || level >= 100) return `Difficulty ${level}: the AI ${did}`;
  const under = move.decision === "perfect" ? "under" : "not under";
  return `Difficulty ${level}: the AI rolled ${move.roll}, ${under} ${level}, so it ${did}`;
}

/** The line under the board: always about the latest move of the game, or "" before any;
 * `name` names a cell. */
export function latestMoveWords(state, mode, name = cellName) {
  const last = state.history.at(-1);
  const ending = endingWords(state.status, state.variant);
  if (state.status === "playing" && state.turn === "ai") {
    if (!last) return "The AI goes first and is thinking…";
    return `You played ${name(last.cell)}. The AI is thinking…`;
  }
  if (!last) return "";
  if (last.by === "human") return `You played ${name(last.cell)}${ending}`;
  const depth = state.rules?.lookahead_depth;
  return aiMoveWords(state.last_ai_move, { mode, depth, name }) + ending;
}

// --- verdicts: the review of a finished game, and practice ------------------------------

const VERDICTS = {
  best: "best move",
  inaccuracy: "inaccuracy",
  mistake: "mistake",
  blunder: "blunder",
};

const SLIPS = { inaccuracy: "an inaccuracy", mistake: "a mistake", blunder: "a blunder" };

const PLAYERS = { human: "You", friend: "Your friend", ai: "The AI" };

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** The better moves the server named for a move that was not the best, else none. */
export const betterCells = (move) => (move.verdict === "best" ? [] : (move.best_cells ?? []));

/** A reviewed move, in a sentence: "You (X) played b2, its best move". */
export function moveWords(move) {
  const who = `${PLAYERS[move.by] ?? PLAYERS.ai} (${move.side})`;
  const how = move.decision ? `, ${DECISION_NAMES[move.decision] ?? move.decision}` : "";
  return `${who} played ${move.cell}${how}`;
}

/** Who moved first, for the replay's empty board: "you", "the AI", "your friend". */
export function firstMoverWords(first, by) {
  if (by) return PLAYERS[by].toLowerCase();
  return first === "human" ? "you" : "the AI";
}

/**
 * A judged move, after `label`: what it leads to, then what the better moves (`better`,
 * by default the ones the server named) lead to: "Mistake: b1 loses in 3; c1, a2, b2 or
 * c3 keep the draw." The one wording of a verdict: the replay, the share page, practice.
 */
function judgedWords(label, move, better = betterCells(move)) {
  const played = leadsTo([move.cell], move.played, { slipped: move.best.result === "win" });
  const best = better.length ? `; ${leadsTo(better, move.best)}` : "";
  return `${label}: ${played}${best}.`;
}

// What became of a gift the AI's move gave (review.py): the player's next move took it or not.
const GIFTS = {
  taken: "It gave you a better result, and you took it.",
  missed: "It gave you a better result, but you missed it.",
};

/** The review's verdict on a move, with the better move(s) it names. */
export function verdictWords(move) {
  const gift = move.gift ? ` ${GIFTS[move.gift]}` : "";
  return judgedWords(capital(VERDICTS[move.verdict]), move) + gift;
}

/** A reviewed move in the list of moves: "X b2: mistake (best a1)". */
export function moveListWords(move) {
  const gift = move.gift ? `, AI gift ${move.gift}` : "";
  const better = betterCells(move);
  const best = better.length ? ` (best ${eitherCell(better)})` : "";
  return `${move.side} ${move.cell}: ${VERDICTS[move.verdict]}${best}${gift}`;
}

/**
 * A practice game from a mistake, in words: `lesson` names the mistake and asks for
 * another move; `feedback` says what the player's latest move does (the server's
 * verdict: the mistake again, the best move, another good one, or a slip).
 */
export function practiceWords({ mistake, feedback }) {
  const slip = SLIPS[mistake.verdict] ?? mistake.verdict;
  const lesson = `${judgedWords(`Here you played ${slip}`, mistake, [])} Try another move.`;
  if (!feedback) return { lesson, feedback: "" };
  const label = PRACTICE_LABELS[feedback.feedback] ?? capital(VERDICTS[feedback.feedback]);
  // The mistake again names no better move: the lesson still asks for one.
  const better = feedback.feedback === "played" ? [] : betterCells(feedback);
  return { lesson, feedback: judgedWords(label, feedback, better) };
}

/** The button after a finished game: practice plays the same position again. */
export const nextGameWords = (practice) => (practice ? "Try this position again" : "Next game");

const PRACTICE_LABELS = {
  played: "That's your move again",
  best: "Best move",
  good: "Also good",
};

// --- the odds you ask for (a targeted match), your skill, and promises kept ----------

/**
 * A probability as a percentage of at most three significant figures: 84.7%, 0.539%,
 * 12%; one that would round to 100% or 0% is "more than 99.9%" or "less than 0.1%",
 * so only a certainty or an impossibility reads 100% or 0%.
 */
export function percent(probability) {
  const p = probability * 100;
  if (!(p > 0)) return "0%";
  if (p >= 100) return "100%";
  if (p < 0.1) return "less than 0.1%";
  if (p >= 99.95) return "more than 99.9%";
  return `${Number(p.toPrecision(3))}%`;
}

/** A chance as a promise says it: "59.8%", "under 0.1%", "over 99.9%"; none at all "0%". */
export function chanceWords(p) {
  if (p === 0 || p === 1) return `${p * 100}%`;
  if (p < 0.0005) return "under 0.1%";
  if (p >= 0.9995) return "over 99.9%";
  return `${(p * 100).toFixed(1).replace(/\.0$/, "")}%`;
}

/** A skill as History and the rules dialog write it: "0.83". */
export const skillNumber = (s) => s.toFixed(2);

/** The ask, in the player's words: "Win about 60%". */
export const targetWords = (target) => `Win about ${Math.round(target * 100)}%`;

/** What the tuned rules changed, by rule name, in the dialog's words. */
const CHANGED_WORDS = {
  ai_win_human_damage: (hp) => `a loss costs you ${hp} HP`,
  draw_human_damage: (hp) => `a draw costs you ${hp} HP`,
};

/** "The rules: classic, except that a loss costs you 3 HP (classic 34) and a draw …". */
export function tunedRulesWords(changed, classic) {
  const parts = Object.entries(changed).map(([name, hp]) => {
    const said = CHANGED_WORDS[name]?.(hp) ?? `${name.replaceAll("_", " ")} ${hp}`;
    return `${said} (classic ${classic[name]})`;
  });
  if (parts.length === 0) return "The rules: classic, unchanged.";
  return `The rules: classic, except that ${eitherAnd(parts)}; the AI still sharpens as it loses HP.`;
}

const eitherAnd = (parts) =>
  parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;

/** The one skill a tune used, by name: "your skill 0.62", or "the default skill 0.50". */
const skillUsed = (skill) => `${skill.measured ? "your skill" : "the default skill"} ${skillNumber(skill.skill)}`;

/** The chance the tuned rules give the skill used, and whether the target was within reach. */
export function tunedChanceWords(tuned) {
  const games = Math.round(tuned.odds.expected_games);
  const odds = `${chanceWords(tuned.chance)} chance of winning this match, in about ${plural(games, "game")}`;
  const whose = skillUsed(tuned.skill);
  if (tuned.reachable) return `For ${whose}: a ${odds}.`;
  const asked = `${Math.round(tuned.target * 100)}%`;
  const reach = `${chanceWords(tuned.reach.low)} to ${chanceWords(tuned.reach.high)}`;
  return `${asked} is out of reach: these rules can give ${whose} from ${reach}. The nearest: a ${odds}.`;
}

/** Where the skill a tune used comes from: the player's moves, or why the default. */
export function skillUsedWords(skill) {
  if (skill.measured) {
    return `Measured from ${plural(skill.moves, "move")} of yours where a choice mattered: most likely from ${skillNumber(skill.low)} to ${skillNumber(skill.high)}.`;
  }
  return (
    `Your own skill is used once your games hold ${plural(skill.min_moves, "move")} ` +
    `where a choice mattered (${skill.moves} so far).`
  );
}

/** History's skill line: "Your skill: 0.83 (0.76–0.89, from 140 moves)". */
export function skillLineWords(skill) {
  if (!skill.measured) return `Your skill: not measured yet (${skill.moves} of ${plural(skill.min_moves, "move")})`;
  return `Your skill: ${skillNumber(skill.skill)} (${skillNumber(skill.low)}–${skillNumber(skill.high)}, from ${plural(skill.moves, "move")})`;
}

/** What the skill line means, in one sentence. */
export function skillMeaningWords(skill) {
  const hinted = skill.hinted_left_out ? `; ${plural(skill.hinted_left_out, "move")} made with hints shown are left out` : "";
  if (!skill.measured) {
    return (
      `Too few moves yet: it takes ${plural(skill.min_moves, "move")} where a choice mattered, ` +
      `and until then a match you ask odds for assumes ${skillNumber(skill.skill)}${hinted}.`
    );
  }
  const times = Math.round(skill.skill * 100);
  return (
    `When a move matters, you find a best one about ${times} times in 100 with luck taken out, ` +
    `and the interval is where your true skill most likely lies${hinted}.`
  );
}

/** The Match card's line for a match started from a target. */
export function promiseWords(promise) {
  const asked = `you asked for about ${Math.round(promise.target * 100)}%${promise.reachable ? "" : ", out of reach"}`;
  return `Promised: a ${chanceWords(promise.chance)} chance to win this match (${asked}).`;
}

/** A finished targeted match's promise beside what happened. */
export const keptWords = (promise, won) => `${chanceWords(promise.chance)} promised · ${won ? "won" : "lost"}`;

/** The calibration's summary over all finished targeted matches. */
export function calibrationWords(calibration) {
  const { matches, won, expected_wins: expected } = calibration;
  return (
    `${matches} ${matches === 1 ? "match" : "matches"} you asked odds for: their promises add up to ` +
    `${expected.toFixed(1)} wins, and you won ${won}.`
  );
}
