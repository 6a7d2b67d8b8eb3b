// The room page's invite: the link to send, opened while the room waits for a friend, and
// its Copy and Share buttons.
import { $ } from "./dom.js";
import { LINK_COPIED, LINK_SELECTED } from "./words.js";
import { inviteHelp, inviteTitle } from "./words_room.js";

/** The invite over the server-rendered page (a room on one device has none): render(room, mine). */
export function createInvite() {
  const invite = $("invite");
  const link = $("invite-link");
  let wasWaiting = null;

  function render(room, mine) {
    if (!invite) return;
    // Open for a player waiting for a friend; for a spectator the free seat is its button.
    const waiting = room.status === "waiting" && (room.left == null || mine.length > 0);
    // Open while the room waits for a friend; folded once the game is on (still there
    // for inviting spectators), and left as the viewer sets it in between.
    if (waiting !== wasWaiting) invite.open = waiting;
    wasWaiting = waiting;
    const friend = room.status === "waiting" && mine.length > 0;
    $("invite-title").textContent = inviteTitle(friend);
    $("invite-help").textContent = inviteHelp(room.left != null);
  }

  function said(text) {
    $("invite-said").textContent = text;
  }

  async function copyLink() {
    try {
      await navigator.clipboard.writeText(link.value);
      said(LINK_COPIED);
    } catch {
      // No clipboard here (plain HTTP) or not allowed: the link is selected to copy by hand.
      link.focus();
      link.select();
      said(LINK_SELECTED);
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

  return { render };
}
