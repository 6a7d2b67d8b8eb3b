// The protocol's names as the page uses them (webapp/server/protocol/vocabulary.py is the source;
// a test checks that both, and docs/protocol.md, list the same ones).

/** Events the page sends. */
export const EVENTS = Object.freeze({
  move: "move",
  nextGame: "next_game",
  newMatch: "new_match",
  lockDifficulty: "lock_difficulty",
  odds: "odds",
  hint: "hint",
  roomJoin: "room_join",
  roomMove: "room_move",
  roomUndo: "room_undo",
  roomResign: "room_resign",
  roomRematch: "room_rematch",
  roomLeave: "room_leave",
  roomHint: "room_hint",
  roomSit: "room_sit",
  roomName: "room_name",
  takeBack: "take_back",
  history: "history",
  historyGame: "history_game",
  labChildren: "lab_children",
  labPage: "lab_page",
  labCounts: "lab_counts",
});

/** What the server pushes. */
export const SERVER_EVENTS = Object.freeze({
  state: "state",
  room: "room",
  problem: "problem",
  notice: "notice",
  playerDeleted: "player_deleted",
  player: "player",
});

/** The error codes the page acts on, beyond showing their message. */
export const ERRORS = Object.freeze({
  badSetting: "bad_setting",
  badPayload: "bad_payload",
  rateLimited: "rate_limited",
});

/** A client seed for the dice (docs/fairness.md): 1 to 64 letters, digits, - or _. */
export const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;

/** Why the server refused the connection (`data.code` of connect_error). */
export const REFUSALS = Object.freeze({
  noSession: "no_session",
  reload: "reload",
  cooldown: "cooldown",
  tooManySockets: "too_many_sockets",
  playerDeleted: "player_deleted",
});

/** What the server's `notice` events are about (their `code`). */
export const NOTICES = Object.freeze({ matchUnreadable: "match_unreadable" });

const COLUMNS = "abcdefghi";

/**
 * The lab's address (`base`, any query dropped) at `board` (in the notation: nine
 * characters on classic, 16 on 4x4, "/" between Notakto's boards) on `variant` (left out
 * for classic), with the AI's move there in a game when `played` ({cell, decision, roll,
 * difficulty, player}) is given: "/lab?board=XO..X....&played=2&how=random&roll=71&level=40".
 * The roll and the difficulty are left out where the game had none (a fixed mode);
 * `player` is "them" where the AI's opponent is not the reader (a shared game).
 */
export function labAddress(base, board, played = null, variant = "classic") {
  // A Notakto position given as all its cells in one row: its boards of nine, with "/".
  const split = /^notakto\d$/.test(variant) && !board.includes("/");
  const query = new URLSearchParams({ board: split ? board.match(/.{1,9}/g).join("/") : board });
  if (variant && variant !== "classic") query.set("variant", variant);
  const { cell, decision, roll, difficulty, player } = played ?? {};
  const facts = { played: cell, how: decision, roll, level: difficulty, player };
  for (const [name, value] of Object.entries(facts)) {
    if (value != null && value !== "") query.set(name, String(value));
  }
  return `${base.split("?")[0]}?${query}`;
}

/** The a1..c3 name of a cell on a board `size` wide: column letter, then row from the top. */
export const cellName = (cell, size = 3) =>
  `${COLUMNS[cell % size]}${Math.floor(cell / size) + 1}`;

/** The cell (0..8 on a 3x3 board) an a1..c3 name stands for. */
export const cellIndex = (name, size = 3) =>
  COLUMNS.indexOf(name[0]) + size * (Number(name.slice(1)) - 1);
