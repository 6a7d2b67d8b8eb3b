// The room page's DOM: renders `room` snapshots as the viewer sees them (one seat, both
// seats on one device, or none to watch) and turns input into intentions. No game rules
// live here: what may be played follows the server's snapshot. The board, the status,
// the score and the seats are drawn here; the buttons and the invite have their module.

import { createBoard, nameOf, shapeOf } from "./board.js";
import { announce, showConnection } from "./connection.js";
import { $ } from "./dom.js";
import { createRoomActions } from "./room_actions.js";
import { createInvite } from "./room_invite.js";
import { SEATS, markOf, seatsOf } from "./seats.js";
import {
  deadNewsWords,
  errorWords,
  gameWords,
  noticeWords,
  offlineMoveWords,
} from "./words.js";
import {
  HEADER,
  NOT_IN_ROOM,
  metaText,
  notesText,
  scoreParts,
  seatWords,
  statusText,
  takenText,
  watchingWords,
} from "./words_room.js";

const NOTICE_MS = 5000;

/** Whether the status is good or bad news for this viewer ("" when neither). */
function tone(room, mine) {
  if (room.status !== "over" || mine.length !== 1 || room.winner == null) return "";
  return room.winner === mine[0] ? "good" : "bad";
}

/** Say `text` in the notice area for a while: news of the room (`news`), else a refusal. */
function say(text, { news = false } = {}) {
  $("notice").dataset.tone = news ? "news" : "";
  announce(text, NOTICE_MS);
}

/** What a refused action means to the player: the page's words, else the server's. */
const errorText = (error) => errorWords(error, { servers: true });

/**
 * Build the view over the server-rendered room page. `actions` receives the viewer's
 * intentions, each answered by a promise of the server's ack: play(cell), undo(),
 * resign(), rematch(), leave(), takeSeat(), name(text), and toggleHints(on) (answered by
 * nothing).
 */
