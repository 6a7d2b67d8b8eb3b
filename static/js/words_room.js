// What the room page says: whose turn and who won, as each viewer reads it (a player, two
// players on one device, a spectator), the notes under it, the score, the seats, the
// invite and the questions asked before resigning or leaving. words.js has the rest.
import { RESULTS, gameWords, plural } from "./words.js";
import { SEATS, away, free, markOf as seatMark, other } from "./seats.js";

const SEAT_NAMES = ["Player 1", "Player 2"];

/** Whether both players place X (Notakto): each is then named by their turn. */
const bothX = (room) => room.variant?.startsWith("notakto") ?? false;
const ORDER = { X: "first", O: "second" };

/** The mark of `seat` as said: X or O, or first or second in Notakto. */
const markOf = (room, seat) => (bothX(room) ? ORDER : { X: "X", O: "O" })[seatMark(room, seat)];

/** The name the player in `seat` gave, or the leaver's while the room speaks of them. */
const givenName = (room, seat) =>
  room.seats[seat].name || (seat === room.left ? room.former : null);

/** A seat's name as the room shows it: the one its player gave, else Player 1 or 2. */
export const nameOf = (room, seat) => givenName(room, seat) || SEAT_NAMES[seat];

/** The friend of the player in `seat`, as that player reads it. */
const friendOf = (room, seat) => givenName(room, other(seat)) || "Your friend";

// For two people on one device: the mark to move; a result names its player, as a
// spectator reads it ("Player 1 (X) wins"), since X changes hands every game.
function markStatus(room) {
  if (room.status === "playing" && bothX(room)) return `${SEAT_NAMES[room.turn]} to move`;
  if (room.status === "playing") return `${markOf(room, room.turn)} to move`;
  return watcherStatus(room);
}

// For a spectator: each player by name, with their mark.
function watcherStatus(room) {
  const who = (seat) => `${nameOf(room, seat)} (${markOf(room, seat)})`;
  if (room.status === "playing") return `${who(room.turn)} to move`;
  if (room.resigned != null) return `${who(room.resigned)} resigned`;
  return room.winner == null ? RESULTS.draw : `${who(room.winner)} wins`;
}

function playerStatus(room, seat) {
  const friend = friendOf(room, seat);
  if (room.status === "playing") {
    return room.turn === seat ? `Your turn (you play ${markOf(room, seat)})` : `${friend}'s turn`;
  }
  if (room.resigned != null) {
    return room.resigned === seat ? "You resigned" : `${friend} resigned`;
  }
  if (room.winner == null) return RESULTS.draw;
  return room.winner === seat ? RESULTS.human_won : `${friend} wins`;
}

/** What a player leaving means to this viewer ("" when no one has left), by their name. */
export function leftText(room, mine) {
  if (room.left == null) return "";
  const who = mine.length === 1 ? friendOf(room, mine[0]) : nameOf(room, room.left);
  return `${who} left the room`;
}

/** Who took whose seat, while the new series it began is in its first game ("" else):
 * "Carol took Bob's seat: a new series begins". */
export function takenText(room, mine) {
  const seat = room.taken;
  if (seat == null) return "";
  const theirs = room.former || (mine.length ? "your friend" : SEAT_NAMES[seat]);
  const who = mine.includes(seat) ? "You" : room.seats[seat].name || "A new player";
  return `${who} took ${theirs}'s seat: a new series begins`;
}

/** The status line, in plain words, for a viewer holding the seats `mine`. */
export function statusText(room, mine) {
  if (room.status === "waiting") {
    if (room.left != null) return leftText(room, mine);
    return mine.length ? "Waiting for your friend to open the link" : "Waiting for a second player";
  }
  if (room.kind === "local") return markStatus(room);
  return mine.length === 1 ? playerStatus(room, mine[0]) : watcherStatus(room);
}

/** What else a player should know: a rematch asked for, a friend away, a free seat. */
function playerNotes(room, seat) {
  const friend = other(seat);
  const name = friendOf(room, seat);
  const notes = [];
  if (room.status === "waiting" && room.left != null) {
    notes.push("The score is your last series"); // short: a long note reads as a heading
  }
  if (room.status === "over") {
    const asked = room.rematch.includes(seat);
    const theirs = room.rematch.includes(friend);
    const them = givenName(room, friend) || "your friend";
    if (asked && !theirs) notes.push(`Waiting for ${them} to accept the rematch`);
    if (theirs && !asked) notes.push(`${name} wants a rematch`);
  }
  if (room.status !== "waiting" && away(room, friend)) notes.push(`${name} is away`);
  return notes.join(" · ");
}

/** What a spectator should know: who is away, and a seat they may take. */
function watcherNotes(room) {
  const notes = SEATS.filter((seat) => away(room, seat)).map((s) => `${nameOf(room, s)} is away`);
  if (SEATS.some((seat) => free(room, seat))) {
    notes.push("A seat is free");
  }
  return notes.join(" · ");
}

/** The notes under the status, for any viewer. */
export function notesText(room, mine) {
  if (room.kind === "local") return "";
  return mine.length === 1 ? playerNotes(room, mine[0]) : watcherNotes(room);
}

