// The room page's DOM: renders `room` snapshots as the viewer sees them (one seat, both
// seats on one device, or none to watch) and turns input into intentions. No game rules
// live here: what may be played follows the server's snapshot.

import {
  CLIENT_ERROR_MESSAGES,
  ERROR_MESSAGES,
  NOTICE_MESSAGES,
  cellName,
} from "./protocol.js";
import { createBoard } from "./board.js";
import { RESULTS, offlineMoveWords, plural } from "./words.js";

const NOTICE_MS = 5000;
const SEAT_NAMES = ["Player 1", "Player 2"];
const SEATS = [0, 1];

const other = (seat) => 1 - seat;
const markOf = (room, seat) => (seat === room.x_seat ? "X" : "O");

/** A seat's name as the room shows it: the one its player gave, else Player 1 or 2. */
export const nameOf = (room, seat) => room.seats[seat].name || SEAT_NAMES[seat];

/** The friend of the player in `seat`, as that player reads it. */
const friendOf = (room, seat) => room.seats[other(seat)].name || "Your friend";

const away = (room, seat) => room.seats[seat].token != null && !room.seats[seat].connected;

/** The seats held by the holder of token `you`: none to watch, both on one device. */
export function seatsOf(room, you) {
  if (you == null) return [];
  return SEATS.filter((seat) => room.seats[seat].token === you);
}