export function createRoomView(actions) {
  const page = $("room");
  const board = $("board");
  const local = page.dataset.kind === "local";
  let shown = null;
  let mine = [];
  let online = false;

  const playable = (room) => online && room.status === "playing" && mine.includes(room.turn);

  // --- the board: drawn by board.js, X in the first colour and O in the second ------

  // Every play goes to the server, whose answer is shown; only a play while not
  // connected is refused here, since it could not be sent.
  const { rows, columns, boards } = page.dataset;
  const shape = shapeOf({ rows: Number(rows), columns: Number(columns), boards: Number(boards) });
  const grid = createBoard(board, {
    ...shape,
    colours: { X: "you", O: "ai" },
    onPlay(cell) {
      if (online) return actions.play(cell);
      say(offlineMoveWords(nameOf(shape, cell)));
      return { ok: false };
    },
  });

  /** Whether keys 1-9 play cells (the player's choice on the AI page). */
  const showNumberKeys = (on) => grid.setNumberKeys(on);

  function renderBoard(room) {
    grid.set({
      marks: room.board,
      playable: playable(room),
      last: room.status === "playing" ? (room.moves.at(-1) ?? -1) : -1,
      line: room.winning_line,
      dead: room.dead,
    });
  }

  // A board that died since the last snapshot is said as it happens.
  function sayDead(before, room) {
    if (!before || before.game !== room.game) return;
    const said = deadNewsWords(room.dead, before.dead);
    if (said) say(said, { news: true });
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  const showHints = (analysis) => grid.showHints(analysis);

  const buttons = createRoomActions(grid, { ...actions, hintsOff: () => showHints(null) });
  const invite = createInvite();

  // --- the words around the board -----------------------------------------------

  function renderStatus(room) {
    $("status-text").textContent = statusText(room, mine);
    $("status").dataset.tone = tone(room, mine);
    $("substatus").textContent = notesText(room, mine);
    $("game-meta").textContent = metaText(room, mine);
  }

  // Who is in the room: each seat's name, mark and presence, for players and spectators.
  function renderPlayers(room) {
    const list = $("players");
    if (!list) return;
    list.replaceChildren(
      ...SEATS.map((seat) => {
        const item = document.createElement("li");
        item.textContent = seatWords(room, seat, mine);
        item.dataset.seat = String(seat);
        return item;
      }),
    );
    const form = $("name-form");
    form.hidden = mine.length !== 1;
    const field = $("name");
    if (mine.length === 1 && document.activeElement !== field) {
      field.value = room.seats[mine[0]].name ?? "";
    }
  }

  // A spectator is told so in the header, not asked to share the link.
  function renderHeader(watching) {
    const title = $("room-title");
    if (!title || local) return;
    const header = watching ? HEADER.watching : HEADER.playing;
    title.textContent = header.title;
    $("room-tagline").textContent = header.tagline;
  }

  function renderScore(room) {
    $("game-number").textContent = room.game ? gameWords(room.game) : "";
    if (local) {
      // X alternates between games: the tally counts by player, not by mark.
      $("p1-wins").textContent = String(room.score.seat_wins[0]);
      $("p2-wins").textContent = String(room.score.seat_wins[1]);
      $("draws").textContent = String(room.score.draws);
    } else {
      const [wins, draws] = scoreParts(room, mine);
      $("score-wins").textContent = wins;
      $("score-draws").textContent = draws;
    }
    const watching = $("watching");
    watching.hidden = !room.watching;
    watching.textContent = room.watching ? watchingWords(room.watching) : "";
    const taken = $("series-note");
    if (!taken) return;
    taken.textContent = takenText(room, mine);
    taken.hidden = !taken.textContent;
  }

  // A seat taken is said as it happens: when a snapshot first shows it; said anew while
  // it is still on show if its words change (the newcomer's own seat known from its
  // answer, their name given).
  let said = { version: -1, text: "" };
  function sayTaken(before, room) {
    const text = takenText(room, mine);
    const fresh = before && before.taken == null && room.taken != null;
    const showing = said.version === room.version || $("notice").textContent === said.text;
    const reworded = said.text !== "" && showing && said.text !== text;
    if (!text || !(fresh || reworded)) return;
    said = { version: room.version, text };
    say(text, { news: true });
  }

  // --- everything, from one snapshot --------------------------------------------------

  /** Render `room` as seen by the holder of token `you` (null: a spectator). */
  function render(room, you) {
    const fresh = !shown || shown.version !== room.version;
    const had = page.querySelector("#actions :focus");
    const before = shown;
    shown = room;
    mine = seatsOf(room, you);
    page.dataset.status = room.status;
    if (room.left == null) delete page.dataset.left;
    else page.dataset.left = String(room.left);
    board.dataset.status = room.status;
    board.dataset.version = String(room.version);
    board.dataset.turn = room.turn == null ? "none" : markOf(room, room.turn);
    board.dataset.viewer = local ? "both" : mine.length ? "player" : "spectator";
    renderBoard(room);
    renderStatus(room);
    renderScore(room);
    sayTaken(before, room);
    sayDead(before, room);
    buttons.render(room, mine, online);
    invite.render(room, mine);
    renderPlayers(room);
    renderHeader(!local && mine.length === 0);
    if (fresh) showHints(null);
    buttons.keepFocus(had);
  }

  /** Reflect the socket: "online", "offline" (reconnecting) or "refused" (with why). */
  function setConnection(status, reason = "") {
    online = status === "online";
    showConnection(status, reason);
    if (shown) {
      renderBoard(shown);
      buttons.render(shown, mine, online);
    }
  }

  /** Show a refused action ({code, message}) in the notice area. */
  const showError = (error) => say(errorText(error));

  /** The room could not be joined: say why where the status goes. */
  function showRefusedJoin(error) {
    $("status-text").textContent = errorText(error);
    $("game-meta").textContent = NOT_IN_ROOM;
  }

  /** Show what the server's `notice` says, by its code. */
  const showNotice = (code) => say(noticeWords(code));

  return {
    render,
    showHints,
    showNumberKeys,
    setConnection,
    showError,
    showRefusedJoin,
    showNotice,
  };
}