/** The line under the status: the game, and who plays which mark. */
export function metaText(room, mine) {
  if (room.status === "waiting") {
    return mine.length ? "Send your friend the invite link" : "Watching";
  }
  const game = gameWords(room.game);
  if (room.kind === "local") {
    const o = other(room.x_seat);
    if (bothX(room)) return `${game} · ${SEAT_NAMES[room.x_seat]} moves first, both play X`;
    return `${game} · ${SEAT_NAMES[room.x_seat]} is X, ${SEAT_NAMES[o]} is O`;
  }
  if (mine.length) return `${game} · You play ${markOf(room, mine[0])}`;
  const o = other(room.x_seat);
  const plays = (seat) => `${nameOf(room, seat)} plays ${markOf(room, seat)}`;
  return `${game} · You are watching: ${plays(room.x_seat)}, ${plays(o)}`;
}

/** The series so far, as "You 2 – 1 Friend" and "1 draw" (by seat for a spectator). */
export function scoreParts(room, mine) {
  const player = mine.length === 1;
  const [first, second] = player ? [mine[0], other(mine[0])] : SEATS;
  const names = player
    ? ["You", givenName(room, second) || "Friend"]
    : [nameOf(room, 0), nameOf(room, 1)];
  const wins = room.score.seat_wins;
  const series = `${names[0]} ${wins[first]} – ${wins[second]} ${names[1]}`;
  return [series, plural(room.score.draws, "draw")];
}

/** A seat in the list of who is in the room: "Ana (you) · X · here". */
export function seatWords(room, seat, mine) {
  const held = !free(room, seat);
  const mark = room.status === "waiting" ? "" : ` · ${markOf(room, seat)}`;
  const you = mine.includes(seat) ? " (you)" : "";
  const state = !held ? "free seat" : away(room, seat) ? "away" : "here";
  return `${held ? nameOf(room, seat) : SEAT_NAMES[seat]}${you}${mark} · ${state}`;
}

/** How many watch: "2 watching". */
export const watchingWords = (count) => `${count} watching`;

/** The page's heading and tagline, for a player and for a spectator. */
export const HEADER = Object.freeze({
  playing: { title: "Play a friend", tagline: "One board, two browsers: share the link below." },
  watching: {
    title: "Watching a game",
    tagline: "You are watching two players. When a seat is free, you can take it.",
  },
});

/** The invite's heading and help: for a friend, or for a spectator; `left`: a seat was left. */
export const inviteTitle = (friend) => (friend ? "Invite a friend" : "Invite someone to watch");
export const inviteHelp = (left) =>
  left
    ? "Whoever opens it can take the free seat with its button; anyone else watches."
    : "The first person to open it plays you; anyone after them watches.";

/** A name the server kept. */
export const NAME_SAVED = "Name saved";

/** Where the status goes when the room could not be joined. */
export const NOT_IN_ROOM = "Not in the room";

/** The questions asked before an action that cannot be undone. */
export const CONFIRM_RESIGN = Object.freeze({
  title: "Resign this game?",
  text: "Your friend wins it, and it counts in the score.",
  yes: "Yes, resign",
  no: "Keep playing",
});
export const CONFIRM_LEAVE = Object.freeze({
  title: "Leave this room?",
  text:
    "The game under way counts as lost. Your seat stays free until someone watching, or " +
    "opening the link, presses “Take the free seat”: then a new series begins.",
  yes: "Yes, leave",
  no: "Stay",
});

// --- the screen-reader mode in a room (room_reader.js) -----------------------------------

/** A sentence ends in its stop: "Draw." but "You win!". */
const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The words said together, each a sentence, none twice. */
export const sentences = (parts) => [...new Set(parts.filter(Boolean))].map(sentence).join(" ");

/** Who made move `index` of the game, as this viewer reads it: "You", their friend's
 * name, on one device "Player 1 (X)", to a spectator "Ana (X)". */
function moverWords(room, index, mine) {
  const seat = index % 2 === 0 ? room.x_seat : other(room.x_seat);
  if (mine.length === 1) return mine[0] === seat ? "You" : friendOf(room, mine[0]);
  const name = room.kind === "local" ? SEAT_NAMES[seat] : nameOf(room, seat);
  return `${name} (${markOf(room, seat)})`;
}

/** A move, by who made it: "Bob played b2". */
export const movedWords = (room, index, mine, cell) => `${moverWords(room, index, mine)} played ${cell}`;

/** A move taken back on one device. */
export const takenBackWords = (cell) => `${cell} taken back`;

/** The series so far, said: "Score: You 1 – 0 Bob, 2 draws". */
export function scoreWords(room, mine) {
  const [wins, draws] = scoreParts(room, mine);
  return `Score: ${wins}, ${draws}`;
}

/** `status` in a room: whose turn or the result, the notes, the game and who plays which
 * mark (a spectator told they watch), the series' score, the rules (`rules`, "" for the
 * classic game) and how many watch. */
export function roomStatusWords(room, mine, rules) {
  const score = room.status === "waiting" ? "" : scoreWords(room, mine);
  const watching = room.watching ? watchingWords(room.watching) : "";
  return sentences([statusText(room, mine), notesText(room, mine), metaText(room, mine), score, rules, watching]);
}

/** What `next` answers when the page offers nothing to start. */
export const WATCHERS_NEXT = "You are watching: the players start the next game.";
export const NO_HINT_OVER = "No hint now: no game is under way.";
