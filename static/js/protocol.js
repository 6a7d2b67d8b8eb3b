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
});

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
});

/** The error codes the page acts on, beyond showing their message. */
export const ERRORS = Object.freeze({ badSetting: "bad_setting", badPayload: "bad_payload" });

/** A client seed for the dice (docs/fairness.md): 1 to 64 letters, digits, - or _. */
export const CLIENT_SEED = /^[A-Za-z0-9_-]{1,64}$/;

/** Codes the page makes up itself, when no answer came. */
export const CLIENT_ERROR_MESSAGES = Object.freeze({
  offline: "Not connected: wait a moment",
  timeout: "The server did not answer",
  bad_reply: "The server’s answer was not understood",
});

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

/** What each notice tells the player, by code. */
export const NOTICE_MESSAGES = Object.freeze({
  match_unreadable: "Your saved match could not be read, so a new one was started",
});

const COLUMNS = "abcdefghi";

/** The a1..c3 name of a cell on a board `size` wide: column letter, then row from the top. */
/**
 * The lab's address (`base`, any query dropped) at `board`, nine characters, with the
 * AI's move there in a game when `played` ({cell, decision}) is given:
 * "/lab?board=XO..X....&played=2&how=random".
 */
export function labAddress(base, board, played = null) {
  const how = played?.decision ? `&how=${encodeURIComponent(played.decision)}` : "";
  const game = played ? `&played=${played.cell}${how}` : "";
  return `${base.split("?")[0]}?board=${encodeURIComponent(board)}${game}`;
}

export const cellName = (cell, size = 3) =>
  `${COLUMNS[cell % size]}${Math.floor(cell / size) + 1}`;

/** The cell (0..8 on a 3x3 board) an a1..c3 name stands for. */
export const cellIndex = (name, size = 3) =>
  COLUMNS.indexOf(name[0]) + size * (Number(name.slice(1)) - 1);
