// What a page says of "Delete everything": on the page the browser lands on after it,
// what was deleted; in a tab opened before it, that this page's player is gone.
import { plural } from "./words.js";

/** Both dialogs' title, and the tab's title in a tab whose player was deleted. */
export const DELETED_TITLE = "Your data was deleted";

/** In a tab opened before the deletion (here or in another tab): nothing here is kept. */
export const DELETED_ELSEWHERE =
  "“Delete everything” was used in this browser, maybe in another tab: the games, match and seats this page showed are gone. Start afresh as a new player.";

/** The way out of a tab whose player was deleted. */
export const START_AFRESH = "Start afresh";

/** Closes the confirmation on the page the deletion landed on. */
export const DELETED_OK = "OK";

/**
 * What was deleted, from the server's count (`erased`: games, and 0 or 1 for the match,
 * the practice game and the room on this device, and the seats in friends' rooms):
 * "Deleted: 12 games with your lifetime figures and skill estimate, and your match
 * against the AI. This browser starts afresh as a new player."
 */
export function deletedWords(erased) {
  const { games = 0, match = 0, practice = 0, local = 0, seats = 0, cards = 0 } = erased ?? {};
  const parts = [];
  if (games) parts.push(`${plural(games, "game")} with your lifetime figures and skill estimate`);
  if (match) parts.push("your match against the AI");
  if (practice) parts.push("your practice game");
  if (local) parts.push("your room on this device");
  if (seats === 1) parts.push("your seat in a room with a friend");
  if (seats > 1) parts.push(`your seats in ${seats} rooms with friends`);
  if (cards) parts.push(plural(cards, "training card"));
  const fresh = "This browser starts afresh as a new player.";
  if (parts.length === 0) return `Nothing was stored about you yet. ${fresh}`;
  const last = parts.pop();
  return `Deleted: ${parts.length ? `${parts.join(", ")} and ${last}` : last}. ${fresh}`;
}
