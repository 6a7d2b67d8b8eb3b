// The room page's buttons: Rematch, Take the seat, Undo, Resign, Leave, Hint and the
// name form, which of them a viewer has, and the question asked before resigning or
// leaving.
import { $ } from "./dom.js";
import { SEATS, free } from "./seats.js";
import { errorWords } from "./words.js";
import { CONFIRM_LEAVE, CONFIRM_RESIGN, NAME_SAVED } from "./words_room.js";

/**
 * The buttons over the server-rendered page; `grid` is the board's handle. `actions`:
 * rematch(), takeSeat(), name(text), undo(), resign(), leave() (each answered by a
 * promise of the server's ack), toggleHints(on) and hintsOff(). The handle:
 * render(room, mine, online), keepFocus(had).
 */
export function createRoomActions(grid, actions) {
  let shown = null;
  let mine = [];

  // Each kind of room has its own buttons: those it lacks are skipped.
  function toggle(id, on) {
    const el = $(id);
    if (el) el.hidden = !on;
  }

  function inert(id, off) {
    $(id)?.setAttribute("aria-disabled", String(off));
  }

  /** Which buttons the viewer holding the seats `mine` has, live while `online`. */
  function render(room, seats, online) {
    shown = room;
    mine = seats;
    const seated = mine.length > 0;
    const over = room.status === "over";
    const asked = mine.every((seat) => room.rematch.includes(seat));
    toggle("rematch", seated && over);
    inert("rematch", !online || (over && asked));
    toggle("resign", seated && room.status === "playing");
    toggle("leave", seated);
    toggle("take-seat", !seated && SEATS.some((seat) => free(room, seat)));
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
  // Enter on a finished board does what the button under it offers (Rematch, or Next
  // game on one device), as on the AI's page.
  $("board").addEventListener("keydown", (event) => {
    const rematch = $("rematch");
    if (event.key !== "Enter" || rematch.hidden || event.ctrlKey || event.altKey) return;
    event.preventDefault();
    rematch.click();
  });
  $("take-seat")?.addEventListener("click", () => pressed("take-seat") || actions.takeSeat());
  $("name-form")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const reply = await actions.name($("name").value);
    $("name-said").textContent = reply.ok ? NAME_SAVED : errorWords(reply.error, { servers: true });
  });
  $("undo")?.addEventListener("click", () => pressed("undo") || actions.undo());
  $("resign")?.addEventListener("click", async () => {
    if (await confirm(CONFIRM_RESIGN)) actions.resign();
  });
  $("leave")?.addEventListener("click", (event) => {
    if (!mine.length) return; // a spectator just follows the link
    event.preventDefault();
    leave(event.currentTarget.href);
  });

  async function leave(home) {
    if (shown?.status === "playing" && !(await confirm(CONFIRM_LEAVE))) return;
    const reply = await actions.leave();
    if (reply.ok) window.location.assign(home);
  }

  const hint = $("hint");
  hint?.addEventListener("click", () => {
    const on = hint.getAttribute("aria-pressed") !== "true";
    hint.setAttribute("aria-pressed", String(on));
    if (!on) actions.hintsOff();
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

  return { render, keepFocus };
}
