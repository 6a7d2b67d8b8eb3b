// "Delete everything" as every page tells it, in templates/base.html's dialog: once, on
// the page the browser lands on after it, what was deleted; in a tab opened before it,
// that its player is gone, the rest of the page inert, with a way to start afresh.
import { $ } from "./dom.js";
import {
  DELETED_ELSEWHERE,
  DELETED_OK,
  DELETED_TITLE,
  START_AFRESH,
  deletedWords,
} from "./words_deleted.js";

function open(text, button, label) {
  const dialog = $("deleted");
  $("deleted-title").textContent = DELETED_TITLE;
  $("deleted-text").textContent = text;
  for (const other of [$("deleted-close"), $("deleted-start")]) other.hidden = other !== button;
  button.textContent = label;
  if (dialog.open) dialog.close();
  dialog.showModal();
  button.focus();
  return dialog;
}

/** On the page the deletion landed on: what the server says was deleted, once. */
export function confirmDeleted() {
  const dialog = $("deleted");
  const erased = dialog?.dataset.deleted;
  if (!erased) return;
  delete dialog.dataset.deleted;
  const ok = $("deleted-close");
  ok.addEventListener("click", () => dialog.close(), { once: true });
  open(deletedWords(JSON.parse(erased)), ok, DELETED_OK);
}

/**
 * In a tab whose player was deleted: it says so, over a page that no longer answers
 * (every other part inert: no board to click, no form to send), and offers a fresh start.
 */
export function showDeleted() {
  const dialog = $("deleted");
  if (dialog.dataset.state === "gone") return;
  dialog.dataset.state = "gone";
  for (const part of document.body.children) part.inert = part !== dialog;
  document.body.classList.add("is-deleted");
  const banner = document.getElementById("connection"); // "Reconnecting…" no more
  if (banner) banner.hidden = true;
  const status = document.getElementById("status-text"); // the headline, behind the dialog
  if (status) status.textContent = DELETED_TITLE;
  document.title = DELETED_TITLE;
  open(DELETED_ELSEWHERE, $("deleted-start"), START_AFRESH);
  // Escape closes a modal dialog; here there is nothing to go back to.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  dialog.addEventListener("close", () => dialog.showModal());
}
