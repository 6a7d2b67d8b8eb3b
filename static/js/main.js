// Wires the socket to the view: snapshots are rendered, clicks become events.
import { connect } from "./connection.js";
import { EVENTS, NOTICES } from "./protocol.js";
import { createView } from "./view.js";

let current = null;
let hintsOn = false;

const view = createView({
  // The version says which state the player saw: a click on an older one is refused.
  play: (cell) => request(EVENTS.move, { cell, version: current?.version }),
  nextGame: () => request(EVENTS.nextGame),
  newMatch: (settings) => request(EVENTS.newMatch, settings),
  toggleHints(on) {
    hintsOn = on;
    refreshHints();
  },
});

const connection = connect({
  onState(state) {
    // Snapshots only move forward; after a reconnect the server's word is final.
    if (current && state.version < current.version) return;
    current = state;
    view.render(state);
    refreshHints();
  },
  onNotice(notice) {
    // The stored match was replaced by a new one, whose versions start again.
    if (notice?.code === NOTICES.matchUnreadable) current = null;
    view.showNotice(notice?.code);
  },
  onStatus(status, reason) {
    // Socket.IO delivers the first snapshot of a connection before "connect", so the
    // version check is relaxed while disconnected rather than on reconnect.
    if (status !== "online") current = null;
    view.setConnection(status, reason);
  },
});

async function request(event, payload) {
  const reply = await connection.send(event, payload);
  if (!reply.ok) view.showError(reply.error?.code);
  return reply;
}

async function refreshHints() {
  const state = current;
  if (!hintsOn || !state || state.status !== "playing" || state.turn !== "human") return;
  const reply = await request(EVENTS.hint);
  if (reply.ok && hintsOn && current === state) view.showHints(reply.analysis);
}