// For two people on one device: the marks, not the people.
function markStatus(room) {
  if (room.status === "playing") return `${markOf(room, room.turn)} to move`;
  if (room.resigned != null) return `${markOf(room, room.resigned)} resigned`;
  return room.winner == null ? RESULTS.draw : `${markOf(room, room.winner)} wins`;
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

/** What a player leaving means to this viewer ("" when no one has left). */
export function leftText(room, mine) {
  if (room.left == null) return "";
  return mine.length ? "Your friend left the room" : `${SEAT_NAMES[room.left]} left the room`;
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

/** Whether the status is good or bad news for this viewer ("" when neither). */
function tone(room, mine) {
  if (room.status !== "over" || mine.length !== 1 || room.winner == null) return "";
  return room.winner === mine[0] ? "good" : "bad";
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
    const them = room.seats[friend].name || "your friend";
    if (asked && !theirs) notes.push(`Waiting for ${them} to accept the rematch`);
    if (theirs && !asked) notes.push(`${name} wants a rematch`);
  }
  if (room.status !== "waiting" && away(room, friend)) notes.push(`${name} is away`);
  return notes.join(" · ");
}

/** What a spectator should know: who is away, and a seat they may take. */
function watcherNotes(room) {
  const notes = SEATS.filter((seat) => away(room, seat)).map((s) => `${nameOf(room, s)} is away`);
  if (SEATS.some((seat) => room.seats[seat].token == null)) {
    notes.push("A seat is free");
  }
  return notes.join(" · ");
}

/** The notes under the status, for any viewer. */
function notesText(room, mine) {
  if (room.kind === "local") return "";
  return mine.length === 1 ? playerNotes(room, mine[0]) : watcherNotes(room);
}

function metaText(room, mine) {
  if (room.status === "waiting") {
    return mine.length ? "Send your friend the invite link" : "Watching";
  }
  const game = `Game ${room.game}`;
  if (room.kind === "local") {
    const o = other(room.x_seat);
    return `${game} · ${SEAT_NAMES[room.x_seat]} is X, ${SEAT_NAMES[o]} is O`;
  }
  if (mine.length) return `${game} · You play ${markOf(room, mine[0])}`;
  const o = other(room.x_seat);
  return `${game} · You are watching: ${nameOf(room, room.x_seat)} plays X, ${nameOf(room, o)} plays O`;
}

/** The series so far, as "You 2 – 1 Friend" and "1 draw" (by seat for a spectator). */
export function scoreParts(room, mine) {
  const player = mine.length === 1;
  const [first, second] = player ? [mine[0], other(mine[0])] : SEATS;
  const names = player
    ? ["You", room.seats[second].name || "Friend"]
    : [nameOf(room, 0), nameOf(room, 1)];
  const wins = room.score.seat_wins;
  const series = `${names[0]} ${wins[first]} – ${wins[second]} ${names[1]}`;
  return [series, plural(room.score.draws, "draw")];
}

/** What a refused action means to the player: the page's words, else the server's. */
function errorText(error) {
  const code = error?.code;
  const own = CLIENT_ERROR_MESSAGES[code];
  const said = error?.message && error.message !== code ? error.message : "";
  const text = own ?? (said || ERROR_MESSAGES[code]) ?? "Something went wrong";
  // A sentence gets its capital; a cell's name ("b2 is already taken") keeps its own.
  if (/^[a-i][1-9]\b/.test(text)) return text;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Build the view over the server-rendered room page. `actions` receives the viewer's
 * intentions, each answered by a promise of the server's ack: play(cell), undo(),
 * resign(), rematch(), leave(), takeSeat(), name(text), and toggleHints(on) (answered by
 * nothing).
 */
export function createRoomView(actions) {
  const $ = (id) => document.getElementById(id);
  const page = $("room");
  const board = $("board");
  const local = page.dataset.kind === "local";
  let shown = null;
  let mine = [];
  let online = false;
  let noticeTimer = 0;
  let wasWaiting = null;

  const playable = (room) => online && room.status === "playing" && mine.includes(room.turn);

  // --- the board: drawn by board.js, X in the first colour and O in the second ------

  // Every play goes to the server, whose answer is shown; only a play while not
  // connected is refused here, since it could not be sent.
  const grid = createBoard(board, {
    size: 3,
    label: "Board",
    colours: { X: "you", O: "ai" },
    onPlay(cell) {
      if (online) return actions.play(cell);
      announce(offlineMoveWords(cellName(cell)));
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
    });
  }

  /** Show the perfect-play value of each empty cell, or clear them with null. */
  const showHints = (analysis) => grid.showHints(analysis);

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
        const held = room.seats[seat].token != null;
        const mark = room.status === "waiting" ? "" : ` · ${markOf(room, seat)}`;
        const you = mine.includes(seat) ? " (you)" : "";
        const state = !held ? "free seat" : away(room, seat) ? "away" : "here";
        item.textContent = `${held ? nameOf(room, seat) : SEAT_NAMES[seat]}${you}${mark} · ${state}`;
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
    title.textContent = watching ? "Watching a game" : "Play a friend";
    $("room-tagline").textContent = watching
      ? "You are watching two players. When a seat is free, you can take it."
      : "One board, two browsers: share the link below.";
  }

  function renderScore(room) {
    $("game-number").textContent = room.game ? `Game ${room.game}` : "";
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
    watching.textContent = room.watching ? `${room.watching} watching` : "";
  }

  // --- the buttons ----------------------------------------------------------------

  // Each kind of room has its own buttons: those it lacks are skipped.
  function toggle(id, on) {
    const el = $(id);
    if (el) el.hidden = !on;
  }

  function inert(id, off) {
    $(id)?.setAttribute("aria-disabled", String(off));
  }

  function renderActions(room) {
    const seated = mine.length > 0;
    const over = room.status === "over";
    const asked = mine.every((seat) => room.rematch.includes(seat));
    toggle("rematch", seated && over);
    inert("rematch", !online || (over && asked));
    toggle("resign", seated && room.status === "playing");
    toggle("leave", seated);
    const free = SEATS.some((seat) => room.seats[seat].token == null);
    toggle("take-seat", !seated && free);
    inert("take-seat", !online);
    inert("undo", !(online && room.moves.length > 0 && room.resigned == null));
  }

  // A button that vanishes under the focus hands it on: to Rematch, else to the board.
  function keepFocus(had) {
    if (!had || had.offsetParent !== null) return;
    const rematch = $("rematch");
    if (rematch && !rematch.hidden) rematch.focus();
    else grid.focus();
  }

  const pressed = (id) => $(id).getAttribute("aria-disabled") === "true";

  $("rematch").addEventListener("click", () => pressed("rematch") || actions.rematch());
  $("take-seat")?.addEventListener("click", () => pressed("take-seat") || actions.takeSeat());
  $("name-form")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reply = await actions.name($("name").value);
    $("name-said").textContent = reply.ok ? "Name saved" : errorText(reply.error);
  });
  $("undo")?.addEventListener("click", () => pressed("undo") || actions.undo());
  $("resign")?.addEventListener("click", async () => {
    const sure = await confirm({
      title: "Resign this game?",
      text: "Your friend wins it, and it counts in the score.",
      yes: "Yes, resign",
      no: "Keep playing",
    });
    if (sure) actions.resign();
  });
  $("leave")?.addEventListener("click", (event) => {
    if (!mine.length) return; // a spectator just follows the link
    event.preventDefault();
    leave(event.currentTarget.href);
  });

  async function leave(home) {
    if (shown?.status === "playing") {
      const sure = await confirm({
        title: "Leave this room?",
        text: "The game under way counts as lost; whoever opens the link next takes your seat.",
        yes: "Yes, leave",
        no: "Stay",
      });
      if (!sure) return;
    }
    const reply = await actions.leave();
    if (reply.ok) window.location.assign(home);
  }

  const hint = $("hint");
  hint?.addEventListener("click", () => {
    const on = hint.getAttribute("aria-pressed") !== "true";
    hint.setAttribute("aria-pressed", String(on));
    if (!on) showHints(null);
    actions.toggleHints(on);
  });

  /** Ask in a modal dialog; resolves true for yes, false for no or Escape. */
  function confirm({ title, text, yes, no }) {
    const dialog = $("confirm");
    $("confirm-title").textContent = title;
    $("confirm-text").textContent = text;
    $("confirm-yes").textContent = yes;
    $("confirm-no").textContent = no;
    dialog.returnValue = "";
    dialog.showModal();
    $("confirm-no").focus(); // the safe answer first
    return new Promise((resolve) => {
      dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), { once: true });
    });
  }
  $("confirm-yes").addEventListener("click", () => $("confirm").close("yes"));
  $("confirm-no").addEventListener("click", () => $("confirm").close("no"));

  // --- the invite -------------------------------------------------------------------

  const invite = $("invite");
  const link = $("invite-link");

  function renderInvite(room) {
    if (!invite) return;
    // Open for a player waiting for a friend; for a spectator the free seat is its button.
    const waiting = room.status === "waiting" && (room.left == null || mine.length > 0);
    // Open while the room waits for a friend; folded once the game is on (still there
    // for inviting spectators), and left as the viewer sets it in between.
    if (waiting !== wasWaiting) invite.open = waiting;
    wasWaiting = waiting;
    const friend = room.status === "waiting" && mine.length > 0;
    $("invite-title").textContent = friend ? "Invite a friend" : "Invite someone to watch";
    $("invite-help").textContent =
      room.left == null
        ? "The first person to open it plays you; anyone after them watches."
        : "Whoever opens it can take the free seat with its button; anyone else watches.";
  }

  function said(text) {
    $("invite-said").textContent = text;
  }

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(link.value);
      said("Link copied");
    } catch {
      // No clipboard here (plain HTTP) or not allowed: the link is selected to copy by hand.
      link.focus();
      link.select();
      said("Link selected: copy it with your keyboard or menu");
    }
  }

  async function shareLink() {
    try {
      await navigator.share({ title: document.title, url: link.value });
    } catch {
      // The viewer closed the share sheet: nothing to say.
    }
  }

  if (invite) {
    $("copy").addEventListener("click", copyLink);
    $("share").hidden = typeof navigator.share !== "function";
    $("share").addEventListener("click", shareLink);
  }

  // --- everything, from one snapshot --------------------------------------------------

  /** Render `room` as seen by the holder of token `you` (null: a spectator). */
  function render(room, you) {
    const fresh = !shown || shown.version !== room.version;
    const had = page.querySelector("#actions :focus");
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
    renderActions(room);
    renderInvite(room);
    renderPlayers(room);
    renderHeader(!local && mine.length === 0);
    if (fresh) showHints(null);
    keepFocus(had);
  }

  /** Reflect the socket: "online", "offline" (reconnecting) or "refused" (with why). */
  function setConnection(status, reason = "") {
    online = status === "online";
    const banner = $("connection");
    banner.hidden = online;
    banner.dataset.status = status;
    const refusal = `Connection refused: ${reason || "reload the page"}`;
    $("connection-text").textContent = status === "refused" ? refusal : "Reconnecting…";
    document.body.classList.toggle("is-offline", !online);
    if (shown) {
      renderBoard(shown);
      renderActions(shown);
    }
  }

  function announce(text) {
    const notice = $("notice");
    notice.textContent = text;
    notice.classList.add("is-visible");
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => {
      notice.classList.remove("is-visible");
      noticeTimer = setTimeout(() => (notice.textContent = ""), 400);
    }, NOTICE_MS);
  }

  /** Show a refused action ({code, message}) in the notice area. */
  const showError = (error) => announce(errorText(error));

  /** The room could not be joined: say why where the status goes. */
  function showRefusedJoin(error) {
    $("status-text").textContent = errorText(error);
    $("game-meta").textContent = "Not in the room";
  }

  /** Show what the server's `notice` says, by its code. */
  const showNotice = (code) => announce(NOTICE_MESSAGES[code] ?? "The server sent a notice");

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
