// Wires the socket to the room page: `room` snapshots are rendered, clicks become events.
// The room is joined again on every (re)connect; the newest answer says whose seat is ours.
import { shapeOf } from "./board.js";
import { CHOICES, choice, lazyReader } from "./choices.js";
import { connect } from "./connection.js";
import { $ } from "./dom.js";
import { createOwnMoves } from "./own_moves.js";
import { EVENTS } from "./protocol.js";
import { createRoomView } from "./roomview.js";
import { seatsOf } from "./seats.js";

const room = $("room").dataset.room; // an invite's id, or "local"
// The rule set this page was drawn for: a room on one device is asked to play it when
// the page opens (not on a reconnect, so an older tab cannot change it back).
const variant = $("room").dataset.variant;
let asked = room === "local" ? { variant } : {};

let current = null; // the newest snapshot
let you; // our seat token from the newest join answer: null to watch, undefined before
let hintsOn = false;
let hintsFor = -1; // the version whose hints were asked for

// The version says which position the player saw: a play on an older one is refused.
const moves = createOwnMoves((cell, version) => request(EVENTS.roomMove, { cell, version }));
const play = (cell) => moves.play(cell, () => current?.version);
const undo = () => request(EVENTS.roomUndo);

const view = createRoomView({
  play,
  undo,
  resign: () => request(EVENTS.roomResign),
  rematch: () => request(EVENTS.roomRematch),
  leave: () => request(EVENTS.roomLeave),
  name: (name) => request(EVENTS.roomName, { name }),
  // The seat is ours from its answer on, as from a join's.
  async takeSeat() {
    const reply = await request(EVENTS.roomSit);
    if (reply.ok) {
      you = reply.you;
      show();
    }
    return reply;
  },
  toggleHints(on) {
    hintsOn = on;
    hintsFor = -1;
    refreshHints();
  },
});
const { rows, columns, boards } = $("room").dataset;
// The screen-reader mode's module comes with the mode (choices.js).
const reader = lazyReader(() =>
  import("./room_reader.js").then(({ createRoomReader }) =>
    createRoomReader({
      room: () => current,
      mine: () => (current ? seatsOf(current, you) : []),
      shape: shapeOf({ rows: Number(rows), columns: Number(columns), boards: Number(boards) }),
      play,
      undo,
      hint: () => connection.send(EVENTS.roomHint, { room }),
    }),
  ),
);
// Keys 1-9 play cells unless the player turned them off on the AI page.
view.showNumberKeys(choice(CHOICES.numberKeys, true));

const connection = connect({
  onRoom(snapshot) {
    // Snapshots only move forward; after a reconnect the server's word is final.
    if (current && snapshot.version < current.version) return;
    // The room went on to another rule set (from another tab): draw the page for it.
    if (snapshot.variant !== variant) {
      window.location.replace(window.location.pathname);
      return;
    }
    current = snapshot;
    moves.saw(snapshot.version);
    show();
  },
  onStatus(status, reason) {
    if (status !== "online") {
      current = null;
      moves.reset();
    }
    view.setConnection(status, reason);
    if (status === "online") join();
  },
  onNotice: (notice) => view.showNotice(notice?.code),
});

async function join() {
  const reply = await connection.send(EVENTS.roomJoin, { room, ...asked });
  if (!reply.ok) {
    view.showRefusedJoin(reply.error);
    return;
  }
  asked = {};
  you = reply.you;
  show();
}

function show() {
  if (!current || you === undefined) return; // the seat is known from the join answer
  view.render(current, you);
  reader.render(current, seatsOf(current, you));
  refreshHints();
}

async function request(event, payload = {}) {
  const reply = await connection.send(event, { room, ...payload });
  if (!reply.ok) view.showError(reply.error);
  return reply;
}

// The hints of the position shown, asked once per version while the toggle is on.
async function refreshHints() {
  const snapshot = current;
  if (!hintsOn || !snapshot || snapshot.status !== "playing") return;
  if (hintsFor === snapshot.version) return;
  hintsFor = snapshot.version;
  const reply = await connection.send(EVENTS.roomHint, { room });
  if (reply.ok && hintsOn && current?.version === snapshot.version) view.showHints(reply.analysis);
}
