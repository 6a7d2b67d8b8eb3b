// The screen-reader mode in a room (reader.js): by link, for each player and each
// spectator, and for two players on one device. Its commands read the newest snapshot;
// what just happened (a move, the end, a seat taken or left, a rematch) is said as each
// snapshot arrives.
import { nameOf } from "./board.js";
import { $ } from "./dom.js";
import { createReader } from "./reader.js";
import { NOTHING_NEXT } from "./words_reader.js";
import { deadNewsWords, valuesWords } from "./words.js";
import {
  NO_HINT_OVER,
  WATCHERS_NEXT,
  leftText,
  metaText,
  movedWords,
  notesText,
  roomStatusWords,
  scoreWords,
  sentences,
  statusText,
  takenBackWords,
  takenText,
} from "./words_room.js";

/**
 * The room's reader over its page. `page`: room() (the newest snapshot or null), mine()
 * (the viewer's seats), shape (the board's), play(cell), and on one device hint() (the
 * server's analysis ack) and undo(). Returns {render(room, mine)}.
 */
export function createRoomReader(page) {
  const local = $("room").dataset.kind === "local";
  const name = (cell) => nameOf(page.shape, cell);
  const rules = (room) => (room.variant === "classic" ? "" : $("room-rules").textContent);

  const reader = createReader({
    position() {
      const room = page.room();
      return room && { shape: page.shape, marks: room.board, dead: room.dead };
    },
    play: page.play,
    last() {
      const room = page.room();
      const at = (room?.moves.length ?? 0) - 1;
      return at < 0 ? "" : sentences([movedWords(room, at, page.mine(), name(room.moves[at]))]);
    },
    status() {
      const room = page.room();
      return room ? roomStatusWords(room, page.mine(), rules(room)) : $("status-text").textContent;
    },
    ...(local && { hint, undo: page.undo }),
    next,
  });

  async function hint() {
    if (page.room()?.status !== "playing") return NO_HINT_OVER;
    const reply = await page.hint();
    return reply.ok ? valuesWords(reply.analysis, name) : "";
  }

  // What the page offers next: Rematch (Next game on one device), pressed for the player.
  function next() {
    const room = page.room();
    const button = $("rematch");
    if (!button.hidden && button.getAttribute("aria-disabled") !== "true") {
      button.click();
      return "";
    }
    if (!room || room.status === "playing") return NOTHING_NEXT;
    if (room.status === "waiting") return sentences([statusText(room, page.mine())]);
    return page.mine().length ? sentences([notesText(room, page.mine())]) || NOTHING_NEXT : WATCHERS_NEXT;
  }

  let heard = { room: null, seats: "" }; // the snapshot last said, and to whom

  /** Say what changed since the snapshot last said, as the viewer holding `mine` reads it;
   * a viewer who took a seat hears the room afresh, as a player. */
  function render(room, mine) {
    const seats = mine.join();
    const before = heard.seats === seats ? heard.room : null;
    heard = { room, seats };
    if (!reader.on() || before?.version === room.version) return;
    reader.say(sentences(news(before, room, mine)));
  }

  function news(before, room, mine) {
    const said = [];
    const sameGame = before && before.game === room.game && room.status !== "waiting";
    if (!sameGame && room.status !== "waiting") said.push(metaText(room, mine));
    if (sameGame) {
      const seen = before.moves.length;
      room.moves.slice(seen).forEach((cell, i) => said.push(movedWords(room, seen + i, mine, name(cell))));
      before.moves.slice(room.moves.length).reverse().forEach((cell) => said.push(takenBackWords(name(cell))));
      said.push(deadNewsWords(room.dead, before.dead));
    }
    if (before?.taken == null && room.taken != null) said.push(takenText(room, mine));
    if (before && before.left == null && room.left != null) said.push(leftText(room, mine));
    const asked = before && room.rematch.some((seat) => !before.rematch.includes(seat));
    const turned = !before || before.status !== room.status || before.turn !== room.turn;
    if (turned || said.length || asked) said.push(statusText(room, mine));
    if (asked && !local) said.push(notesText(room, mine));
    if (room.status === "over" && before?.status === "playing") said.push(scoreWords(room, mine));
    return said;
  }

  /** Where the room stood when the mode came on: the next news is told from there. */
  function prime(room, mine) {
    heard = { room, seats: mine.join() };
  }

  return { render, prime };
}
