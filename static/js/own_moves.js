// A room page's own moves, one at a time (room.js). A move made while the page's last
// one is neither answered nor passed by a newer position waits for either; it is then
// sent on the position that move made, so two quick moves on one device are both played.

/**
 * `send(cell, version)` -> a promise of the server's ack, which never rejects. Returns
 * {play(cell, shown), saw(version), reset()}: `shown()` is the version on the page
 * (undefined before the first snapshot), `saw` is told each snapshot's version, `reset`
 * forgets what is pending when the connection drops.
 */
export function createOwnMoves(send) {
  let last = Promise.resolve(); // settles when the page's last move is answered or passed
  let made = -1; // the version the last accepted move made, until a snapshot shows it
  let waiting = []; // [{seen, settle}]: moves sent on `seen`, settled by a newer snapshot

  function play(cell, shown) {
    const before = last;
    let settle;
    last = new Promise((resolve) => (settle = resolve));
    return before.then(async () => {
      const version = shown();
      const seen = version === undefined ? undefined : Math.max(version, made);
      if (seen !== undefined) waiting.push({ seen, settle });
      const reply = await send(cell, seen);
      if (reply.ok && reply.version > (shown() ?? -1)) made = reply.version;
      settle();
      return reply;
    });
  }

  function saw(version) {
    if (version >= made) made = -1;
    waiting = waiting.filter((move) => version <= move.seen || void move.settle());
  }

  function reset() {
    made = -1;
    waiting.forEach((move) => move.settle());
    waiting = [];
  }

  return { play, saw, reset };
}
